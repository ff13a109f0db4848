// The OpenAI Agents SDK's agent loop (@openai/agents 0.20: Agent and run)
// as a conform kernel on the Node kit. The runner runs its own turns; its
// model is the harness's model/stream (model.mjs), its function tools are
// the harness's tool/invoke, tool guardrails are the tool hook points, and
// its approval interruptions are the permission requests; a session/spawn
// runs the child as the SDK's agent-as-tool does (agent.asTool: a Runner.run
// of the child agent under the tool call's signal), and the SDK's spans go
// out as trace/span (trace.mjs). What the glue adds is listed in README.md.
import { randomUUID } from "node:crypto";
import { Agent, Runner, tool, retryPolicies, MaxTurnsExceededError } from "@openai/agents";
import { main, Session, Cancelled, toolResultOf, RPCError, UNKNOWN_SESSION, INVALID_PARAMS } from "../../node-kit/kit.mjs";
import { conformModel, toWire, fromWire } from "./model.mjs";
import { forwardSpans, traced } from "./trace.mjs";

/** session id → run state, while the session runs: what a session/spawn names as its parent */
const live = new Map();

const rule = (s, t) => (s.config.policy.rules || []).find((r) => (!r.provider || r.provider === t.provider) && (!r.tool || r.tool === t.name) && (!r.kind || r.kind === t.kind));
/** The policy's decision on a tool: its first matching rule, else the
 * specification's default (PA-10: a resource call asks, a read or an
 * interactive call is allowed). Glue: the SDK has no policy rules, only
 * needsApproval. */
const decide = (s, t) => { const r = rule(s, t); return r ? { decision: r.decision, by: r.name } : { decision: t.kind === "resource" ? "ask" : "allow", by: "default" }; };
const hookCall = (t, d) => ({ id: d.toolCall.callId, name: t.name, provider: t.provider, kind: t.kind, input: JSON.parse(d.toolCall.arguments || "{}") });

const planItem = (r, t, callId, input) => ({ id: `${r.turn.id}/${callId}`, tool_call_id: callId, provider: t.provider, tool: t.name, kind: t.kind,
  risk: t.risk, description: t.description, input, ...(({ decision, by }) => ({ decision, decided_by: by }))(decide(r.s, t)) });

/** Writes the plan_item row of a resource call once (PA-14): where the SDK
 * asks (needsApproval), where it lets a call through (the input
 * guardrail), or where it rejects one by itself after a SESSION answer
 * (toolErrorFormatter, see runAgent). */
function planRow(r, t, callId, input) {
  if (t.kind !== "resource" || r.rows.has(callId)) return;
  r.rows.add(callId);
  r.s.event(r.turn.id, "plan_item", { ...planItem(r, t, callId, input), turn_id: r.turn.id });
}

