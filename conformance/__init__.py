"""Conformance suite and protocol fuzzer for session status methods of AI-agent protocols."""

__version__ = "0.1.0"
# The console script; `python -m conformance` and the repository's runner.py are the same program.
COMMAND = "session-status-conformance"
