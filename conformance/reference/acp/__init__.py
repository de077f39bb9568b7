"""The reference ACP agents (v1 and v2) with `session/status`, on the official Python SDK."""