function tools(r) {
  const s = r.s, cfg = s.config;
  return (s.config.tools || []).map((t) => {
    const { decision, by } = decide(s, t);
    const asks = decision === "ask" && t.kind === "resource"; // only a resource is ever asked about (PA-06)
    return tool({
      name: t.name, description: t.description, strict: false, parameters: t.input_schema || { type: "object", properties: {} },
      needsApproval: async (_ctx, input, callId) => { // the SDK's approval gate, asked for every call; an asked resource's plan row is written here, also for a call a SESSION answer already decides (the SDK then approves or rejects it itself)
        if (asks) planRow(r, t, callId, input);
        return asks;
      },
      isEnabled: !(cfg.plan_mode && t.kind === "resource"), // the SDK's per-tool switch: plan mode
      inputGuardrails: [{ name: "conform-pre-tool-call", async run(d) { // pre-tool-call, then (resources) the policy and the plan-ready veto
        await s.dispatch(r.turn.id, { variant: "pre-tool-call", call: hookCall(t, d) });
        const item = planItem(r, t, d.toolCall.callId, hookCall(t, d).input);
        planRow(r, t, d.toolCall.callId, item.input); // a denied call has its row too, and one a SESSION answer let through

        if (decision === "deny") return { behavior: { type: "rejectContent", message: `denied by policy rule ${by}` } };
        if (t.kind !== "resource" && decision === "ask") { // the read/interactive precheck: an ask is downgraded to a deny, and says so (PA-09)
          s.event(r.turn.id, "ask_downgrade", { call_id: d.toolCall.callId, tool: t.name, kind: t.kind, rule: by });
          return { behavior: { type: "rejectContent", message: `ask downgraded to deny by policy rule ${by}: a ${t.kind} call is never asked about` } };
        }
        if (t.kind !== "resource") return { behavior: { type: "allow" } };
        const veto = await s.dispatch(r.turn.id, { variant: "plan-ready", plan: { items: [item] } });
        return { behavior: veto.denied ? { type: "rejectContent", message: `denied by ${veto.by}: ${veto.reason}` } : { type: "allow" } };
      } }],
      outputGuardrails: [{ name: "conform-post-tool-call", async run(d) {
        await s.dispatch(r.turn.id, { variant: "post-tool-call", call: hookCall(t, d), result: { content: String(d.output) } });
        return { behavior: { type: "allow" } };
      } }],
      async execute(input, _ctx, details) {
        const call_id = details?.toolCall?.callId ?? "", call_context = s.callContext(r.turn.id);
        if (t.kind === "interactive") return (await s.host.interactive({ call_context, call_id, tool_name: t.name, prompt: t.description, input }, details?.signal)).response;
        let res;
        const call = { signal: details?.signal ?? r.signal, kids: [] }; // what a session/spawn must name, the signal its child runs under, and the children to wait for
        if (t.spawn_capable) r.calls.set(call_id, call);
        try { res = toolResultOf(await s.host.invoke({ call_context, call_id, provider: t.provider, tool: t.name, input, attempt: 1 }, details?.signal)); } catch (err) {
          if (err instanceof Cancelled) throw err;
          res = toolResultOf(null, err);
        } finally { r.calls.delete(call_id); }
        // As agent.asTool runs its child inside the tool call, the call is over only when every child it started is (SA-04),
        // even one the spawning tool answered for before the child ended.
        if (call.kids.length) await Promise.allSettled(call.kids);
        if (!res.is_error) return res.content;
        s.event(r.turn.id, "tool_error", { call_id, tool: t.name, category: res.error_category ?? "unknown" });
        throw new Error(res.content); // the SDK's way for a tool to fail: its errorFunction's text
      },
    });
  });
}

/** Runs one session, a root's or (parent set) a spawned child's: an Agent
 * with the session's tools and the SDK's Runner.run, resumed after each
 * approval interruption. @param {any} host @param {any} params
 * @param {{r: any, signal: AbortSignal}} [parent] */
