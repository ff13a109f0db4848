// One JSON-RPC 2.0 conversation over line-delimited JSON (spec/PROTOCOL.md
// §2): a line reader with the 8 MiB cap, a table of the kit's own pending
// requests, cancellation scopes, and the optional transcript of every
// message sent (CONFORM_KIT_TRANSCRIPT) that nodekit_test.go validates.
import { appendFileSync } from "node:fs";

export const PRODUCER = "kernel"; // producer of the events a kernel reports itself
export const MAX_LINE = 8 << 20; // bytes; a longer line is a protocol violation

// JSON-RPC error codes of the protocol (PROTOCOL.md §10).
export const INVALID_REQUEST = -32600, METHOD_NOT_FOUND = -32601, INVALID_PARAMS = -32602, INTERNAL_ERROR = -32603;
export const CONFIG_REJECTED = -32001, HOOK_FAILED = -32002, PROCESS_CRASHED = -32003, CANCELLED = -32004;
export const UNKNOWN_SESSION = -32005, VERSION_MISMATCH = -32006;

/** A JSON-RPC error: received from the harness (code says which, e.g.
 * PROCESS_CRASHED for a crashed tool), or thrown by a kernel method to
 * answer with that code. */
export class RPCError extends Error {
  /** @param {number} code @param {string} message */
  constructor(code, message) { super(`${code}: ${message}`); this.code = code; this.rpcMessage = message; }
}
/** The session was cancelled (or the kernel is shutting down). */
export class Cancelled extends Error { constructor() { super("cancelled"); } }
/** A call's own timeout passed; the kit sent $/cancelRequest for it. */
export class CallTimeout extends Error { constructor() { super("timed out"); } }
/** The harness has gone (end of stdin). */
export class ConnectionClosed extends Error { constructor() { super("the connection is closed"); } }
/** The harness's answer does not have the shape the protocol gives it. */
export class ProtocolViolation extends Error {}

/** The error that refuses a session config before the session starts. */
export const rejectConfig = (/** @type {string} */ message) => new RPCError(CONFIG_REJECTED, message);

export const log = (/** @type {any[]} */ ...args) => console.error("node-kit:", ...args);

/** A session's cancellation: once cancelled, its calls in flight are
 * abandoned ($/cancelRequest) and its later calls reject with Cancelled.
 * signal is an AbortSignal to hand to a framework's own run. */
export class Scope {
  constructor() {
    this.cancelled = false;
    /** @type {Map<number, (msg: any) => void>} */
    this.inflight = new Map();
    this.controller = new AbortController();
  }
  get signal() { return this.controller.signal; }
}

export class Conn {
  /** @param {NodeJS.ReadableStream} input @param {NodeJS.WritableStream} output @param {string} [transcript] */
  constructor(input, output, transcript) {
    this.input = input;
    this.output = output;
    this.transcript = transcript || "";
    /** @type {Map<number, (msg: any) => void>} */
    this.pending = new Map();
    this.nextId = 0;
    this.closed = false;
    /** @type {Map<string, string>} compact id of a request being answered -> its method */
    this.answering = new Map();
  }

  /** @param {any} msg */
  send(msg) {
    const line = JSON.stringify({ jsonrpc: "2.0", ...msg });
    if (this.transcript) this.record(msg);
    try { this.output.write(line + "\n"); } catch (err) { log("write failed:", err); }
  }

  /** @param {any} msg */
  record(msg) {
    let entry;
    if ("method" in msg) entry = { method: msg.method, part: "params", body: msg.params };
    else {
      const key = JSON.stringify(msg.id), method = this.answering.get(key) || "";
      this.answering.delete(key);
      entry = "result" in msg ? { method, part: "result", body: msg.result } : { method, part: "error", body: msg.error };
    }
    appendFileSync(this.transcript, JSON.stringify(entry) + "\n");
  }

  /** @param {string} method @param {any} params */
  notify(method, params) { this.send({ method, params }); }
  /** @param {any} id @param {any} result */
  reply(id, result) { this.send({ id, result }); }
  /** @param {any} id @param {number} code @param {string} message */
  replyError(id, code, message) { this.send({ id, error: { code, message } }); }

