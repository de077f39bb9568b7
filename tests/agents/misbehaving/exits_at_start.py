"""Exits at once with an explanation on stderr."""

import sys

sys.stderr.write("fatal: OPENAI_API_KEY is not set\n")
sys.exit(12)
