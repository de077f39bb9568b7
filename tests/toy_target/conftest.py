# The toy target is a distribution of its own, installed and run by tests/e2e/test_toy_target.py:
# its case modules import it, so the suite's own test run does not collect them.
collect_ignore = ["toy_target"]
