"""Broken MCP server: stores instruction texts in a JSON column and reads each back "loosely"
(``json.loads``, the raw text when that fails), a pattern common where a column once held
structured payloads: prose comes back whole, but a text that is itself a JSON document is
delivered decoded: "42" as the number 42, "true" as true, "null" as null, '"stop"' as the string
stop (its quotes gone), "[1, 2]" as an array, '{"step": 3}' as an object.

Breaks "Pending human instructions are delivered automatically" (what the agent receives is not
the human's instruction, or not text at all). Modelled on blind round 10's
`mcp_json_text_decoded`, which the old suite (commit 95aca65) certified: no instruction text it
enqueued was a JSON document.

Caught by heartbeat.boundary.instruction-encodings (its JSON texts).
"""

import json
import math
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from _rewrite import serve


def _no_constants(name):
    raise ValueError(name)  # NaN and Infinity stay text: they would not serialise


def loose(text):
    """The column reader: JSON where the text parses, the raw text otherwise."""
    try:
        value = json.loads(text, parse_constant=_no_constants)
    except ValueError:
        return text
    return text if isinstance(value, float) and not math.isfinite(value) else value


if __name__ == "__main__":
    serve(text=loose)
