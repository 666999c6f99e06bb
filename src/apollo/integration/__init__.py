"""Apollo inside the agents people use: routing, installation, heartbeat, Claude Code hooks, MCP."""
