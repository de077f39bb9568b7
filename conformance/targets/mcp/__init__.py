"""MCP `session_heartbeat`: the target, its calibrated state probe, its schema comparison and its
instruction-queue sequences."""
