// A fuller kernel on node-kit, for the kit's mutation campaign. toy.mjs
// uses five of the kit's helpers; this one uses the rest too, so that a
// mutant of any helper reaches a kernel the suite judges (make
// mutation-nodekit, cmd/kitmutate): the bounds with the final-answer turn
// (Session.begin, Turn.assemble, Turn.purpose), kernel events
// (Session.event), spans (Host.span; each tool call's and the plan-ready
// chain's around the kit's Turn.invoke, Turn.interactive and
// Session.dispatch), declared readings and glue (Info), refused configs
// (rejectConfig), frontend/decide (answerInteractive, then
// nothingPending for the rest), the
// conversions (fold, toolResultOf, resultBlock, outputText, price) through
// Turn; a cancellation of its own, as a framework adapter has (its own
// session/cancel aborts the session's AbortController, whose signal,
// joined with host.signal, fired at shutdown, and its parent's, the
// Session hands to every call: Conn.call's signal path); and sub-agents
// (session/spawn: the kit's routing, Session's parent, depth and calls in
// flight), each child joined, its tools its profile's, its depth budget
// the parent's less one, shrunk by the profile and the caller, a spawn
// tool offered only while some depth is left. It is not a conforming
// kernel: it has no retries or policy, no cost budgets or concurrency caps
// for its children, and the campaign counts only the scenarios it passes.
//
//   go run ./cmd/conform run --kernel "node examples/node-kit/full.mjs"
import { randomBytes } from "node:crypto";
import { main, Session, Cancelled, RPCError, UNKNOWN_SESSION, INVALID_PARAMS, rejectConfig, nothingPending } from "./kit.mjs";

const FINAL = { role: "user", content: [{ type: "text", text: "A limit was reached: answer now, without tools." }] };
const ns = () => BigInt(Date.now()) * 1000000n;
const hex = (n) => randomBytes(n).toString("hex");

class Loop {
  constructor(host, params, bounds, signal, child = { parent: "", depth: 0, remainingDepth: params.config.subagents?.max_depth ?? 0 }) {
    this.s = new Session(host, params, { signal, parent: child.parent, depth: child.depth });
    this.remainingDepth = child.remainingDepth;
    this.children = 0;
    /** The totals of the children's subtrees, which this session's result adds to its own. */
    this.subtree = { usd: 0, input: 0, output: 0 };
    this.bounds = bounds;
    this.began = Date.now();
    this.trace = hex(16);
    this.root = hex(8);
    this.rootStart = ns();
    /** The running turn's span id, the parent of its tool and policy spans. */
    this.turnSpan = "";
    // The plan-ready chain is this loop's whole policy step (runTools
    // decides every item "no-policy"), so the policy_chain span is its.
    const dispatch = this.s.dispatch.bind(this.s);
    this.s.dispatch = (turnId, payload, host) => (payload.variant === "plan-ready"
      ? this.timed("loop.policy", "policy_chain", turnId, () => dispatch(turnId, payload, host))
      : dispatch(turnId, payload, host));
  }

