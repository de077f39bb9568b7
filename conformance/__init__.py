"""Conformance suite and protocol fuzzer for session status methods of AI-agent protocols."""

__version__ = "0.1.0"
