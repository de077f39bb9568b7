"""An HTTP `GET /sessions/{id}/status` service (AgentScope): the target, its calibration helpers,
its AgentScope driver and the scripted model it gives a service."""