  /** id is given for a span whose children are sent before it ends. */
  span(name, role, turnId, start, parent, id = hex(8)) {
    if (!this.s.config.telemetry) return;
    this.s.host.span({ trace_id: this.trace, span_id: id, name, role, session_id: this.s.id,
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

  /** Runs fn under a span of the running turn, ended however fn ends. */
  async timed(name, role, turnId, fn) {
    const start = ns(), parent = this.turnSpan;
    try { return await fn(); } finally { this.span(name, role, turnId, start, parent); }
  }

  async turn(history, purpose = "turn") {
    const s = this.s, t = s.begin();
    t.purpose = purpose;
    const start = ns(), turnSpan = (this.turnSpan = hex(8));
    // runTools is the kit's: the calls it makes through the turn are where
    // each tool runs, so each gets its tool_execution span there.
    const invoke = t.invoke.bind(t), interactive = t.interactive.bind(t);
    t.invoke = (c) => this.timed(`loop.tool ${c.name}`, "tool_execution", t.id, () => invoke(c));
    t.interactive = (c) => this.timed(`loop.tool ${c.name}`, "tool_execution", t.id, () => interactive(c));
    s.event(t.id, "turn_started", { turn: t.number, purpose });
    await t.assemble(history);
    const final = purpose === "final_answer";
    const modelStart = ns();
    const tools = s.toolSpecs().filter((spec) => this.remainingDepth > 0 || !s.tool(spec.name)?.spawn_capable);
    const reply = await t.model(final ? [...history, FINAL] : history, final ? [] : tools);
    this.span("loop.model", "model_call", t.id, modelStart, turnSpan);
    const results = reply.calls.length && !final ? await t.runTools(reply.calls) : null;
    this.span("loop.turn", "turn", t.id, start, this.root, turnSpan);
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
    res.total_cost_usd += this.subtree.usd;
    res.total_input_tokens += this.subtree.input;
    res.total_output_tokens += this.subtree.output;
    this.span("loop.session", "session", "", this.rootStart);
    return res;
  }
}

/** The running sessions (their loops and own aborts), roots and children,
 * and the ids of those that ended. @type {Map<string, {loop: Loop, abort: AbortController, signal: AbortSignal}>} */
const running = new Map();
const ended = new Set();

/** Runs one session, root or child, under its own abort joined with the
 * signals it inherits. */
async function runSession(host, params, inherited, child) {
  const bounds = params.config.bounds || {};
  if (bounds.soft) throw rejectConfig("soft limits are not supported (no bound.soft_limits capability)");
  const abort = new AbortController(), signal = AbortSignal.any([...inherited, abort.signal]);
  const loop = new Loop(host, params, bounds, signal, child);
  running.set(params.session_id, { loop, abort, signal });
  try {
    return await loop.run();
  } finally {
    running.delete(params.session_id);
    ended.add(params.session_id);
  }
}

/** @type {import("./kit.mjs").Kernel} */
export const fullKernel = {
  // The kit's dispatch waits without a deadline when a subscriber's
  // effective timeout is 0: the "none" reading of hooks.zero_timeout. A
  // child's Loop starts a trace of its own, its session span a root.
  info: () => ({ name: "full-kernel-node", version: "0.1.0",
    readings: { "hooks.zero_timeout": "none", "trace.child_sessions": "own_trace" },
    glue: [{ requirement: "TA-02", reason: "the bounds check is this adapter's, not a framework's" }] }),
  cancel(sessionId) {
    const run = running.get(sessionId);
    if (run) run.abort.abort(new Cancelled()); // its descendants' signals join this one
    else if (!ended.has(sessionId)) throw new RPCError(UNKNOWN_SESSION, `unknown session ${sessionId}`);
  },
  // PROTOCOL.md §6.7: an interactive response to a call still waiting on
  // the frontend answers it (Session.answerInteractive); everything else
  // (no plan item is ever pending here) is rejected as nothingPending does.
  async decide(host, params) {
    const run = running.get(params.session_id);
    if (!run) throw new RPCError(UNKNOWN_SESSION, `no running session ${params.session_id}`);
    const responses = params.interactive_responses || [];
    const taken = responses.map((r) => run.loop.s.answerInteractive(r.call_id, String(r.response ?? "")));
    const rest = nothingPending(host, { ...params, interactive_responses: responses.filter((_, i) => !taken[i]) });
    if (!responses.length) return rest;
    const refused = [...(rest.interactive_results || [])];
    return { ...rest, interactive_results: responses.map((r, i) => (taken[i] ? { call_id: r.call_id, accepted: true } : refused.shift())) };
  },
  run: (host, params) => runSession(host, params, [host.signal]),
  // PROTOCOL.md §6.4: the parent must be running with the call in flight,
  // the profile one of its config's; the child runs to its end (joined).
  async spawn(host, params) {
    const parent = running.get(params.parent_session_id);
    if (!parent) throw new RPCError(UNKNOWN_SESSION, `no running session ${params.parent_session_id}`);
    const ps = parent.loop.s, cfg = ps.config;
    if (!ps.invoking.has(params.call_id)) throw new RPCError(INVALID_PARAMS, `call ${params.call_id} is not a tool/invoke of ${ps.id} in flight`);
    const profile = (cfg.subagents?.profiles || []).find((p) => p.name === params.profile);
    if (!profile) throw new RPCError(INVALID_PARAMS, `no sub-agent profile ${params.profile}`);
    const remainingDepth = Math.min(parent.loop.remainingDepth - 1, profile.max_depth ?? Infinity, params.remaining_depth ?? Infinity);
    const names = new Set(profile.tools || []);
    const config = { ...cfg, profile: profile.name, tools: (cfg.tools || []).filter((t) => names.has(t.name)),
      bounds: profile.max_turns !== undefined ? { max_turns: profile.max_turns } : {} };
    const id = `${ps.id}/c${++parent.loop.children}`;
    const res = await runSession(host, { session_id: id, prompt: params.prompt, config }, [host.signal, parent.signal],
      { parent: ps.id, depth: ps.depth + 1, remainingDepth });
    parent.loop.subtree.usd += res.total_cost_usd;
    parent.loop.subtree.input += res.total_input_tokens;
    parent.loop.subtree.output += res.total_output_tokens;
    return res;
  },
};

if (import.meta.url === `file://${process.argv[1]}`) main(fullKernel);
