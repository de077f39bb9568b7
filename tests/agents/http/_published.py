"""For the conforming variants that validate their ids and publish it, as FastAPI's `pattern=` or
a UUID type would: the reference's OpenAPI document declares the ids' narrower schema."""

import pathlib
import sys
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

import conformance.reference.http.service as reference

__all__ = ["declare_ids"]

STATUS = "/sessions/{session_id}/status"


def declare_ids(narrower: dict[str, Any], *, every_route: bool) -> None:
    """From now on, the reference's app publishes ``narrower`` in the schema of session_id and
    agent_id: on the status route, or on every route."""
    build = reference.create_app

    def create_app(service=None):
        app = build(service)
        publish = app.openapi

        def openapi() -> dict[str, Any]:
            if app.openapi_schema is None:
                document = publish()  # FastAPI keeps it in app.openapi_schema
                routes = document["paths"].values() if every_route else [document["paths"][STATUS]]
                for item in routes:
                    for operation in item.values():
                        for parameter in operation.get("parameters", []):
                            if parameter["name"] in ("session_id", "agent_id"):
                                parameter["schema"].update(narrower)
                return document
            return app.openapi_schema

        app.openapi = openapi
        return app

    reference.create_app = create_app
