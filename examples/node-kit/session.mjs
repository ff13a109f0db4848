// Session and Turn carry the protocol duties every kernel has, so that an
// adapter writes only its loop: the session/meta rows and session hooks
// (start, finish), turns and context/assemble (begin, newTurn), a point's
// hook chain with the rules of PROTOCOL.md §7.2 (dispatch), pricing and
// cost/usage (charge), a model call with its hooks (Turn.model), a reply's
// tool calls in the order of §12 (Turn.runTools). A helper that implements
// a loop feature says so (dispatch is a hook system with timeouts; runTools
// runs every call and applies no policy). An adapter for a real framework
// uses a helper only where the framework has the feature itself and calls
// the Host from the framework's own hooks otherwise, so that conform's
// report is about the framework and not about the glue.
import { RPCError, Cancelled, CallTimeout, ProtocolViolation, PROCESS_CRASHED, PRODUCER } from "./conn.mjs";
import { HookAbort, ModelFailure, fold, misfit, nowRFC3339, outputText, price, resultBlock, toolResultOf } from "./helpers.mjs";

/** @typedef {import("./wire.js").HookPayload} HookPayload
 * @typedef {import("./wire.js").Message} Message
 * @typedef {import("./wire.js").ToolResult} ToolResult
 * @typedef {import("./wire.js").ContentBlock} ContentBlock
 * @typedef {import("./wire.js").Subscriber} Subscriber
 * @typedef {{payload: HookPayload, denied: boolean, by: string, reason: string}} Outcome */

export class Session {
  /** signal, when given, is the loop's own cancellation (a framework's
   * abort, a kernel's own session/cancel): every call the session makes
   * through these helpers carries it, except its session-end hooks. A
   * child session (session/spawn) names its parent and depth, which its
   * session/meta rows carry.
   * @param {import("./kit.mjs").Host} host @param {import("./wire.js").RunParams} params
   * @param {{signal?: AbortSignal, parent?: string, depth?: number}} [opts] */
  constructor(host, params, opts = {}) {
    this.host = host;
    this.signal = opts.signal;
    this.parent = opts.parent || "";
    this.depth = opts.depth || 0;
    /** The call_ids of the session's tool/invokes in flight: a spawn names
     * one of them (PROTOCOL.md §6.4). @type {Set<string>} */
    this.invoking = new Set();
    /** The interactive calls waiting on the frontend: call_id → how
     * another connection's answer settles it. @type {Map<string, (response: string) => void>} */
    this.waiting = new Map();
    this.id = String(params.session_id || "");
    this.prompt = String(params.prompt || "");
    this.config = params.config;
    this.started = nowRFC3339();
    this.turns = 0;
    this.costUSD = 0;
    this.inputTokens = 0;
    this.outputTokens = 0;
  }

  /** @param {string} turnId @returns {import("./wire.js").CallContext} */
  callContext(turnId) { return { session_id: this.id, turn_id: turnId, working_directory: this.config.working_directory || "" }; }

  /** The config's schema of the tool named name, or undefined. @param {string} name */
  tool(name) { return (this.config.tools || []).find((t) => t.name === name); }

  /** Every tool of the config as a model request offers it. @returns {import("./wire.js").ToolSpec[]} */
  toolSpecs() {
    return (this.config.tools || []).map((t) => ({ name: t.name, description: t.description || "", ...(t.input_schema ? { input_schema: t.input_schema } : {}) }));
  }

  /** @param {import("./wire.js").Status} status @returns {import("./wire.js").MetaRow} */
  row(status) {
    return { session_id: this.id, ...(this.parent ? { parent_session_id: this.parent } : {}), profile: this.config.profile || "", depth: this.depth, status, started_at: this.started };
  }

  /** Sends the running session/meta row and dispatches session-start.
   * Throws HookAbort for an aborted transform chain. */
  async start() {
    this.host.meta(this.row("running"));
    await this.dispatch("", { variant: "session-start", session_id: this.id, prompt: this.prompt });
  }

