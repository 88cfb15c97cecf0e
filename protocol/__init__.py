"""Sans-I/O JDWP: framing, the command table, typed messages (filled in as modules land)."""
