"""Start a real AgentScope 2.0.x server on 127.0.0.1, configured as issue 8 asks: SQL storage
on SQLite (aiosqlite), the in-memory message bus, a local workspace; no Redis, no API key.

    python tests/servers/agentscope_server.py [--memory-db | --keep DIR] [--external-tool]

Prints `listening on http://127.0.0.1:PORT` once it accepts connections. The database is a SQLite
file in the workspace; --memory-db makes it `:memory:`, one connection shared by every request, on
which a read of the messages overlapping a resumed run's write loses that write (the reply stays
parked in storage; seen about 1 run in 2 with reads every 50 ms), and an interrupted request makes
SQLAlchemy drop the connection, after which the database is empty. --keep DIR keeps the database
and the workspace in DIR (relative to the working directory), so a restart finds the sessions
again; --external-tool adds AgentScope's
AskUser tool through create_app(extra_agent_tools=…), a server-side option, the only way to get
a tool dispatched to an external executor.
"""

import argparse
import asyncio
import os
import tempfile

from agentscope.app import create_app
from agentscope.app.message_bus import InMemoryMessageBus
from agentscope.app.storage import AsyncSQLAlchemyStorage
from agentscope.app.workspace_manager import LocalWorkspaceManager

from conformance.reference.acp.serving import serve_asgi


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memory-db", action="store_true")
    parser.add_argument("--keep", metavar="DIR")
    parser.add_argument("--external-tool", action="store_true")
    args = parser.parse_args()
    # In the working directory the suite gives it (a sandbox in the run's report folder), so the
    # workspace goes when the test's temporary folder does.
    if args.keep:
        workspace = os.path.abspath(args.keep)
        os.makedirs(workspace, exist_ok=True)
    else:
        workspace = tempfile.mkdtemp(prefix="agentscope-workspace-", dir=os.getcwd())
    database = ":memory:" if args.memory_db and not args.keep else f"{workspace}/agentscope.db"
    extra = {}
    if args.external_tool:
        from agentscope.tool import AskUser

        async def tools(user_id, agent_id, session_id):
            return [AskUser()]

        extra["extra_agent_tools"] = tools
    app = create_app(
        storage=AsyncSQLAlchemyStorage(f"sqlite+aiosqlite:///{database}"),
        message_bus=InMemoryMessageBus(),
        workspace_manager=LocalWorkspaceManager(workspace),
        enable_index_worker=False,
        enable_channel_worker=False,
        enable_scheduler=False,
        **extra,
    )
    asyncio.run(serve_asgi(app, "127.0.0.1", 0, lambda host, port: f"listening on http://{host}:{port}"))


if __name__ == "__main__":
    main()
