// node-kit: turn a Node agent loop into a conform kernel. Standard library
// only (Node 20 or newer), ESM. It speaks conform.wire/v1 (spec/PROTOCOL.md):
// JSON-RPC 2.0, one object per line, on stdin and stdout.
//
// You write a Kernel: info() says who you are, run(host, params) runs one
// session and resolves with its RunSessionResult. Optional methods: cancel,
// continueSession, spawn, decide, writeMemory; without them the kit answers
// as PROTOCOL.md says a kernel without that part answers. main(kernel)
// serves it on stdio, which is what `conform run --kernel "node my.mjs"`
// starts. run gets a Host: one method per kernel → harness request
// (assemble, hook, stream, invoke, preview, permission, interactive,
// confirm) and per notification (span, cost, meta, event), and host.signal,
// an AbortSignal that fires when the session is cancelled (hand it to the
// framework's own run). Several sessions run at once; once a session is
// cancelled its calls in flight get $/cancelRequest and reject with
// Cancelled. Helpers for the duties every kernel has are in session.mjs.
// Log to stderr: stdout carries protocol messages only.
import {
  Conn, Scope, RPCError, ConnectionClosed, ProtocolViolation, log, PRODUCER,
  INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR, UNKNOWN_SESSION, VERSION_MISMATCH,
} from "./conn.mjs";

export * from "./conn.mjs";
export * from "./helpers.mjs";
export { Session, Turn } from "./session.mjs";

export const PROTOCOL_VERSION = "conform.wire/v1";

/**
 * @typedef {import("./wire.js").RunParams} RunParams
 * @typedef {import("./wire.js").RunSessionResult} RunSessionResult
 * @typedef {{name: string, version: string, capabilities?: string[], readings?: import("./wire.js").Readings, glue?: import("./wire.js").GlueNote[]}} Info
 * @typedef {{
 *   info(): Info,
 *   run(host: Host, params: RunParams): Promise<RunSessionResult>,
 *   cancel?(sessionId: string): void,
 *   continueSession?(sessionId: string, message: string): void,
 *   spawn?(host: Host, params: import("./wire.js").SpawnParams): Promise<RunSessionResult>,
 *   decide?(host: Host, params: import("./wire.js").DecideParams): Promise<import("./wire.js").DecideResult>,
 *   writeMemory?(params: import("./wire.js").MemoryWriteParams): void,
 * }} Kernel
 */

/** The harness as one session sees it (PROTOCOL.md §7 and §8). Requests
 * resolve with the result and reject with RPCError (an error answer),
 * Cancelled, CallTimeout, ConnectionClosed or ProtocolViolation. */
export class Host {
  /** @param {Conn} conn @param {Scope} [scope] */
  constructor(conn, scope) { this.conn = conn; this.scope = scope || new Scope(); }
  /** Aborts when the session is cancelled. */
  get signal() { return this.scope.signal; }
  /** A Host on the same connection that the session's cancellation does
   * not reach: for the session-end hooks of a cancelled session. */
  detached() { return new Host(this.conn); }
  /** @param {string} method @param {any} params @param {number} [timeoutMs] @param {AbortSignal} [signal] */
  async call(method, params, timeoutMs, signal) {
    const res = await this.conn.call(method, params, this.scope, timeoutMs, signal);
    if (!res || typeof res !== "object" || Array.isArray(res)) {
      throw new ProtocolViolation(`${method} answered with ${JSON.stringify(res)}, not an object`);
    }
    return res;
  }
  /** @param {import("./wire.js").AssembleParams} p @param {AbortSignal} [signal] @returns {Promise<import("./wire.js").AssembleResult>} */
  assemble(p, signal) { return this.call("context/assemble", p, undefined, signal); }
  /** @param {import("./wire.js").HookParams} p @param {number} [timeoutMs] @param {AbortSignal} [signal] @returns {Promise<import("./wire.js").HookResult>} */
  hook(p, timeoutMs, signal) { return this.call("hook/dispatch", p, timeoutMs, signal); }
  /** @param {import("./wire.js").StreamParams} p @param {AbortSignal} [signal] @returns {Promise<import("./wire.js").StreamResult>} */
  stream(p, signal) { return this.call("model/stream", p, undefined, signal); }
  /** @param {import("./wire.js").InvokeParams} p @param {AbortSignal} [signal] @returns {Promise<import("./wire.js").InvokeResult>} */
  invoke(p, signal) { return this.call("tool/invoke", p, undefined, signal); }
  /** @param {import("./wire.js").PreviewParams} p @param {AbortSignal} [signal] @returns {Promise<import("./wire.js").PreviewResult>} */
  preview(p, signal) { return this.call("tool/preview", p, undefined, signal); }
  /** @param {import("./wire.js").PermissionParams} p @param {AbortSignal} [signal] @returns {Promise<import("./wire.js").PermissionResult>} */
  permission(p, signal) { return this.call("frontend/permission", p, undefined, signal); }
  /** @param {import("./wire.js").InteractiveParams} p @param {AbortSignal} [signal] @returns {Promise<import("./wire.js").InteractiveResult>} */
  interactive(p, signal) { return this.call("frontend/interactive", p, undefined, signal); }
  /** @param {import("./wire.js").ConfirmParams} p @param {AbortSignal} [signal] @returns {Promise<import("./wire.js").ConfirmResult>} */
  confirm(p, signal) { return this.call("frontend/confirm", p, undefined, signal); }
  /** @param {import("./wire.js").Span} p */
  span(p) { this.conn.notify("trace/span", p); }
  /** @param {import("./wire.js").CostUsage} p */
  cost(p) { this.conn.notify("cost/usage", p); }
  /** @param {import("./wire.js").MetaRow} p */
  meta(p) { this.conn.notify("session/meta", p); }
  /** @param {import("./wire.js").Event} p */
  event(p) { this.conn.notify("event", p); }
}

