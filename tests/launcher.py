"""A fork server for the tests' agents: starting one costs a second of imports (the ACP and MCP
SDKs build hundreds of pydantic models; FastAPI and uvicorn add more), and the variant tests start
a few hundred; the suite's own command line, run by the tests as a subprocess, costs another
second of pytest and Hypothesis. The server imports those once; each start forks it.

    python tests/launcher.py serve SOCKET       # the server (tests/conftest.py starts one per worker)
    python -I -S tests/launcher.py SOCKET ARGV  # what the harness runs as the agent's command

The client passes its stdin, stdout and stderr to the server, which forks a child that runs ARGV
(`script.py args` or `-m module args`) on them, as `python ARGV` would. The client stays the
process the harness started and watches: it forwards signals to the child and exits with the
child's status; if the client is killed, the child kills itself. So the harness sees one agent
process with the same frames, exit codes and signals; only the interpreter's start is shared.

Tests of the harness's process handling (process groups, orphans, start-up failures) use real
commands, not this launcher: a forked child leaves the client's process group.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import select
import signal
import socket
import struct
import sys

PRELOAD = (
    "acp",
    "mcp",
    "mcp.server.fastmcp",
    "fastapi",
    "uvicorn",
    "websockets",
    "conformance.reference.acp.agent",
    "conformance.reference.acp.agent_v2",
    "conformance.reference.mcp.server",
    "conformance.reference.http.service",
    # What the agents and servers import only once they start or serve, each child again: anyio's
    # event loop backend, uvicorn's protocols and lifespan, the WebSocket and ACP HTTP servers, the
    # HTTP client of the reference service's model calls (httpcore, h2), pydantic.v1 (FastAPI's
    # app as the reference service builds it).
    "anyio._backends._asyncio",
    "anyio.streams.stapled",
    "anyio.streams.tls",
    "h11",
    "uvicorn.lifespan.on",
    "uvicorn.protocols.http.auto",
    "uvicorn.protocols.http.h11_impl",
    "uvicorn.protocols.websockets.auto",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
    "websockets.server",
    "websockets.asyncio.server",
    "acp.http.server",
    "acp.http.asgi",
    "httpcore",
    "h2.connection",
    "certifi",
    "pydantic.v1",
    "fastapi.telemetry._runtime",
    "pkgutil",
    # The suite's own command line, for the tests that run it as a subprocess (`suite`): pytest,
    # Hypothesis, jsonschema and the harness are most of its start. The command line already
    # imports the harness before pytest starts, so nothing is imported earlier than it would be.
    "pytest",
    "xdist.plugin",
    "hypothesis",
    "jsonschema",
    "conformance.cli",
    "conformance.pytest.plugin",
)


def _send(conn: socket.socket, data: bytes) -> None:
    conn.sendall(struct.pack("!I", len(data)) + data)


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


# -- the server ---------------------------------------------------------------------------------


def serve(path: str) -> None:
    import importlib

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, root)
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    # What the imports built lives as long as every child: out of the collector's sight, a child's
    # full collections walk only its own objects, not the SDKs' (nor copy their pages to mark them).
    gc.collect()
    gc.freeze()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    os.rename(path + ".tmp", path)  # clients connect only once it listens
    listener.listen(128)
    parent = os.getppid()
    children: dict[int, socket.socket] = {}
    # A child's exit wakes the loop at once (SIGCHLD through a pipe); otherwise it sleeps.
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    while os.getppid() == parent:
        ready, _, _ = select.select([listener, wake_read], [], [], 0.5)
        if wake_read in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_read, 512)
        if listener in ready:
            conn, _ = listener.accept()
            try:
                pid = _fork_child(conn, listener, children)
            except Exception as exc:  # a bad request must not end the server
                with contextlib.suppress(Exception):
                    _send(conn, json.dumps({"error": repr(exc)}).encode())
                conn.close()
                continue
            children[pid] = conn
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is not None:
                code = os.waitstatus_to_exitcode(status)
                with contextlib.suppress(Exception):
                    _send(conn, json.dumps({"exit": code}).encode())
                conn.close()
    for pid in children:
        with contextlib.suppress(Exception):
            os.kill(pid, signal.SIGKILL)


def _fork_child(conn: socket.socket, listener: socket.socket, children: dict[int, socket.socket]) -> int:
    size = struct.unpack("!I", _recv_exact(conn, 4))[0]
    message, fds, _, _ = socket.recv_fds(conn, size, 3)
    while len(message) < size:
        message += _recv_exact(conn, size - len(message))
    request = json.loads(message)
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        _send(conn, json.dumps({"pid": pid}).encode())
        return pid
    try:
        signal.set_wakeup_fd(-1)
        listener.close()
        for other in children.values():
            other.close()
        _run_child(conn, fds, request)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
        _flush()
        os._exit(code)
    except BaseException:
        import traceback

        traceback.print_exc()
        _flush()
        os._exit(1)
    _flush()
    os._exit(0)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _run_child(conn: socket.socket, fds: list[int], request: dict) -> None:
    import runpy
    import threading

    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    # As `python ARGV` starts: SIGPIPE stays ignored (a closed socket is an exception), the rest default.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stdout = sys.__stdout__ = open(  # noqa: SIM115
        1, "w", encoding="utf-8", closefd=False, buffering=1 if unbuffered else -1
    )
    sys.stderr = sys.__stderr__ = open(  # noqa: SIM115
        2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1
    )

    def watch_client() -> None:  # the client died (even by SIGKILL): so does its agent
        with contextlib.suppress(Exception):
            conn.recv(1)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch_client, daemon=True).start()
    argv = request["argv"]
    if argv[0] == "-m":
        module = argv[1]
        sys.argv = [module, *argv[2:]]
        sys.path.insert(0, request["cwd"])
        sys.modules.pop(module, None)  # `python -m` runs a fresh copy as __main__
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    else:
        script = os.path.abspath(argv[0])
        sys.argv = [script, *argv[1:]]
        sys.path.insert(0, os.path.dirname(script))
        runpy.run_path(script, run_name="__main__")


# -- the client ---------------------------------------------------------------------------------


def client(path: str, argv: list[str]) -> int:
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    import time

    deadline = time.monotonic() + 60  # the server may still be importing
    while True:
        try:
            conn.connect(path)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                print(f"launcher: no fork server at {path}", file=sys.stderr)
                return 2
            time.sleep(0.02)
    request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    conn.sendall(struct.pack("!I", len(request)))
    socket.send_fds(conn, [request], [0, 1, 2])
    for fd in (0, 1):  # the child holds them: EOF and broken pipes are between it and the harness
        os.close(fd)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    reply = _reply(conn)
    if "error" in reply:
        print(f"launcher: {reply['error']}", file=sys.stderr)
        return 2
    child = reply["pid"]

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(Exception):
            os.kill(child, signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(sig, forward)
    try:
        code = _reply(conn)["exit"]
    except EOFError:
        return 1
    if code < 0:  # died of a signal: so does the client, as the harness expects
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


def _reply(conn: socket.socket) -> dict:
    size = struct.unpack("!I", _recv_exact(conn, 4))[0]
    return json.loads(_recv_exact(conn, size))


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    else:
        sys.exit(client(sys.argv[1], sys.argv[2:]))
