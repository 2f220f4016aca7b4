"""Serving: the CLI, the MCP server and its tools and tokens, the live catalog, audit replay and reading, and the evaluation harnesses."""
