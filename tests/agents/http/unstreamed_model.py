"""Conforming HTTP status service: it asks its model without streaming (one JSON answer per call).
Defeats the assumption that a run lasts as long as a streamed reply (http.state.running-during-run,
http.ownership.while-running): must pass.
"""

import json

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.http.service import ReferenceService, main
from conformance.reference.http.models import TOOLS, ModelError


class Service(ReferenceService):
    async def call_model(self, session):
        config = session.chat_model_config
        credential = self.credentials.get(config["credential_id"]) if config else None
        if config is None or credential is None:
            raise ModelError("no model")
        url = credential.data["base_url"].rstrip("/") + "/chat/completions"
        payload = {"model": config["model"], "messages": self.openai_messages(session), "tools": TOOLS}
        response = await self.client.post(url, json=payload)
        if response.status_code >= 400:
            raise ModelError(f"the model answered HTTP {response.status_code}")
        message = response.json()["choices"][0]["message"]
        calls = [
            {"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"]}
            for c in message.get("tool_calls") or []
        ]
        return (message.get("content") or "").strip(), calls


if __name__ == "__main__":
    main(Service)