/** frontend/decide as a kernel with nothing pending answers it (§6.7):
 * every decision and interactive response rejected with
 * INVALID_CLIENT_EVENT, each with its frontend_error event.
 * @param {Host} host @param {import("./wire.js").DecideParams} params
 * @returns {import("./wire.js").DecideResult} */
export function nothingPending(host, params) {
  const sid = params.session_id, connection = params.connection;
  const reject = (/** @type {string} */ key, /** @type {string} */ ident) => {
    const message = `${key} ${ident} is not pending in session ${sid}`;
    host.event({ session_id: sid, kind: "frontend_error", producer: PRODUCER,
      payload: { connection, [key]: ident, category: "INVALID_CLIENT_EVENT", message } });
    return { [key]: ident, accepted: false, category: "INVALID_CLIENT_EVENT", message };
  };
  /** @type {any} */
  const out = { results: (params.decisions || []).map((d) => reject("plan_item_id", d.plan_item_id)) };
  const responses = params.interactive_responses || [];
  if (responses.length) out.interactive_results = responses.map((r) => reject("call_id", r.call_id));
  return out;
}

const served = new Set(["session/run", "session/cancel", "session/continue", "session/spawn", "frontend/decide", "memory/write"]);

class Server {
  /** @param {Kernel} kernel @param {Conn} conn */
  constructor(kernel, conn) {
    this.kernel = kernel;
    this.conn = conn;
    this.ready = false;
    this.stopping = false;
    /** @type {Map<string, {scope: Scope, done: Promise<void>}>} */
    this.runs = new Map();
    /** @type {Set<string>} */
    this.ended = new Set();
    /** @type {() => void} */
    this.stop = () => {};
    this.stopped = new Promise((resolve) => { this.stop = () => resolve(undefined); });
  }

  /** @param {any} msg */
  handle(msg) {
    if (!("id" in msg)) return; // $/cancelRequest and other notifications: nothing the kit holds runs for the harness
    const { id, method } = msg;
    let params = method === "shutdown" ? {} : msg.params;
    if (!params || typeof params !== "object" || Array.isArray(params)) {
      this.conn.replyError(id, INVALID_PARAMS, "params must be an object");
      return;
    }
    this.conn.answering.set(JSON.stringify(id), String(method));
    if (method === "initialize") this.answer(id, async () => this.initialize(params));
    else if (method === "shutdown") this.shutdown(id);
    else if (!served.has(method)) this.conn.replyError(id, METHOD_NOT_FOUND, `unknown method ${method}`);
    else if (!this.ready) this.conn.replyError(id, INVALID_REQUEST, "initialize first");
    else if (method === "session/run") this.run(id, params);
    else if (method === "session/spawn") this.answer(id, () => this.spawn(params));
    else if (method === "session/cancel") this.answer(id, async () => this.cancel(params));
    else if (method === "session/continue") this.answer(id, async () => this.continueSession(params));
    else if (method === "frontend/decide") this.answer(id, () => this.decide(params));
    else this.answer(id, async () => this.memory(params));
  }

