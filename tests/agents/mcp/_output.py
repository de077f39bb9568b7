"""An outputSchema for the reference's heartbeat result (the variants that publish one)."""

NULLABLE = {
    "status": "string",
    "progressPercent": "number",
    "currentStep": "string",
    "stepIndex": "integer",
    "stepCount": "integer",
}


def output_schema(text=None, **limits):
    """The result's schema; ``limits``: more keywords for a state field's schema (maxLength=...),
    ``text``: for an instruction's text."""
    properties = {name: {"type": [kind, "null"]} for name, kind in NULLABLE.items()}
    for name, extra in limits.items():
        properties[name] = {**properties[name], **extra}
    return {
        "type": "object",
        "properties": {
            "sessionId": {"type": "string"},
            "heartbeatId": {"type": "string"},
            **properties,
            "instructions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "text": {"type": "string", **(text or {})}},
                    "required": ["id", "text"],
                },
            },
            "nextCursor": {"type": ["string", "null"]},
        },
        "required": ["sessionId", "heartbeatId", "instructions"],
    }
