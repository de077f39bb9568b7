"""`python -m conformance`: the same program as the `session-status-conformance` console script."""

from conformance.cli import run

run()
