"""How frames reach an agent: its process, stdio, WebSocket and ACP Streamable HTTP channels,
and the JSON-RPC peer that checks every envelope and records the transcript."""
