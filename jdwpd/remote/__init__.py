"""Remote debugging: the daemon beside the debugger (`jdwpd connect`), the JVM's agent far away
(`jdwpd launch --remote`, `jdwpd attach PID --remote`); only the agent link crosses, in TLS 1.3 with
both ends authenticated by the secret file (docs/remote.md)."""