  /** @param {any} id @param {() => Promise<any>} produce */
  async answer(id, produce) {
    try {
      this.conn.reply(id, await produce());
    } catch (err) {
      if (err instanceof RPCError) this.conn.replyError(id, err.code, err.rpcMessage);
      else if (err instanceof ConnectionClosed) return;
      else {
        log("kernel error:", err);
        this.conn.replyError(id, INTERNAL_ERROR, `kernel error: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  /** @param {any} params */
  initialize(params) {
    if (this.ready) throw new RPCError(INVALID_REQUEST, "initialize was already answered on this connection");
    if (!(params.protocol_versions || []).includes(PROTOCOL_VERSION)) {
      throw new RPCError(VERSION_MISMATCH, `this kernel speaks only ${PROTOCOL_VERSION}`);
    }
    this.ready = true;
    const info = this.kernel.info();
    /** @type {import("./wire.js").InitializeResult} */
    const res = { protocol_version: PROTOCOL_VERSION, kernel: { name: info.name, version: info.version }, capabilities: [...(info.capabilities || [])] };
    if (info.readings && Object.keys(info.readings).length) res.readings = { ...info.readings };
    if (info.glue?.length) res.glue = info.glue.map((g) => ({ requirement: g.requirement, reason: g.reason })); // PROTOCOL.md §15: what the adapter, not the framework, decides
    return res;
  }

  /** @param {any} id @param {any} params */
  run(id, params) {
    const sid = String(params.session_id || "");
    if (this.stopping) return this.conn.replyError(id, INVALID_REQUEST, "the kernel is shutting down");
    if (this.runs.has(sid)) return this.conn.replyError(id, INVALID_REQUEST, `a session with this id is running: ${sid}`);
    const scope = new Scope();
    const done = this.answer(id, () => this.kernel.run(new Host(this.conn, scope), params))
      .finally(() => { this.runs.delete(sid); this.ended.add(sid); });
    this.runs.set(sid, { scope, done });
  }

  /** @param {any} params */
  cancel(params) {
    const sid = String(params.session_id);
    if (this.kernel.cancel) { this.kernel.cancel(sid); return {}; }
    const run = this.runs.get(sid);
    if (run) this.conn.cancel(run.scope);
    else if (!this.ended.has(sid)) throw new RPCError(UNKNOWN_SESSION, `unknown session ${sid}`);
    return {};
  }

  /** @param {any} params */
  continueSession(params) {
    const sid = String(params.session_id);
    if (this.kernel.continueSession) { this.kernel.continueSession(sid, String(params.message ?? "")); return {}; }
    if (this.runs.has(sid)) throw new RPCError(INVALID_PARAMS, `session ${sid} is not paused: this kernel has no soft limits`);
    throw new RPCError(UNKNOWN_SESSION, `no running session ${sid}`);
  }

  /** @param {any} params */
  async spawn(params) {
    if (!this.kernel.spawn) throw new RPCError(METHOD_NOT_FOUND, "this kernel runs no sub-agents (session/spawn)");
    const parent = this.runs.get(String(params.parent_session_id));
    const res = await this.kernel.spawn(new Host(this.conn, parent ? parent.scope : new Scope()), params);
    this.ended.add(String(res.session_id)); // a later session/cancel of the child is answered {} (§6.3)
    return res;
  }

  /** @param {any} params */
  async decide(params) {
    const sid = String(params.session_id);
    if (this.kernel.decide) return this.kernel.decide(new Host(this.conn), params);
    if (!this.runs.has(sid)) throw new RPCError(UNKNOWN_SESSION, `no running session ${sid}`);
    return nothingPending(new Host(this.conn), params);
  }

  /** @param {any} params */
  memory(params) {
    const sid = String(params.session_id);
    if (this.kernel.writeMemory) { this.kernel.writeMemory(params); return {}; }
    // Running or ended, a session of the agent-loop profile is not a deterministic-first one (PROTOCOL.md §17.5).
    if (this.runs.has(sid) || this.ended.has(sid)) throw new RPCError(INVALID_PARAMS, `session ${sid} does not run the deterministic-first profile`);
    throw new RPCError(UNKNOWN_SESSION, `unknown session ${sid}`);
  }

  /** Cancels every running session, waits until each is answered, then
   * answers shutdown and ends serve. @param {any} id */
  async shutdown(id) {
    this.stopping = true;
    const runs = [...this.runs.values()];
    for (const r of runs) this.conn.cancel(r.scope);
    await Promise.all(runs.map((r) => r.done));
    this.conn.reply(id, {});
    this.stop();
  }
}

/** Serves kernel until the end of the input or until shutdown has been
 * answered. transcript defaults to $CONFORM_KIT_TRANSCRIPT.
 * @param {Kernel} kernel
 * @param {{input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream, transcript?: string}} [io]
 * @returns {Promise<void>} */
export async function serve(kernel, io = {}) {
  const conn = new Conn(io.input || process.stdin, io.output || process.stdout,
    io.transcript !== undefined ? io.transcript : process.env.CONFORM_KIT_TRANSCRIPT);
  const server = new Server(kernel, conn);
  await Promise.race([conn.read((msg) => server.handle(msg)), server.stopped]);
}

/** Serves kernel on stdin and stdout, then exits with status 0 once stdout
 * is flushed (sessions still waiting on a gone harness are not waited for).
 * @param {Kernel} kernel */
export async function main(kernel) {
  await serve(kernel);
  process.stdout.write("", () => process.exit(0));
}