  /** Ends the session: session-end hooks (even after a cancel), the end
   * row, and the RunSessionResult with the totals charge counted.
   * @param {import("./wire.js").Status} status @param {Message} [final] @param {unknown} [why]
   * @returns {Promise<import("./wire.js").RunSessionResult>} */
  async finish(status, final, why) {
    /** @type {HookPayload} */
    const payload = { variant: "session-end", session_id: this.id, status, ...(final ? { final_message: final } : {}) };
    try { await this.dispatch("", payload, this.host.detached()); } catch (err) {
      if (!(err instanceof HookAbort || err instanceof Cancelled)) throw err;
    }
    this.host.meta({ ...this.row(status), ended_at: nowRFC3339(), ...(final ? { final_message: final } : {}) });
    return {
      session_id: this.id, status, total_cost_usd: this.costUSD, total_input_tokens: this.inputTokens,
      total_output_tokens: this.outputTokens, turns: this.turns, ...(final ? { final_message: final } : {}),
      ...(why ? { error: why instanceof Error ? why.message : String(why) } : {}),
    };
  }

  /** Answers a waiting interactive call with the response another
   * frontend connection sent through frontend/decide (PROTOCOL.md §6.7):
   * the first answer is the call's result, and the frontend/interactive
   * still pending is withdrawn ($/cancelRequest). False when no call with
   * that id waits (never asked, or answered already).
   * @param {string} callId @param {string} response */
  answerInteractive(callId, response) {
    const answer = this.waiting.get(callId);
    if (!answer) return false;
    this.waiting.delete(callId);
    answer(response);
    return true;
  }

  /** Reports an event of the session on the kernel's behalf.
   * @param {string} turnId @param {string} kind @param {import("./wire.js").JSONObject} payload */
  event(turnId, kind, payload) {
    this.host.event({ session_id: this.id, kind, producer: PRODUCER, payload, ...(turnId ? { turn_id: turnId } : {}) });
  }

  /** Prices one usage event, reports it with cost/usage and counts it in
   * the totals. @param {string} turnId @param {import("./wire.js").Usage} usage @returns {number} */
  charge(turnId, usage) {
    const model = this.config.model;
    const [usd, tier] = price(model.pricing, usage, Date.now());
    this.costUSD += usd;
    this.inputTokens += usage.input_tokens || 0;
    this.outputTokens += usage.output_tokens || 0;
    this.host.cost({ session_id: this.id, turn_id: turnId, model: model.name || "", usage, cost_usd: usd, session_total_usd: this.costUSD, tier_index: tier });
    return usd;
  }

  /** The next turn, without sending anything: its number and turn_id. A
   * loop with a context step then calls Turn.assemble. */
  begin() { this.turns += 1; return new Turn(this, this.turns, `${this.id}/t${this.turns}`); }

  /** The next turn with its step 1, context/assemble. @param {Message[]} history */
  async newTurn(history) { const t = this.begin(); await t.assemble(history); return t; }

  /** Runs the subscribers declared at payload.variant, in order, one at a
   * time, with the rules of §7.2: the mode and effective timeout on each
   * call, cancelled when the timeout passes (0: none); observers' answers
   * ignored; a transform's payload passed on (only the messages of
   * pre-model-call may change); a veto other than ALLOW denies and ends
   * the chain. A failure is reported as a hook_error event naming the
   * subscriber, then ignored (observe), thrown as HookAbort (transform) or
   * taken as a deny (veto). This is a hook system with timeouts; a
   * framework with hooks of its own calls it from them.
   * @param {string} turnId @param {HookPayload} payload @param {import("./kit.mjs").Host} [host]
   * @returns {Promise<Outcome>} */
  async dispatch(turnId, payload, host) {
    /** @type {Outcome} */
    const out = { payload, denied: false, by: "", reason: "" };
    const hooks = this.config.hooks || { default_timeout_ms: 0, subscribers: [] };
    for (const sub of hooks.subscribers || []) {
      if (sub.point !== payload.variant) continue;
      const timeoutMs = sub.timeout_ms ?? hooks.default_timeout_ms ?? 0;
      const [answer, category, reason] = await this.callHook(host || this.host, turnId, sub, out.payload, timeoutMs, host ? undefined : this.signal);
      if (category) this.hookError(turnId, sub, category, reason);
      if (sub.mode === "transform") {
        if (category) throw new HookAbort(sub.point, sub.id, category, reason);
        out.payload = /** @type {HookPayload} */ (answer.payload);
      } else if (sub.mode === "veto" && (category || answer.decision !== "ALLOW")) {
        return { ...out, denied: true, by: sub.id, reason: answer.reason || reason || `denied by ${sub.id}` };
      }
    }
    return out;
  }

