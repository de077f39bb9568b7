"""Spec-derived cases for the http target, one module per spec area."""
