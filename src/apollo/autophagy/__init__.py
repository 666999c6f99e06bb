"""autophagy: tiered, confirmed, reversible cleanup (SPEC §2; docs/autophagy.md).

``api`` is the library the CLI, the MCP server and the heartbeat call; ``rules.toml`` holds every
pattern; ``remove`` is the only module in Apollo that deletes.
"""
