"""The `jdwpd` command line: its subcommands, each a thin front end over the daemon or the API."""
