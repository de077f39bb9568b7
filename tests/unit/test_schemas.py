"""The suite's status schemas agree with the official ACP schema (a new upstream release is a diff)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from conformance.core import revisions
from conformance.core.traceability import load_revision, revisions_dir
from conformance.core.validation import load
from tests.conftest import ROOT

OFFICIAL = ROOT.parent / "shared" / "spec" / "acp-sdk-2.4.0-schema"
EXTRACT = revisions_dir() / "sources" / "acp-sdk-2.4.0-session-status.json"
STATUS_DEFS = ["SessionStatusRequest", "SessionStatusResponse", "SessionStatus", "SessionStatusCapabilities"]


# SHA-256 of the mission's spec files, taken from them: a clone, which has no mission folder, still
# checks that each vendored copy is byte for byte the text the cases quote; where the folder is
# there, the mission's file must still be that text.
MISSION_DIGESTS = {
    "acp-rfd-session-status-2026-10-26.txt": "99a722caa8bcbf61cd299c13cba13382c643fc95faf6128c69438fa0cac48e4b",
    "mcp-session-heartbeat-2025-06-18.txt": "d0f4903f48d8fb155f6e1e63ef5037b34e1baa1edf0201a48e47c8493ac31f27",
    "agentscope-2.0.4-session-status.txt": "96133a378a2e1936fa1239d839191ad7652e4a393156ace546c9280c7f1be0d7",
}
MISSION = ROOT.parent / "shared" / "spec"


def assert_vendored_verbatim(vendored: str, mission_pattern: str) -> None:
    digest = MISSION_DIGESTS[vendored]
    data = (revisions_dir() / "sources" / vendored).read_bytes()
    assert hashlib.sha256(data).hexdigest() == digest, f"sources/{vendored} is not the mission's text"
    for path in MISSION.glob(mission_pattern):
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest, f"{path} changed: vendor it again"


def test_vendored_rfd_is_the_mission_text() -> None:
    assert_vendored_verbatim("acp-rfd-session-status-2026-10-26.txt", "000_*.txt")


def test_a_changed_vendored_copy_is_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = tmp_path / "sources"
    sources.mkdir()
    original = revisions_dir() / "sources" / "mcp-session-heartbeat-2025-06-18.txt"
    (sources / original.name).write_bytes(original.read_bytes().replace(b"blocked", b"stuck"))
    monkeypatch.setattr(f"{__name__}.revisions_dir", lambda: tmp_path)
    with pytest.raises(AssertionError, match="is not the mission's text"):
        assert_vendored_verbatim(original.name, "001_*.txt")


def extract() -> dict[str, Any]:
    return json.loads(EXTRACT.read_text(encoding="utf-8"))


def required(definition: dict[str, Any]) -> set[str]:
    return set(definition.get("required", []))


def properties(definition: dict[str, Any]) -> set[str]:
    return set(definition.get("properties", {}))


def known_values(definition: dict[str, Any]) -> set[str]:
    return {v["const"] for v in definition.get("anyOf", []) if "const" in v}


def open_to_other_strings(definition: dict[str, Any]) -> bool:
    return any(v.get("type") == "string" and "const" not in v for v in definition.get("anyOf", []))


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_vendored_extract_is_the_official_schema(version: str) -> None:
    path = OFFICIAL / version / "schema.unstable.json"
    if not path.is_file():
        pytest.skip(f"{path} is not on this machine; the vendored extract is checked where it is")
    official = json.loads(path.read_text(encoding="utf-8"))["$defs"]
    for name, definition in extract()[version].items():
        assert official[name] == definition, f"{version} {name} differs from the official schema"


@pytest.mark.parametrize("name", revisions.available("acp"))
def test_suite_schema_agrees_with_the_official_v1_definitions(name: str) -> None:
    revision = load_revision(name)
    ours = load(revision.schema)["$defs"]
    official = extract()["v1"]
    for definition in STATUS_DEFS:
        assert required(ours[definition]) == required(official[definition]), definition
        assert properties(ours[definition]) == properties(official[definition]), definition
    assert open_to_other_strings(ours["SessionStatus"]) and open_to_other_strings(official["SessionStatus"])
    # The RFD names the values differently, on purpose; each revision's vocabulary is its schema's.
    assert known_values(ours["SessionStatus"]) == set(revision.vocabulary.values())
    if name == "acp-unstable-2026-11":
        assert (
            known_values(ours["SessionStatus"])
            == known_values(official["SessionStatus"])
            == {"open", "saved"}
        )


def test_v2_adds_only_the_optional_state() -> None:
    v1, v2 = extract()["v1"], extract()["v2"]
    assert properties(v2["SessionStatusResponse"]) - properties(v1["SessionStatusResponse"]) == {"state"}
    assert required(v2["SessionStatusResponse"]) == required(v1["SessionStatusResponse"]) == {"status"}
    assert known_values(v2["SessionStatus"]) == known_values(v1["SessionStatus"])
    states = {v["properties"]["state"].get("const") for v in v2["StateUpdate"]["anyOf"]}
    assert {"running", "idle", "requires_action"} <= states


def test_a_changed_upstream_definition_is_caught(tmp_path: Path) -> None:
    changed = extract()["v1"]["SessionStatusResponse"] | {"required": ["status", "state"]}
    ours = load(load_revision("acp-unstable-2026-11").schema)["$defs"]["SessionStatusResponse"]
    assert required(ours) != required(changed)


def test_heartbeat_input_schema_is_the_spec_text_verbatim() -> None:
    text = (ROOT / "cases" / "revisions" / "sources" / "mcp-session-heartbeat-2025-06-18.txt").read_text()
    start = text.index("{")
    schema, _ = json.JSONDecoder().raw_decode(text[start:])
    ours = {k: v for k, v in load("mcp-session-heartbeat.input.json").items() if not k.startswith("$")}
    ours = {k: v for k, v in ours.items() if k not in ("title", "description")}
    assert ours == schema
    from conformance.reference.mcp.store import INPUT_SCHEMA

    assert schema == INPUT_SCHEMA, "the reference server publishes exactly the spec's schema"
    assert_vendored_verbatim("mcp-session-heartbeat-2025-06-18.txt", "001_*.txt")


def test_agentscope_schema_follows_the_spec_openapi() -> None:
    text = (ROOT / "cases" / "revisions" / "sources" / "agentscope-2.0.4-session-status.txt").read_text()
    ours = load("agentscope-session-status.json")["$defs"]
    for value in ours["SessionStatus"]["enum"]:
        assert f"- {value}" in text
    assert ours["SessionStatusResponse"]["required"] == ["session_id", "status"]
    assert "required: - session_id - status" in " ".join(text.split())
    assert ours["ValidationError"]["required"] == ["loc", "msg", "type"]
    assert "required: - loc - msg - type" in " ".join(text.split())
    assert_vendored_verbatim("agentscope-2.0.4-session-status.txt", "003_*.txt")
