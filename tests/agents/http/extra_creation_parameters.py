"""Conforming HTTP status service: ``POST /sessions/`` documents more optional parameters than
AgentScope's (a priority enum, a mode, a boolean, a bounded integer, a free-form label, a string
with a pattern), each with a default, and ignores them. Defeats the assumptions that a session is
created with the documented parameters at their defaults only, and that every documented
parameter changes what the session's status reads: must pass.
"""

from _routes import run

EXTRA = {
    "priority": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal"},
    "mode": {"anyOf": [{"$ref": "#/components/schemas/SessionMode"}, {"type": "null"}], "default": None},
    "archived": {"type": "boolean", "default": False},
    "max_turns": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    "label": {"anyOf": [{"type": "string", "maxLength": 64}, {"type": "null"}], "default": None},
    "region": {"type": "string", "pattern": "^[a-z]{2}-[a-z]+-[0-9]$", "default": "eu-west-1"},
}


def extend(app, service):
    document = app.openapi()  # cached by FastAPI: what /openapi.json serves
    schemas = document["components"]["schemas"]
    schemas["SessionMode"] = {"type": "string", "enum": ["chat", "plan", "act"], "title": "SessionMode"}
    schemas["CreateSessionRequest"]["properties"].update(EXTRA)


if __name__ == "__main__":
    run(extend)
