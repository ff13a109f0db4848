// A fuller kernel on node-kit, for the kit's mutation campaign. toy.mjs
// uses five of the kit's helpers; this one uses the rest too, so that a
// mutant of any helper reaches a kernel the suite judges (make
// mutation-nodekit, cmd/kitmutate): the bounds with the final-answer turn
// (Session.begin, Turn.assemble, Turn.purpose), kernel events
// (Session.event), spans (Host.span), a declared reading and glue (Info),
// refused configs (rejectConfig), frontend/decide (nothingPending), the
// conversions (fold, toolResultOf, resultBlock, outputText, price) through
// Turn, and a cancellation of its own, as a framework adapter has: its own
// session/cancel aborts the session's AbortController, whose signal,
// joined with host.signal (the kit's, fired at shutdown), the Session
// hands to every call (Conn.call's signal path). It is not a conforming kernel: it has no retries, policy or
// sub-agents, and the campaign counts only the scenarios it passes.
//
//   go run ./cmd/conform run --kernel "node examples/node-kit/full.mjs"
import { randomBytes } from "node:crypto";
import { main, Session, Cancelled, RPCError, UNKNOWN_SESSION, rejectConfig, nothingPending } from "./kit.mjs";

const FINAL = { role: "user", content: [{ type: "text", text: "A limit was reached: answer now, without tools." }] };
const ns = () => BigInt(Date.now()) * 1000000n;
const hex = (n) => randomBytes(n).toString("hex");

class Loop {
  constructor(host, params, bounds, signal) {
    this.s = new Session(host, params, { signal });
    this.bounds = bounds;
    this.began = Date.now();
    this.trace = hex(16);
    this.root = hex(8);
    this.rootStart = ns();
  }

  span(name, role, turnId, start, parent) {
    if (!this.s.config.telemetry) return;
    this.s.host.span({ trace_id: this.trace, span_id: hex(8), name, role, session_id: this.s.id,
      start_unix_nano: Number(start), end_unix_nano: Number(ns()), attributes: { "conform.role": role },
      ...(parent ? { parent_span_id: parent } : {}), ...(turnId ? { turn_id: turnId } : {}) });
  }

  /** The status of the bound that fired at the end of a turn, or "". */
  bound() {
    const s = this.s, b = this.bounds;
    if (b.max_turns !== undefined && s.turns >= b.max_turns) return "error_max_turns";
    if (b.max_cost_usd !== undefined && s.costUSD >= b.max_cost_usd) return "error_max_budget_usd";
    if (b.max_wall_clock_s !== undefined && (Date.now() - this.began) / 1000 >= b.max_wall_clock_s) return "error_max_wall_clock";
    return "";
  }

  async turn(history, purpose = "turn") {
    const s = this.s, t = s.begin();
    t.purpose = purpose;
    const start = ns();
    s.event(t.id, "turn_started", { turn: t.number, purpose });
    await t.assemble(history);
    const final = purpose === "final_answer";
    const modelStart = ns();
    const reply = await t.model(final ? [...history, FINAL] : history, final ? [] : s.toolSpecs());
    this.span("loop.model", "model_call", t.id, modelStart, this.root);
    const results = reply.calls.length && !final ? await t.runTools(reply.calls) : null;
    this.span("loop.turn", "turn", t.id, start, this.root);
    return { reply, results };
  }

  async run() {
    const s = this.s;
    const history = [{ role: "user", content: [{ type: "text", text: s.prompt }] }];
    try {
      await s.start();
      for (;;) {
        const { reply, results } = await this.turn(history);
        history.push(reply.message);
        if (!results) return this.end("completed", reply.message);
        history.push(results);
        const status = this.bound();
        if (status) {
          s.event("", "limit_reached", { status });
          const last = await this.turn(history, "final_answer");
          return this.end(status, last.reply.message);
        }
      }
    } catch (err) {
      return err instanceof Cancelled ? this.end("cancelled") : this.end("failed", undefined, err);
    }
  }

  async end(status, final, why) {
    const res = await this.s.finish(status, final, why);
    this.span("loop.session", "session", "", this.rootStart);
    return res;
  }
}

/** The running sessions' own aborts, and the ids of those that ended. */
const running = new Map();
const ended = new Set();

/** @type {import("./kit.mjs").Kernel} */
export const fullKernel = {
  // The kit's dispatch waits without a deadline when a subscriber's
  // effective timeout is 0: the "none" reading of hooks.zero_timeout.
  info: () => ({ name: "full-kernel-node", version: "0.1.0", readings: { "hooks.zero_timeout": "none" },
    glue: [{ requirement: "TA-02", reason: "the bounds check is this adapter's, not a framework's" }] }),
  cancel(sessionId) {
    const abort = running.get(sessionId);
    if (abort) abort.abort(new Cancelled());
    else if (!ended.has(sessionId)) throw new RPCError(UNKNOWN_SESSION, `unknown session ${sessionId}`);
  },
  async decide(host, params) {
    if (!running.has(params.session_id)) throw new RPCError(UNKNOWN_SESSION, `no running session ${params.session_id}`);
    return nothingPending(host, params);
  },
  async run(host, params) {
    const bounds = params.config.bounds || {};
    if (bounds.soft) throw rejectConfig("soft limits are not supported (no bound.soft_limits capability)");
    const abort = new AbortController();
    running.set(params.session_id, abort);
    try {
      return await new Loop(host, params, bounds, AbortSignal.any([host.signal, abort.signal])).run();
    } finally {
      running.delete(params.session_id);
      ended.add(params.session_id);
    }
  },
};

if (import.meta.url === `file://${process.argv[1]}`) main(fullKernel);
