"""The reference HTTP session-status service (AgentScope's `GET /sessions/{id}/status`), on FastAPI."""
