"""junit.xml as CI systems read it: spec properties, the wire transcript, failure apart from error.

pytest's junitxml writes a call-phase exception as ``<failure>`` whatever it was, and puts
only captured output in ``system-out``. After it has written the file, this rewrites each
case's ``<testcase>``: properties (level, outcome, revision, the spec sentence and where it
is), the transcript in ``system-out``, ``<error>`` instead of ``<failure>`` when the
harness or the agent crashed (a spec failure stays ``<failure>``), and the failure's ``message``
attribute: the reason (the rule broken, expected vs seen), where pytest put only the header.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from conformance.core.transcript import reproduction_lines

__all__ = ["enrich_junit", "failure_message", "write_fatal_junit", "xml_safe"]

# Characters XML 1.0 cannot carry at all, even escaped; agents can send them.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
MAX_FRAMES = 400
MAX_FRAME_CHARS = 4000


def xml_safe(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def transcript_text(case: dict[str, Any]) -> str:
    frames = case.get("transcript") or []
    shown = frames[-MAX_FRAMES:]
    lines = [f"{case['id']} [{case['level']}] {case['outcome']}: {case.get('message', '')}"]
    if len(shown) < len(frames):
        lines.append(f"(last {len(shown)} of {len(frames)} frames; report.json has them all)")
    arrows = {"send": "-->", "recv": "<--", "note": " ! "}
    for f in shown:
        lines.append(f"{f['t']:9.4f} {arrows.get(f['dir'], '   ')} {f['frame'][:MAX_FRAME_CHARS]}")
    if case.get("stderr", "").strip():
        lines += ["", "agent stderr (tail):", case["stderr"].strip()[-4000:]]
    if case.get("reproduction") or case.get("reproduce"):
        shown = reproduction_lines(
            case.get("reproduction") or [], max_lines=50, command=case.get("reproduce")
        )
        lines += ["", "reproduce:", *shown]
    return xml_safe("\n".join(lines))


# CI test views show a failure's message attribute on one line: the reason, bounded; the body keeps the rest.
MAX_MESSAGE_CHARS = 1000
MAX_VALUE_CHARS = 200


def failure_message(case: dict[str, Any]) -> str:
    """A failing case's ``message`` attribute: its level and rule, what it found, and expected vs
    seen, on one line."""
    rule = f" {case['rule']}" if case.get("rule") else ""
    parts = [f"{case['id']} [{case['level']}]{rule}: {case.get('message', '') or case['outcome']}"]
    if case.get("expected") is not None or case.get("observed") is not None:
        parts.append(f"expected: {_value(case.get('expected'))}; seen: {_value(case.get('observed'))}")
    text = " | ".join(" ".join(p.split()) for p in parts)
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 1] + "…"
    return xml_safe(text)


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS] + "…"


def _properties(case: dict[str, Any], revision: str) -> list[tuple[str, str]]:
    spec = case["spec"]
    pairs = [
        ("case_id", case["id"]),
        ("level", case["level"]),
        ("outcome", case["outcome"]),
        ("revision", revision),
        ("spec", spec["sentence"]),
        ("spec_source", spec["source"]),
        ("spec_section", spec["section"]),
    ]
    if spec.get("url"):
        pairs.append(("spec_url", spec["url"]))
    if case.get("baseline"):
        pairs.append(("baseline", case["baseline"]))
    return [(k, xml_safe(str(v))) for k, v in pairs]


def enrich_junit(path: Path, report: dict[str, Any]) -> None:
    """Rewrite ``path`` in place; cases are matched by name (the case id)."""
    if not path.is_file():
        return
    tree = ET.parse(path)
    by_id = {c["id"]: c for c in report["cases"]}
    revision = report["spec"]["revision"]
    for suite in tree.iter("testsuite"):
        moved = 0
        for testcase in suite.iter("testcase"):
            case = by_id.get(testcase.get("name", ""))
            if case is None:
                continue
            for old in testcase.findall("properties") + testcase.findall("system-out"):
                testcase.remove(old)
            properties = ET.Element("properties")
            for name, value in _properties(case, revision):
                ET.SubElement(properties, "property", name=name, value=value)
            testcase.insert(0, properties)
            failure = testcase.find("failure")
            if failure is not None:
                failure.set("message", failure_message(case))
            if case["outcome"] == "error" and failure is not None:
                failure.tag = "error"
                moved += 1
            ET.SubElement(testcase, "system-out").text = transcript_text(case)
        if moved:
            suite.set("failures", str(int(suite.get("failures", "0")) - moved))
            suite.set("errors", str(int(suite.get("errors", "0")) + moved))
    tmp = path.with_suffix(".tmp")
    tree.write(tmp, encoding="utf-8", xml_declaration=True)
    os.replace(tmp, path)


def write_fatal_junit(path: Path, message: str) -> None:
    """No case could run (the agent did not start): one testcase that errored, saying why."""
    suites = ET.Element("testsuites", name="session-status-conformance")
    suite = ET.SubElement(
        suites, "testsuite", name="session-status-conformance", tests="1", errors="1", failures="0"
    )
    case = ET.SubElement(suite, "testcase", classname="conformance", name="preflight")
    ET.SubElement(case, "error", message=xml_safe(message)[:1000]).text = xml_safe(message)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
