"""MCP's protocol eras, judged on data: how --mcp-protocol chooses (as the SDK's client does), the
envelope and the HTTP headers of each era, the words of a refusal, the comparison of the eras,
and the bounds on what a server says of itself."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types
import pytest
from mcp.shared import inbound
from mcp_types import version as sdk_versions

from conformance.core.outcomes import HarnessError, Unanswered
from conformance.reports.render import wire_text
from conformance.targets.mcp import differential, era
from conformance.targets.mcp.era_http import EraHeaders
from conformance.targets.mcp.target import ToolReply
from conformance.transport.peer import Reply

DISCOVERED = {
    "supportedVersions": ["2026-07-28"],
    "capabilities": {"tools": {}},
    "cacheScope": "private",
    "resultType": "complete",
    "_meta": {era.SERVER_INFO_KEY: {"name": "srv", "version": "1"}},
}
INITIALIZED = {
    "protocolVersion": "2025-06-18",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "srv", "version": "1"},
}


def test_the_wire_constants_are_the_sdks() -> None:
    assert era.HANDSHAKE_VERSIONS == sdk_versions.HANDSHAKE_PROTOCOL_VERSIONS
    assert era.MODERN_VERSIONS == sdk_versions.MODERN_PROTOCOL_VERSIONS
    assert era.PROTOCOL_VERSION_KEY == mcp_types.PROTOCOL_VERSION_META_KEY
    assert era.CLIENT_INFO_KEY == mcp_types.CLIENT_INFO_META_KEY
    assert era.CLIENT_CAPABILITIES_KEY == mcp_types.CLIENT_CAPABILITIES_META_KEY
    assert era.SERVER_INFO_KEY == mcp_types.SERVER_INFO_META_KEY
    assert era.UNSUPPORTED_PROTOCOL_VERSION == mcp_types.UNSUPPORTED_PROTOCOL_VERSION


class Server:
    """Answers by method from a table: a result, an error, or None (no answer: Unanswered)."""

    def __init__(self, **answers: Any) -> None:
        self.answers = {k.replace("_", "/"): v for k, v in answers.items()}
        self.sent: list[tuple[str, Any]] = []
        self.forgiven = 0

    async def send(self, method: str, params: Any) -> Reply:
        self.sent.append((method, params))
        answer = self.answers[method]
        if isinstance(answer, list):
            answer = answer.pop(0)
        if answer is None:
            raise Unanswered(method, len(self.sent), 10.0, params=params)
        if "code" in answer:
            return Reply(len(self.sent), method, error=answer)
        return Reply(len(self.sent), method, result=answer)

    async def notify(self, method: str) -> None:
        self.sent.append((method, None))

    def forgive(self, _: Unanswered) -> None:
        self.forgiven += 1

    def negotiate(self, preference: str = era.AUTO) -> era.Era:
        return anyio.run(lambda: era.negotiate(preference, self.send, self.notify, forgive=self.forgive))

    @property
    def methods(self) -> list[str]:
        return [m for m, _ in self.sent]


def refused(supported: list[str] | None, code: int = -32022) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": "Unsupported protocol version"}
    if supported is not None:
        error["data"] = {"supported": supported, "requested": "x"}
    return error


def test_auto_sends_discover_first_with_the_envelope_and_stays_stateless() -> None:
    server = Server(server_discover=DISCOVERED)
    chosen = server.negotiate()
    assert server.methods == ["server/discover"]  # no initialize, no notifications/initialized
    meta = server.sent[0][1]["_meta"]
    assert meta == era.envelope("2026-07-28")
    assert chosen.modern and chosen.version == "2026-07-28" and chosen.handshake == "server/discover"
    assert chosen.server_info == {"name": "srv", "version": "1"}
    assert chosen.chosen.startswith("auto: server/discover answered")


@pytest.mark.parametrize(
    ("discover", "why"),
    [
        ({"code": -32601, "message": "Method not found"}, "was refused"),
        ({"code": -32602, "message": "Invalid params"}, "was refused"),
        ({**DISCOVERED, "supportedVersions": ["2025-06-18"]}, "lists no stateless-era revision"),
        ({"whatever": 1}, "no DiscoverResult"),
        (refused(["2025-06-18", "2025-11-25"]), "was refused"),
        (refused(None), "was refused"),
    ],
)
def test_auto_falls_back_to_initialize_when_discover_is_no_modern_servers(discover: Any, why: str) -> None:
    server = Server(server_discover=discover, initialize=INITIALIZED)
    chosen = server.negotiate()
    assert server.methods == ["server/discover", "initialize", "notifications/initialized"]
    assert not chosen.modern and chosen.version == "2025-06-18" and why in chosen.chosen


def test_auto_falls_back_when_discover_goes_unanswered() -> None:
    server = Server(server_discover=None, initialize=INITIALIZED)
    chosen = server.negotiate()
    assert server.forgiven == 1 and server.methods[1] == "initialize"
    assert "got no answer" in chosen.chosen


def test_auto_probes_again_when_initialize_is_refused_naming_a_modern_revision() -> None:
    server = Server(
        server_discover=[{"code": -32603, "message": "busy"}, DISCOVERED], initialize=refused(["2026-07-28"])
    )
    chosen = server.negotiate()
    assert server.methods == ["server/discover", "initialize", "server/discover"]
    assert chosen.modern


def test_a_modern_only_server_of_other_revisions_is_refused_in_plain_words() -> None:
    server = Server(server_discover=refused(["2027-01-01"]))
    with pytest.raises(HarnessError) as raised:
        server.negotiate()
    assert "speaks 2027-01-01" in raised.value.message and "none of them is a revision the suite speaks" in (
        raised.value.message
    )


def test_initialize_refused_with_32022_says_which_eras_and_the_option() -> None:
    server = Server(initialize=refused(["2026-07-28"]))
    with pytest.raises(HarnessError) as raised:
        server.negotiate(era.SPEC_WIRE)
    message = raised.value.message
    assert server.methods == ["initialize"]  # the user chose the era: no fallback
    assert "does not speak MCP 2025-06-18" in message
    assert "speaks 2026-07-28, the stateless era (server/discover)" in message
    assert "pass --mcp-protocol 2026-07-28" in message


def test_discover_refused_when_the_stateless_era_is_chosen_names_the_other_option() -> None:
    server = Server(server_discover={"code": -32601, "message": "Method not found"})
    with pytest.raises(HarnessError) as raised:
        server.negotiate(era.MODERN)
    assert "pass --mcp-protocol 2025-06-18" in raised.value.message
    server = Server(server_discover=refused(["2025-06-18"]))
    with pytest.raises(HarnessError) as raised:
        server.negotiate(era.MODERN)
    assert "the handshake era (initialize)" in raised.value.message
    assert "pass --mcp-protocol 2025-06-18" in raised.value.message


def test_initialize_answering_an_unknown_revision_is_refused() -> None:
    server = Server(initialize={**INITIALIZED, "protocolVersion": "1999-01-01"})
    with pytest.raises(HarnessError, match="protocolVersion '1999-01-01'"):
        server.negotiate(era.SPEC_WIRE)


def test_what_a_server_says_of_itself_is_bounded() -> None:
    huge = {
        **DISCOVERED,
        "supportedVersions": ["2026-07-28", *(f"v{n}" * 50 for n in range(1000))],
        "capabilities": {"x": "y" * 100_000},
        "_meta": {era.SERVER_INFO_KEY: {"name": "n" * 10_000, "version": "1", "icons": ["z" * 100_000]}},
    }
    chosen = Server(server_discover=huge).negotiate()
    assert len(chosen.supported) == era.MAX_VERSIONS and all(len(v) <= 32 for v in chosen.supported)
    assert chosen.server_info == {"name": "n" * era.MAX_TEXT, "version": "1"}
    assert isinstance(chosen.capabilities, str) and "not shown" in chosen.capabilities
    assert len(json.dumps(chosen.to_json())) < 2000
    assert len(wire_text(chosen.to_json())) < 600


def test_stamp_merges_the_envelope_with_a_cases_own_meta() -> None:
    stamped = era.stamp(
        {"name": "t", "_meta": {"progressToken": 7, era.CLIENT_CAPABILITIES_KEY: {"x": {}}}}, "2026-07-28"
    )
    assert stamped["name"] == "t"
    assert stamped["_meta"]["progressToken"] == 7
    assert stamped["_meta"][era.PROTOCOL_VERSION_KEY] == "2026-07-28"
    assert stamped["_meta"][era.CLIENT_CAPABILITIES_KEY] == {"x": {}}  # the case's own wins
    assert era.stamp(None, "2026-07-28") == {"_meta": era.envelope("2026-07-28")}
    assert (
        era.is_enveloped(stamped) == "2026-07-28"
        and era.is_enveloped({"_meta": {"progressToken": 1}}) is None
    )


def frame(method: str, params: Any, rid: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def test_stateless_requests_carry_the_routing_headers_the_sdk_server_checks() -> None:
    headers = EraHeaders()
    schema = {"type": "object", "properties": {"sessionId": {"type": "string", "x-mcp-header": "Session"}}}
    headers.outgoing(frame("tools/list", era.stamp({}, "2026-07-28"), 1))
    headers.incoming(
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "hb", "inputSchema": schema}]}}
    )
    params = era.stamp({"name": "hb", "arguments": {"sessionId": "é s"}}, "2026-07-28")
    sent = headers.outgoing(frame("tools/call", params, 2))
    assert sent is not None
    assert sent["mcp-protocol-version"] == "2026-07-28" and sent["mcp-method"] == "tools/call"
    assert sent["mcp-name"] == "hb"
    assert inbound.decode_header_value(sent["Mcp-Param-Session"]) == "é s"
    folded = {k.lower(): v for k, v in sent.items()}
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
    assert isinstance(inbound.classify_inbound_request(body, headers=folded), inbound.InboundModernRoute)
    assert inbound.validate_mcp_param_headers(schema, params["arguments"], folded) is None
    discover = headers.outgoing(frame("server/discover", {"_meta": era.envelope("2026-07-28")}, 3))
    assert discover == {"mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"}


def test_handshake_requests_carry_the_negotiated_version_once_initialize_answers() -> None:
    headers = EraHeaders()
    assert headers.outgoing(frame("initialize", {"protocolVersion": "2025-06-18"}, 1)) is None
    headers.incoming({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}})
    assert headers.outgoing({"jsonrpc": "2.0", "method": "notifications/initialized"}) == {
        "mcp-protocol-version": "2025-11-25"
    }
    sent = headers.outgoing(frame("tools/call", {"name": "hb", "arguments": {}}, 2))
    assert sent == {"mcp-protocol-version": "2025-11-25"}  # no Mcp-Method: the 2025 wire has none
    headers.incoming({"jsonrpc": "2.0", "id": 9, "result": {"protocolVersion": "9999"}})  # not initialize's
    assert headers.negotiated == "2025-11-25"


def reply(data: Any, ok: bool = True) -> ToolReply:
    if not ok:
        return ToolReply(Reply(1, "tools/call", error={"code": -32602, "message": "bad"}))
    return ToolReply(Reply(1, "tools/call", result={"structuredContent": data, "content": []}))


def script_run(state_for: Any, accepted: Any = lambda n: True) -> list[differential.Observation]:
    return [
        differential.observe(reply(state_for(n, step), accepted(n)))
        for n, step in enumerate(differential.SCRIPT)
    ]


def echo(n: int, step: differential.Step, **extra: Any) -> dict[str, Any]:
    return {"sessionId": f"s{n}", **step.fields, **extra}


def test_eras_that_echo_alike_do_not_differ_whatever_else_the_results_carry() -> None:
    ours = script_run(lambda n, s: echo(n, s, heartbeatId=f"hb-{n}", wire="2026-07-28"))
    again = script_run(lambda n, s: echo(n, s, heartbeatId=f"hb-{n + 7}", wire="2026-07-28"))
    theirs = script_run(lambda n, s: echo(n, s, heartbeatId=f"x-{n}", wire="2025-06-18", extra=[1, 2]))
    unsteady = differential.noise(ours, again)
    assert unsteady == (set(), set())
    assert differential.differences(ours, theirs, unsteady, our_era="a", their_era="b") == []


def test_a_retry_answered_differently_in_one_era_is_found() -> None:
    first, second = differential.SCRIPT[0].fields, differential.SCRIPT[1].fields

    def current_view(n: int, s: differential.Step) -> dict[str, Any]:
        return dict(second) if n == 2 else echo(n, s)

    ours = script_run(lambda n, s: echo(n, s))
    theirs = script_run(current_view)
    found = differential.differences(ours, theirs, differential.noise(ours, ours), our_era="A", their_era="B")
    assert len(found) == 1 and found[0].startswith("step 3 (a retry of the first report")
    assert f'/status "{first["status"]}" / "{second["status"]}"' in found[0]


def test_acceptance_differences_are_found_and_unsteady_steps_are_not_judged() -> None:
    ours = script_run(lambda n, s: echo(n, s), accepted=lambda n: n != 4)
    theirs = script_run(lambda n, s: echo(n, s), accepted=lambda n: True)
    found = differential.differences(ours, theirs, (set(), set()), our_era="A", their_era="B")
    assert (
        len(found) == 1
        and found[0].startswith("step 5 (progressPercent 101")
        and "over B a result" in found[0]
    )
    flaky = script_run(lambda n, s: echo(n, s), accepted=lambda n: n != 4 and n != 1)
    steps, _ = differential.noise(ours, flaky)
    assert steps == {1}
    assert differential.differences(ours, theirs, (steps | {4}, set()), our_era="A", their_era="B") == []


def test_values_that_differ_between_two_runs_of_one_era_are_noise() -> None:
    ours = script_run(
        lambda n, s: echo(n, s, counter=10.25)
    )  # a counter that happens to equal a written value
    again = script_run(lambda n, s: echo(n, s, counter=3))
    theirs = script_run(lambda n, s: echo(n, s, counter=4))
    unsteady = differential.noise(ours, again)
    assert (0, "/counter") in unsteady[1]
    assert differential.differences(ours, theirs, unsteady, our_era="A", their_era="B") == []