async function runAgent(host, params, parent) {
  const s = new Session(host, params), cfg = s.config, signal = parent ? parent.signal : host.signal;
  const r = { s, turn: null, attempt: 0, signal, calls: new Map(), kids: 0, rows: new Set(), inputs: new Map(), below: { cost: 0, input: 0, output: 0 }, last: undefined,
    depth: parent ? parent.r.depth + 1 : 0, all: parent ? parent.r.all : cfg.tools || [] };
  if (parent) { const row = s.row.bind(s); s.row = (status) => ({ ...row(status), parent_session_id: parent.r.s.id, depth: r.depth }); }
  const terminal = (cfg.tools || []).filter((t) => t.terminates_turn).map((t) => t.name);
  const retry = cfg.retry ? { maxRetries: cfg.retry.max_retries, policy: retryPolicies.providerSuggested(),
    backoff: { initialDelayMs: cfg.retry.base_delay_ms, multiplier: cfg.retry.backoff_factor, jitter: true } } : undefined;
  const agent = new Agent({ name: cfg.profile || "conform", instructions: "", model: conformModel(r), tools: tools(r),
    modelSettings: { parallelToolCalls: cfg.model.supports_parallel_tool_calls, ...(retry ? { retry } : {}) },
    ...(terminal.length ? { toolUseBehavior: { stopAtToolNames: terminal } } : {}) }); // the SDK's stop-at-tool: terminates_turn
  agent.on("agent_start", () => { s.dispatch("", { variant: "session-start", session_id: s.id, prompt: s.prompt }).catch(() => {}); }); // an event: not awaited by the runner
  const traceId = `trace_${randomUUID().replace(/-/g, "")}`;
  // toolErrorFormatter: the SDK's hook for the text of a call it rejected, also one it rejects by itself under an
  // alwaysReject (a SESSION deny): that call still gets its plan row.
  const toolErrorFormatter = ({ kind, toolName, callId }) => {
    const t = s.tool(toolName);
    if (kind !== "approval_rejected" || !t) return undefined;
    planRow(r, t, callId, r.inputs.get(callId) ?? null);
    return r.denied.get(toolName) ?? `denied by the user (frontend) for ${r.turn.id}/${callId}`;
  };
  r.denied = new Map(); // tool → the denial text of a SESSION deny
  const runner = new Runner({ tracingDisabled: !cfg.telemetry, traceIncludeSensitiveData: false, traceId, workflowName: cfg.profile || "conform", toolErrorFormatter });
  if (cfg.telemetry) traced.set(traceId, r);
  live.set(s.id, r);
  host.meta(s.row("running"));
  const callModelInputFilter = async ({ modelData }) => { // once per turn, before the model call: the turn's context and pre-model-call hooks
    r.turn = s.begin();
    r.attempt = 0;
    const history = toWire(modelData.input);
    await r.turn.assemble(history);
    const pre = await s.dispatch(r.turn.id, { variant: "pre-model-call", model: cfg.model.name, messages: history, tools: s.toolSpecs() });
    return pre.payload.messages === history ? modelData : { ...modelData, input: fromWire(pre.payload.messages || []) };
  };
  const options = { signal, callModelInputFilter, ...(cfg.bounds.max_turns !== undefined ? { maxTurns: cfg.bounds.max_turns } : {}),
    ...(cfg.model.supports_parallel_tool_calls ? {} : { toolExecution: { maxFunctionToolConcurrency: 1 } }) }; // the SDK's own cap on tools run at once
  let res;
  try {
    let result = await runner.run(agent, s.prompt, options);
    while (result.interruptions?.length) { // the SDK's human-in-the-loop: each approval goes to the frontend, then the run resumes
      for (const it of result.interruptions) {
        const t = s.tool(it.rawItem.name), id = `${r.turn.id}/${it.rawItem.callId}`;
        const item = { id, tool_call_id: it.rawItem.callId, provider: t.provider, tool: t.name, kind: t.kind, risk: t.risk, description: t.description,
          input: JSON.parse(it.rawItem.arguments || "{}"), decision: "ask", decided_by: decide(s, t).by };
        const { decisions } = await host.permission({ call_context: s.callContext(r.turn.id), items: [item] });
        const d = (decisions || []).find((x) => x.plan_item_id === id);
        // A SESSION answer is the SDK's alwaysApprove/alwaysReject: kept in the run's context and applied by the SDK to the
        // tool's later calls in this run, which is this session (PA-18); a new session is a new run and asks again.
        const session = d?.scope === "SESSION";
        if (d?.decision === "ALLOW") result.state.approve(it, { alwaysApprove: session });
        else {
          if (session) r.denied.set(t.name, `denied by the user (frontend) for the session (${t.name})`);
          result.state.reject(it, { alwaysReject: session }); // the text comes from toolErrorFormatter, which also writes the row
        }
      }
      result = await runner.run(agent, result.state, options);
    }
    const text = typeof result.finalOutput === "string" ? result.finalOutput : "";
    res = await s.finish("completed", { role: "assistant", content: text ? [{ type: "text", text }] : [] });
  } catch (err) {
    if (signal.aborted || host.signal.aborted) res = await s.finish("cancelled", r.last);
    else if (err instanceof MaxTurnsExceededError) res = await s.finish("error_max_turns", undefined, err);
    else res = await s.finish("failed", undefined, err);
  } finally {
    live.delete(s.id);
    traced.delete(traceId);
  }
  // The totals cover the children too (RunSessionResult); the SDK adds a nested run's usage only to its trace spans.
  return { ...res, total_cost_usd: res.total_cost_usd + r.below.cost, total_input_tokens: res.total_input_tokens + r.below.input,
    total_output_tokens: res.total_output_tokens + r.below.output };
}

