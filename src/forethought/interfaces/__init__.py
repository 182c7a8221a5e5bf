"""How people and programs reach an Agent: the CLI, the MCP server, configuration."""
