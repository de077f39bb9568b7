"""ACP `session/status`: the target, its sequence model and driver, and its fuzzers."""
