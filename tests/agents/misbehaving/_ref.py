"""Helpers: run the reference agent with one misbehaviour patched into its stdio."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
