"""Spec-derived cases for the mcp target, one module per spec area."""
