"""The reference agent: a conforming ACP v1 agent with session/status, built on the official SDK."""
