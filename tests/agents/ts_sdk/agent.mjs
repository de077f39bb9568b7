// ACP v1 agent on @agentclientprotocol/sdk 2.4.0 (/unstable, for session/status).
// Speaks newline-delimited JSON-RPC on stdio; logs go to stderr only.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import {
  PROTOCOL_VERSION,
  RequestError,
  agent,
  methods,
  ndJsonStream,
} from "@agentclientprotocol/sdk/unstable";

const STORE_DIR = ".ts-sdk-sessions";

// Every session this process knows about (disk + new), keyed by id:
// { sessionId, cwd, title, updatedAt, history: [{ role, text }] }.
const known = new Map();
// Ids currently "in memory" (open). Kept separate from `known` so that
// session/status is a pure lookup in two maps and never touches the disk.
const open = new Set();

// Index sessions saved by earlier runs so they report `saved` after a restart.
function indexDisk(dir) {
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return; // no store yet
  }
  for (const name of names) {
    if (!name.endsWith(".json")) continue;
    try {
      const s = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
      if (typeof s.sessionId === "string" && typeof s.cwd === "string") {
        s.history = Array.isArray(s.history) ? s.history : [];
        known.set(s.sessionId, s);
      }
    } catch (err) {
      console.error(`ts-sdk agent: skipping unreadable ${name}: ${err.message}`);
    }
  }
}

// Best effort: an unwritable cwd should not break the live session, it only
// loses restart persistence.
function persist(s) {
  try {
    const dir = path.join(s.cwd, STORE_DIR);
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${s.sessionId}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(s, null, 2));
    fs.renameSync(`${file}.tmp`, file); // atomic, so a crash never leaves half a file
  } catch (err) {
    console.error(`ts-sdk agent: cannot persist ${s.sessionId}: ${err.message}`);
  }
}

function requireKnown(sessionId) {
  const s = known.get(sessionId);
  if (!s) throw RequestError.sessionNotFound(sessionId);
  return s;
}

function requireOpen(sessionId) {
  if (!open.has(sessionId)) throw RequestError.sessionNotFound(sessionId);
  return known.get(sessionId);
}

const textOf = (blocks) =>
  blocks
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");

const chunk = (sessionUpdate, text) => ({
  sessionUpdate,
  content: { type: "text", text },
});

indexDisk(path.join(process.cwd(), STORE_DIR));

// Handler params arrive already parsed by the SDK's zod schemas; a ZodError
// becomes -32602 before our code runs, so no manual validation is needed.
const app = agent({ name: "ts-sdk-status-agent" })
  .onRequest(methods.agent.initialize, () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentInfo: { name: "ts-sdk-status-agent", version: "0.1.0" },
    agentCapabilities: {
      loadSession: true,
      sessionCapabilities: { status: {}, close: {}, list: {}, resume: {} },
    },
    authMethods: [],
  }))
  .onRequest(methods.agent.session.new, ({ params }) => {
    const s = {
      sessionId: randomUUID(),
      cwd: params.cwd,
      title: null,
      updatedAt: new Date().toISOString(),
      history: [],
    };
    known.set(s.sessionId, s);
    open.add(s.sessionId);
    persist(s);
    return { sessionId: s.sessionId };
  })
  // Pure in-memory lookup: the spec forbids side effects on session/status.
  .onRequest(methods.agent.session.status, ({ params }) => {
    if (open.has(params.sessionId)) return { status: "open" };
    if (known.has(params.sessionId)) return { status: "saved" };
    throw RequestError.sessionNotFound(params.sessionId);
  })
  .onRequest(methods.agent.session.load, async ({ params, client }) => {
    const s = requireKnown(params.sessionId);
    // v1 load replays the conversation before answering.
    for (const h of s.history) {
      const kind = h.role === "user" ? "user_message_chunk" : "agent_message_chunk";
      await client.notify(methods.client.session.update, {
        sessionId: s.sessionId,
        update: chunk(kind, h.text),
      });
    }
    open.add(s.sessionId);
    return {};
  })
  .onRequest(methods.agent.session.resume, ({ params }) => {
    const s = requireKnown(params.sessionId);
    open.add(s.sessionId); // resume = load without replay
    return {};
  })
  .onRequest(methods.agent.session.close, ({ params }) => {
    requireOpen(params.sessionId);
    open.delete(params.sessionId); // file stays, so status becomes `saved`
    return {};
  })
  .onRequest(methods.agent.session.list, ({ params }) => {
    const sessions = [...known.values()]
      .filter((s) => !params.cwd || s.cwd === params.cwd)
      .sort((a, b) => (b.updatedAt ?? "").localeCompare(a.updatedAt ?? ""))
      .map(({ sessionId, cwd, title, updatedAt }) =>
        title ? { sessionId, cwd, title, updatedAt } : { sessionId, cwd, updatedAt },
      );
    return { sessions };
  })
  .onRequest(methods.agent.session.prompt, async ({ params, client }) => {
    const s = requireOpen(params.sessionId);
    const text = textOf(params.prompt);
    s.history.push({ role: "user", text }, { role: "agent", text: "ok" });
    s.title ??= text.slice(0, 60) || null;
    s.updatedAt = new Date().toISOString();
    persist(s);
    // Awaited so the update is written before the prompt response.
    await client.notify(methods.client.session.update, {
      sessionId: s.sessionId,
      update: chunk("agent_message_chunk", "ok"),
    });
    return { stopReason: "end_turn" };
  })
  .onNotification(methods.agent.session.cancel, () => {
    // Prompts finish synchronously, so there is never a turn to cancel.
  });

// No process.exit on close: stdin EOF ends the connection and Node then exits
// by itself, after any queued stdout writes have been flushed.
app.connect(ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
