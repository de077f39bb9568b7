"""A hand-written MCP server loop on stdio (no SDK), for results the SDK would not let a server
build: each broken script gives `serve` its tools/list and tools/call answers."""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))

from conformance.reference.mcp.store import HeartbeatError, HeartbeatStore, spool_dir

store = HeartbeatStore(spool=spool_dir())


def heartbeat(arguments):
    """The reference rules' result, or the tool error they give."""
    try:
        return store.heartbeat("local", arguments or {}), None
    except HeartbeatError as exc:
        return None, {"content": [{"type": "text", "text": str(exc)}], "isError": True}


def tool_result(arguments):
    """The reference rules' answer to a heartbeat call as a tool result: the structured result
    and its text, or the tool error."""
    result, error = heartbeat(arguments)
    if error:
        return error
    return {"content": [{"type": "text", "text": json.dumps(result)}], "structuredContent": result}


def serve(
    name,
    tools,
    call,
    *,
    reply_id=None,
    answer_calls_without_id=False,
    answer_notifications=False,
    outbox=None,
):
    """``reply_id``: the id a reply goes under, given the request's (a variant's bug); with
    ``answer_calls_without_id``, a tools/call sent as a notification is answered too; with
    ``answer_notifications``, every other notification gets a -32601 error under id null;
    ``outbox`` (a callable taking a line) takes each reply line instead of a write to stdout."""
    send = outbox or _write
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message and answer_notifications and message.get("method") != "tools/call":
            error = {"code": -32601, "message": f"Method not found: {str(message.get('method'))[:100]}"}
            send(json.dumps({"jsonrpc": "2.0", "id": None, "error": error}) + "\n")
            continue
        if "id" not in message and not (answer_calls_without_id and message.get("method") == "tools/call"):
            continue
        method, params = message.get("method"), message.get("params") or {}
        if method == "initialize":
            result = {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": name, "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call":
            result = call(params.get("arguments"))
        else:
            result = None
        rid = message.get("id") if reply_id is None else reply_id(message.get("id"))
        if result is None:
            reply = {
                "jsonrpc": "2.0",
                "id": rid,
                "error": {"code": -32601, "message": "Method not found"},
            }
        else:
            reply = {"jsonrpc": "2.0", "id": rid, "result": result}
        send(json.dumps(reply) + "\n")


def _write(line):
    sys.stdout.write(line)
    sys.stdout.flush()


def bounded_outbox(size, *, drop):
    """A queue of ``size`` reply lines that a thread writes to stdout: a line that finds it full
    waits for room, or with ``drop`` is dropped (a line on stderr says so)."""
    import queue
    import threading

    lines = queue.Queue(maxsize=size)

    def writer():
        while True:
            _write(lines.get())

    threading.Thread(target=writer, daemon=True).start()

    def put(line):
        if not drop:
            lines.put(line)
            return
        try:
            lines.put_nowait(line)
        except queue.Full:
            sys.stderr.write("outbox full: reply dropped\n")

    return put