  /** @param {import("./kit.mjs").Host} host @param {string} turnId @param {Subscriber} sub @param {HookPayload} payload @param {number} timeoutMs
   * @param {AbortSignal} [signal]
   * @returns {Promise<[import("./wire.js").HookResult | any, string, string]>} */
  async callHook(host, turnId, sub, payload, timeoutMs, signal) {
    const params = { call_context: this.callContext(turnId), point: sub.point, subscriber: sub.id, mode: sub.mode, timeout_ms: timeoutMs, payload };
    let answer;
    try {
      answer = await host.hook(params, timeoutMs, signal);
    } catch (err) {
      if (err instanceof CallTimeout) return [{}, "TIMEOUT", `no answer within ${timeoutMs} ms`];
      if (err instanceof ProtocolViolation) return [{}, "INVALID_RESPONSE", err.message];
      if (!(err instanceof RPCError)) throw err;
      if (err.code === PROCESS_CRASHED) return [{}, "PROCESS_CRASHED", err.rpcMessage];
      return [{}, sub.mode === "transform" ? "TRANSFORM_FAILED" : sub.mode === "veto" ? "VETO_FAILED" : "UNKNOWN", err.rpcMessage];
    }
    const why = misfit(sub.mode, payload, answer);
    return why ? [{}, "INVALID_RESPONSE", why] : [answer, "", ""];
  }

  /** @param {string} turnId @param {Subscriber} sub @param {string} category @param {string} message */
  hookError(turnId, sub, category, message) {
    this.host.event({ session_id: this.id, kind: "hook_error", producer: sub.id, ...(turnId ? { turn_id: turnId } : {}),
      payload: { subscriber: sub.id, point: sub.point, mode: sub.mode, category, message } });
  }
}

/** One turn: its number, turn_id and context contributions. purpose is the
 * model requests' purpose ("turn"; "final_answer" after a bound). */
export class Turn {
  /** @param {Session} session @param {number} number @param {string} id */
  constructor(session, number, id) {
    this.session = session;
    this.number = number;
    this.id = id;
    /** @type {import("./wire.js").Contribution[]} */
    this.contributions = [];
    /** @type {import("./wire.js").Purpose} */
    this.purpose = "turn";
  }

  /** Step 1: context/assemble on the history so far. @param {Message[]} history */
  async assemble(history) {
    const s = this.session;
    const res = await s.host.assemble({ call_context: s.callContext(this.id), turn: this.number, history }, s.signal);
    this.contributions = res.contributions || [];
  }

  /** Steps 2 to 5: pre-model-call hooks (their transforms rewrite this
   * request's messages only), one model/stream, a cost/usage report per
   * usage event, post-model-response hooks. Throws ModelFailure after a
   * failed call, HookAbort for an aborted transform chain.
   * @param {Message[]} messages @param {import("./wire.js").ToolSpec[]} tools */
  async model(messages, tools) {
    const s = this.session, model = s.config.model.name || "";
    const pre = await s.dispatch(this.id, { variant: "pre-model-call", model, messages, tools });
    const res = await s.host.stream({ call_context: s.callContext(this.id), purpose: this.purpose, model,
      messages: pre.payload.messages || [], tools, assembled_context: this.contributions, attempt: 1 }, s.signal);
    const reply = fold(res.events);
    for (const ev of res.events || []) if (ev.type === "usage" && ev.usage) reply.costUSD += s.charge(this.id, ev.usage);
    await s.dispatch(this.id, { variant: "post-model-response", message: reply.message, usage: reply.usage, cost_usd: reply.costUSD,
      ...(reply.stopReason ? { stop_reason: reply.stopReason } : {}), ...(reply.error ? { error: reply.error } : {}) });
    if (reply.error) throw new ModelFailure(reply.error);
    return reply;
  }

  /** A tool_use block as a hook payload's call. @param {ContentBlock} c @returns {import("./wire.js").ToolCall} */
  hookCall(c) {
    const t = this.session.tool(c.name || "");
    return { id: c.id || "", name: c.name || "", provider: t ? t.provider : "", kind: t ? t.kind : "data_source", input: c.input || null };
  }