/** session/spawn: the child runs while the parent's spawn-capable call is in
 * flight, as the SDK runs an agent-as-tool (agent.mjs asTool: a new
 * Runner.run of the child agent under the tool call's signal, so cancelling
 * the parent cancels it). Its config is the parent's with the profile's
 * tools (narrowed by scoped_providers) and max_turns, the SDK's maxTurns.
 * The SDK has no depth budget, cost budget or cap on children at once, so
 * none is applied. @param {any} _host @param {any} p */
async function spawn(_host, p) {
  const parent = live.get(String(p.parent_session_id));
  if (!parent) throw new RPCError(UNKNOWN_SESSION, `unknown session ${p.parent_session_id}`);
  const call = parent.calls.get(String(p.call_id));
  if (!call) throw new RPCError(INVALID_PARAMS, `${p.call_id} is not a spawn-capable tool/invoke of session ${parent.s.id} in flight`);
  const cfg = parent.s.config, prof = (cfg.subagents?.profiles || []).find((x) => x.name === p.profile);
  if (!prof) throw new RPCError(INVALID_PARAMS, `no sub-agent profile named ${JSON.stringify(p.profile)}`);
  const scoped = p.scoped_providers?.length ? p.scoped_providers : null;
  const config = { ...cfg, profile: prof.name, tools: parent.all.filter((t) => (prof.tools || []).includes(t.name) && (!scoped || scoped.includes(t.provider))),
    bounds: { ...cfg.bounds, ...(prof.max_turns !== undefined ? { max_turns: prof.max_turns } : {}) } };
  const child = runAgent(parent.s.host, { session_id: `${parent.s.id}/c${++parent.kids}`, prompt: String(p.prompt ?? ""), config }, { r: parent, signal: call.signal });
  call.kids.push(child); // the spawning call waits for it (SA-04)
  const res = await child;
  parent.below.cost += res.total_cost_usd;
  parent.below.input += res.total_input_tokens;
  parent.below.output += res.total_output_tokens;
  return res;
}

/** The requirements whose verdict depends on this adapter's glue, not on
 * the framework (PROTOCOL.md §15): reports label them glue and count their
 * failures apart. Each reason says what the glue does and whether the
 * framework could. */
const glue = [
  { requirement: "TA-25", reason: "pricing is the glue's (the kit's price/charge): the Agents SDK has no pricing, and the glue checks no tiers when a session starts" },
  { requirement: "HD-16", reason: "hook configuration is the glue's (the kit's Session.dispatch): the Agents SDK has no hook plugins listing supported points, and the glue checks none when a session starts" },
  { requirement: "HD-13", reason: "the hook chains are dispatched by the kit's Session.dispatch from the Agents SDK's lifecycle events and tool guardrails, and it makes no hook_dispatch or hook_subscriber span; the Agents SDK's tracing could carry them" },
  { requirement: "PA-06", reason: "the read/interactive precheck is the glue's policy table (the Agents SDK has needsApproval, no policy rules)" },
  { requirement: "PA-09", reason: "the downgrade of an ask and its ask_downgrade event are the glue's policy table" },
  { requirement: "PA-10", reason: "the default by kind is the glue's policy table" },
  { requirement: "PA-14", reason: "the plan_item rows are events the glue writes: the Agents SDK has no plan rows" },
  { requirement: "HD-12", reason: "the plan_item rows and their decided_by are the glue's" },
  { requirement: "SA-08", reason: "session/cancel is routed by the glue (the Node kit): it reaches the sessions started by session/run, and a spawned child runs under its spawning call's signal with no handle of its own, so a cancel naming a child is not routed to it; the Agents SDK could cancel it alone (Runner.run takes a signal, and agent.asTool combines a configured one with the tool call's)" },
];

forwardSpans();
main({ info: () => ({ name: "openai-agents-js-run", version: "0.20.0", capabilities: ["done.terminal_tool"], readings: { "depth.meaning": "tree" }, glue }),
  run: (host, params) => runAgent(host, params), spawn });
