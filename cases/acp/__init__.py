"""Spec-derived cases for the acp target, one module per spec area."""
