"""The reference agent, after printing a banner on stdout (where only JSON-RPC may go)."""

import sys

import _ref

sys.stdout.write("\x1b[1;32mWelcome to BannerAgent\x1b[0m <script>alert(1)</script>\n")
sys.stdout.flush()

from conformance.reference.acp.agent import main

main()