  /** Sends a request and resolves with its result; rejects with RPCError,
   * Cancelled, CallTimeout or ConnectionClosed.
   * signal, when given, abandons the call as a cancelled session would
   * ($/cancelRequest) and rejects with the signal's reason: a framework's
   * own abort (a step timeout, a stopped run) reaches the harness.
   * @param {string} method @param {any} params @param {Scope} scope @param {number} [timeoutMs] 0 or absent: none
   * @param {AbortSignal} [signal]
   * @returns {Promise<any>} */
  call(method, params, scope, timeoutMs, signal) {
    if (this.closed) return Promise.reject(new ConnectionClosed());
    if (scope.cancelled) return Promise.reject(new Cancelled());
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      /** @type {NodeJS.Timeout | undefined} */
      let timer;
      const onAbort = () => { this.notify("$/cancelRequest", { id }); done({ aborted: true }); };
      const done = (/** @type {any} */ msg) => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
        scope.inflight.delete(id);
        if (msg === null) reject(new ConnectionClosed());
        else if (msg.cancelled) reject(new Cancelled());
        else if (msg.timedOut) reject(new CallTimeout());
        else if (msg.aborted) reject(signal?.reason);
        else if (msg.error !== undefined) {
          const e = msg.error && typeof msg.error === "object" ? msg.error : {};
          reject(new RPCError(Number(e.code ?? INTERNAL_ERROR), String(e.message ?? "")));
        } else resolve(msg.result);
      };
      this.pending.set(id, done);
      scope.inflight.set(id, done);
      if (timeoutMs && timeoutMs > 0) {
        timer = setTimeout(() => { this.notify("$/cancelRequest", { id }); done({ timedOut: true }); }, timeoutMs);
      }
      signal?.addEventListener("abort", onAbort);
      this.send({ id, method, params });
    });
  }

  /** Cancels a scope: every call it waits for is abandoned.
   * @param {Scope} scope */
  cancel(scope) {
    if (scope.cancelled) return;
    scope.cancelled = true;
    const inflight = [...scope.inflight.entries()];
    for (const [id, done] of inflight) {
      this.notify("$/cancelRequest", { id });
      done({ cancelled: true });
    }
    scope.controller.abort(new Cancelled());
  }

  close() {
    this.closed = true;
    for (const done of [...this.pending.values()]) done(null);
  }

  /** Reads until EOF: answers go to their callers, requests and
   * notifications to handle. Resolves at the end of the input.
   * @param {(msg: any) => void} handle @returns {Promise<void>} */
  read(handle) {
    return new Promise((resolve) => {
      /** @type {Buffer[]} */
      let parts = [];
      let size = 0;
      const finish = () => { this.close(); resolve(); };
      const line = (/** @type {Buffer} */ raw) => {
        const text = raw.toString("utf8").trim();
        if (!text) return;
        let msg;
        try { msg = JSON.parse(text); } catch (err) { log("unparseable line ignored:", String(err)); return; }
        if (!msg || typeof msg !== "object" || Array.isArray(msg)) log("a message that is not an object ignored");
        else if ("method" in msg) handle(msg);
        else if (typeof msg.id === "number" && this.pending.has(msg.id)) /** @type {any} */ (this.pending.get(msg.id))(msg);
        else if (typeof msg.id !== "number") log("an answer to an id the kit never used ignored:", JSON.stringify(msg.id));
        // an answer to a call given up on is dropped: expected
      };
      this.input.on("data", (/** @type {Buffer} */ chunk) => {
        let start = 0;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
          parts.push(chunk.subarray(start, i));
          line(Buffer.concat(parts));
          parts = []; size = 0; start = i + 1;
        }
        if (start < chunk.length) { parts.push(chunk.subarray(start)); size += chunk.length - start; }
        if (size > MAX_LINE) {
          log(`a line longer than ${MAX_LINE} bytes: the connection is closed`);
          this.input.removeAllListeners("data");
          finish();
        }
      });
      this.input.on("end", finish);
      this.input.on("error", finish);
    });
  }
}