  /** One tool/invoke (attempt 1, no retry), as toolResultOf makes it.
   * @param {ContentBlock} c @returns {Promise<ToolResult>} */
  async invoke(c) {
    const s = this.session, t = s.tool(c.name || "");
    s.invoking.add(c.id || "");
    try {
      return toolResultOf(await s.host.invoke({ call_context: s.callContext(this.id), call_id: c.id || "",
        provider: t ? t.provider : "", tool: c.name || "", input: c.input || null, attempt: 1 }, s.signal));
    } catch (err) {
      if (err instanceof Cancelled) throw err;
      return toolResultOf(null, err);
    } finally {
      s.invoking.delete(c.id || "");
    }
  }

  /** One interactive call through frontend/interactive; an answer another
   * connection gives first (Session.answerInteractive) withdraws it and is
   * the result. @param {ContentBlock} c @returns {Promise<ToolResult>} */
  async interactive(c) {
    const s = this.session, id = c.id || "", withdraw = new AbortController();
    /** @type {string | undefined} */
    let answer;
    s.waiting.set(id, (response) => { answer = response; withdraw.abort(new Cancelled()); });
    try {
      const res = await s.host.interactive({ call_context: s.callContext(this.id), call_id: id, tool_name: c.name || "",
        prompt: `The agent asks: ${c.name}`, input: c.input || null }, s.signal ? AbortSignal.any([s.signal, withdraw.signal]) : withdraw.signal);
      return { content: outputText(res.response) };
    } catch (err) {
      if (answer !== undefined) return { content: answer };
      if (err instanceof Cancelled) throw err;
      return { content: `the frontend failed: ${err instanceof Error ? err.message : err}`, is_error: true, error_category: "execution_failed" };
    } finally {
      s.waiting.delete(id);
    }
  }

  /** Steps 7 to 14 in the order of §12: a pre-tool-call dispatch per call,
   * the data_source calls, the interactive calls, the plan-ready chain, the
   * resource calls, a post-tool-call dispatch per call, the post-apply
   * chain; each group in the model's order, one call at a time. It applies
   * no policy: every resource call is in the plan as allow, decided_by
   * "no-policy", and runs unless a veto subscriber denies the plan. A call
   * of a tool the config lacks gets an error result and no invoke or tool
   * hooks. Resolves with the user message of one tool_result per call.
   * @param {ContentBlock[]} calls @returns {Promise<Message>} */
  async runTools(calls) {
    const s = this.session;
    const known = calls.filter((c) => s.tool(c.name || ""));
    const ofKind = (/** @type {string} */ kind) => known.filter((c) => s.tool(c.name || "")?.kind === kind);
    for (const c of known) await s.dispatch(this.id, { variant: "pre-tool-call", call: this.hookCall(c) });
    /** @type {Map<string, ToolResult>} */
    const results = new Map();
    for (const c of ofKind("data_source")) results.set(c.id || "", await this.invoke(c));
    for (const c of ofKind("interactive")) results.set(c.id || "", await this.interactive(c));
    const items = ofKind("resource").map((c, i) => {
      const t = /** @type {import("./wire.js").ToolSchema} */ (s.tool(c.name || ""));
      return { id: `${this.id}/p${i + 1}`, tool_call_id: c.id || "", provider: t.provider, tool: t.name, kind: t.kind, risk: t.risk,
        description: t.description || "", input: c.input || null, decision: /** @type {const} */ ("allow"), decided_by: "no-policy" };
    });
    const verdict = await s.dispatch(this.id, { variant: "plan-ready", plan: { items } });
    for (const c of ofKind("resource")) {
      results.set(c.id || "", verdict.denied
        ? { content: `denied by ${verdict.by}: ${verdict.reason}`, is_error: true, error_category: "permission_denied" }
        : await this.invoke(c));
    }
    /** @type {ContentBlock[]} */
    const blocks = [];
    for (const c of calls) {
      const r = results.get(c.id || "") || { content: `unknown tool ${c.name}`, is_error: true, error_category: /** @type {const} */ ("not_found") };
      if (s.tool(c.name || "")) await s.dispatch(this.id, { variant: "post-tool-call", call: this.hookCall(c), result: r });
      blocks.push(resultBlock(c.id || "", r));
    }
    await s.dispatch(this.id, { variant: "post-apply", plan: { items } });
    return { role: "user", content: blocks };
  }
}
