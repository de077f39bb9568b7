"""Broken MCP server: stores instruction texts HTML-escaped on the way in (the operator side shares
the web console's sanitiser): `don't merge <main> & deploy` is delivered as
`don&#x27;t merge &lt;main&gt; &amp; deploy`. Texts without `& < > " '` come back whole.

Modelled on blind round 8's `mcp_html_escaped`, which the old suite (commit 95aca65) certified: no
instruction text it enqueued held a character HTML escapes.

Caught by heartbeat.boundary.instruction-encodings (its markup text).
"""

import html
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve

if __name__ == "__main__":
    serve(text=html.escape)
