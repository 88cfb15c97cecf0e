"""The daemon's side of the agent link (agent_link) and starting JVMs with the agent (launcher)."""
