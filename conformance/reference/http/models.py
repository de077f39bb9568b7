"""Shapes and in-memory state of the HTTP reference service (:mod:`conformance.reference.http.service`).

The tools the model is offered, small helpers, the API's pydantic request/response models and the
dataclasses the service keeps in memory.
"""

from __future__ import annotations

import enum
import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

PERMISSION_TOOL = "Write"
EXTERNAL_TOOL = "AskUser"
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": PERMISSION_TOOL,
            "description": "Write a file. Asks the user for permission first.",
            "parameters": {
                "type": "object",
                "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["file_path", "content"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": EXTERNAL_TOOL,
            "description": "Ask the user questions; answered by an external executor.",
            "parameters": {
                "type": "object",
                "properties": {
                    "questions": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "question": {"type": "string"},
                                "header": {"type": "string"},
                                "options": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "label": {"type": "string"},
                                            "description": {"type": "string"},
                                        },
                                    },
                                },
                            },
                        },
                    },
                },
                "required": ["questions"],
            },
        },
    },
]
USER_HEADER = "Caller's user ID. Temporary header-based identity; will be replaced by JWT auth."


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def new_id() -> str:
    return uuid.uuid4().hex


def _loads(raw: Any) -> dict[str, Any]:
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


# -- the API's shapes ------------------------------------------------------------------------------


class SessionStatus(enum.StrEnum):
    RUNNING = "running"
    IDLE = "idle"
    AWAITING_PERMISSION = "awaiting_permission"
    AWAITING_EXTERNAL_RESULT = "awaiting_external_result"


class SessionStatusResponse(BaseModel):
    """Response body for probing a session's high-level status."""

    session_id: str = Field(description="The session that was probed.")
    status: SessionStatus = Field(description="The session's unified status.")


class CreateCredentialRequest(BaseModel):
    data: dict[str, Any]


class CreateAgentRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    system_prompt: str = "You are a helpful assistant."


class ChatModelConfig(BaseModel):
    model_config = ConfigDict(extra="allow", protected_namespaces=())
    type: str
    credential_id: str
    model: str
    model_class: str = "openai_chat"
    parameters: dict[str, Any] = Field(default_factory=dict)


class CreateSessionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")
    agent_id: str
    workspace_id: str | None = None
    name: str | None = None
    chat_model_config: ChatModelConfig | None = None


class ChatRequest(BaseModel):
    agent_id: str
    session_id: str
    input: Any = None


# -- state ----------------------------------------------------------------------------------------


@dataclass
class Credential:
    id: str
    user_id: str
    data: dict[str, Any]


@dataclass
class Agent:
    id: str
    user_id: str
    name: str
    system_prompt: str


@dataclass
class Session:
    id: str
    user_id: str
    agent_id: str
    name: str
    workspace_id: str
    chat_model_config: dict[str, Any] | None
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)
    messages: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Lease:
    token: str
    expires_at: float  # time.monotonic()


class ModelError(Exception):
    pass


class BadInput(Exception):
    pass
