// The Vercel AI SDK's agent loop (generateText with tools, ai 7.x) as a
// conform kernel on the Node kit. generateText runs its own steps; its model
// is the harness's model/stream (model.mjs), its tools are the harness's
// tool/invoke, its own callbacks are the hook points, and its telemetry
// spans go out as trace/span (trace.mjs). What the glue adds is listed in
// README.md.
import { generateText, tool, jsonSchema, stepCountIs, hasToolCall } from "ai";
import { main, Session, Cancelled, outputText, toolResultOf } from "../../node-kit/kit.mjs";
import { conformModel, toWire, fromWire } from "./model.mjs";
import { traced } from "./trace.mjs";

/** @typedef {{s: Session, turn: any, attempt: number, reply: any, categories: Map<string, string>, plan: any[]}} Run */

/** The profile's first matching policy rule, as the framework's approval
 * function sees a call (the AI SDK has approvals, not rules). */
const rule = (s, t) => (s.config.policy.rules || []).find((r) => (!r.provider || r.provider === t.provider) && (!r.tool || r.tool === t.name) && (!r.kind || r.kind === t.kind));

/** The policy's decision on a call: its first matching rule, else the
 * specification's default (PA-10: a resource call asks, a read or an
 * interactive call is allowed). Glue: the AI SDK has no policy rules. */
const decide = (s, t) => { const r = rule(s, t); return r ? { decision: r.decision, by: r.name } : { decision: t.kind === "resource" ? "ask" : "allow", by: "default" }; };

function tools(run) {
  const s = run.s, set = {};
  for (const t of s.config.tools || []) {
    set[t.name] = tool({
      description: t.description, inputSchema: jsonSchema(t.input_schema || { type: "object" }),
      async execute(input, { toolCallId, abortSignal }) {
        const call_context = s.callContext(run.turn.id);
        if (t.kind === "interactive") {
          return (await s.host.interactive({ call_context, call_id: toolCallId, tool_name: t.name, prompt: t.description, input }, abortSignal)).response;
        }
        let r;
        try { r = toolResultOf(await s.host.invoke({ call_context, call_id: toolCallId, provider: t.provider, tool: t.name, input, attempt: 1 }, abortSignal)); } catch (err) {
          if (err instanceof Cancelled) throw err;
          r = toolResultOf(null, err);
        }
        if (!r.is_error) return r.content;
        if (r.error_category) run.categories.set(toolCallId, r.error_category);
        throw new Error(r.content); // the AI SDK's way for a tool to fail: an error-text result
      },
    });
  }
  return set;
}

/** toolApproval: the AI SDK's per-call approval function (generate-text.ts
 * calls it for every tool call before execution; a "denied" answer becomes
 * the call's tool-result with the reason, never an execute). The profile's
 * policy, the user's permission and the plan-ready veto chain go here. */
async function approve(run, { toolCall }) {
  const s = run.s, t = s.tool(toolCall.toolName);
  if (!t) return "not-applicable";
  const { decision, by } = decide(s, t);
  if (t.kind !== "resource") { // the read/interactive precheck (PA-06): allow or deny, an ask is downgraded (PA-09)
    if (decision === "deny") return { type: "denied", reason: `denied by policy rule ${by}` };
    if (decision === "ask") {
      s.event(run.turn.id, "ask_downgrade", { call_id: toolCall.toolCallId, tool: t.name, kind: t.kind, rule: by });
      return { type: "denied", reason: `ask downgraded to deny by policy rule ${by}: a ${t.kind} call is never asked about` };
    }
    return "not-applicable";
  }
  const item = { id: `${run.turn.id}/${toolCall.toolCallId}`, tool_call_id: toolCall.toolCallId, provider: t.provider, tool: t.name, kind: t.kind,
    risk: t.risk, description: t.description, input: toolCall.input ?? null, decision, decided_by: by };
  run.plan.push(item);
  s.event(run.turn.id, "plan_item", { ...item, turn_id: run.turn.id });
  if (decision === "deny") return { type: "denied", reason: `denied by policy rule ${by}` };
  if (decision === "ask") {
    const { decisions } = await s.host.permission({ call_context: s.callContext(run.turn.id), items: [item] });
    if ((decisions || []).find((d) => d.plan_item_id === item.id)?.decision !== "ALLOW") return { type: "denied", reason: "denied by the user" };
  }
  const veto = await s.dispatch(run.turn.id, { variant: "plan-ready", plan: { items: [item] } });
  return veto.denied ? { type: "denied", reason: `denied by ${veto.by}: ${veto.reason}` } : "approved";
}

const hookCall = (s, tc) => { const t = s.tool(tc.toolName); return { id: tc.toolCallId, name: tc.toolName, provider: t?.provider ?? "", kind: t?.kind ?? "data_source", input: tc.input ?? null }; };

async function run(host, params) {
  const s = new Session(host, params), cfg = s.config;
  /** @type {Run} */
  const r = { s, turn: null, attempt: 0, reply: null, categories: new Map(), plan: [] };
  const maxTurns = cfg.bounds.max_turns, terminal = (cfg.tools || []).filter((t) => t.terminates_turn).map((t) => t.name);
  let result;
  try {
    const call = () => generateText({
      model: conformModel(r), prompt: s.prompt, tools: tools(r), abortSignal: host.signal,
      telemetry: { isEnabled: !!cfg.telemetry }, // the AI SDK's spans, on its tracing channel (trace.mjs)
      stopWhen: [stepCountIs(maxTurns ?? 20), hasToolCall(...terminal)], // the AI SDK's step limit (its own default is 1 step) and its stop-on-tool
      ...(cfg.plan_mode ? { activeTools: (cfg.tools || []).filter((t) => t.kind !== "resource").map((t) => t.name) } : {}),
      ...(cfg.model.supports_parallel_tool_calls ? {} : { toolCallConcurrency: 1 }),
      ...(cfg.retry?.max_retries !== undefined ? { maxRetries: cfg.retry.max_retries } : {}),
      ...(cfg.bounds.max_wall_clock_s !== undefined ? { timeout: { totalMs: cfg.bounds.max_wall_clock_s * 1000 } } : {}),
      toolApproval: (opts) => approve(r, opts),
      onStart: () => s.start(),
      async prepareStep({ messages }) { // once per step, before its model call: the step's context and its pre-model-call hooks
        r.turn = s.begin();
        r.attempt = 0;
        r.plan = [];
        const history = toWire(messages, r.categories);
        await r.turn.assemble(history);
        const pre = await s.dispatch(r.turn.id, { variant: "pre-model-call", model: cfg.model.name, messages: history, tools: s.toolSpecs() });
        return pre.payload.messages === history ? undefined : { messages: fromWire(pre.payload.messages || []) };
      },
      async onLanguageModelCallEnd() {
        const x = r.reply;
        await s.dispatch(r.turn.id, { variant: "post-model-response", message: x.message, usage: x.usage, cost_usd: x.costUSD, ...(x.stopReason ? { stop_reason: x.stopReason } : {}) });
      },
      async onStepError() {
        const x = r.reply;
        if (x?.error) s.event(r.turn.id, "model_error", { ...x.error });
        if (x?.error) await s.dispatch(r.turn.id, { variant: "post-model-response", message: x.message, usage: x.usage, cost_usd: x.costUSD, error: x.error });
      },
      onToolExecutionStart: ({ toolCall }) => s.dispatch(r.turn.id, { variant: "pre-tool-call", call: hookCall(s, toolCall) }),
      async onToolExecutionEnd({ toolCall, toolOutput }) {
        const failed = toolOutput.type === "tool-error";
        const content = failed ? String(toolOutput.error?.message ?? toolOutput.error) : outputText(toolOutput.output);
        const cat = r.categories.get(toolCall.toolCallId);
        await s.dispatch(r.turn.id, { variant: "post-tool-call", call: hookCall(s, toolCall), result: { content, ...(failed ? { is_error: true } : {}), ...(failed && cat ? { error_category: cat } : {}) } });
      },
      async onStepEnd(step) {
        if (step.finishReason === "content-filter") s.event(r.turn.id, "content_filtered", { stop_reason: "content_filtered" }); // the framework's own distinct finish reason
        if (step.toolCalls?.length) await s.dispatch(r.turn.id, { variant: "post-apply", plan: { items: r.plan.filter((i) => i.decision !== "deny") } });
      },
    });
    result = await (cfg.telemetry ? traced(r, call) : call());
  } catch (err) {
    if (host.signal.aborted) return s.finish("cancelled");
    if (err?.name === "TimeoutError" || err?.cause?.name === "TimeoutError") return s.finish("error_max_wall_clock", undefined, err); // the AI SDK's totalMs timeout
    return s.finish("failed", undefined, err);
  }
  const final = { role: "assistant", content: result.text ? [{ type: "text", text: result.text }] : [] };
  const capped = maxTurns !== undefined && result.steps.length >= maxTurns && result.finishReason === "tool-calls";
  return s.finish(capped ? "error_max_turns" : "completed", final);
}

/** The requirements whose verdict depends on this adapter's glue, not on
 * the framework (PROTOCOL.md §15): reports label them glue and count their
 * failures apart. Each reason says what the glue does and whether the
 * framework could. */
const glue = [
  { requirement: "TA-25", reason: "pricing is the glue's (the kit's price/charge): the AI SDK has no pricing, and the glue checks no tiers when a session starts" },
  { requirement: "HD-16", reason: "hook configuration is the glue's (the kit's Session.dispatch): the AI SDK has no hook plugins listing supported points, and the glue checks none when a session starts" },
  { requirement: "ER-05", reason: "refusing an incomplete retry block is config validation the glue does not do: the AI SDK takes one maxRetries number and no backoff settings, so there is nothing of its own to refuse it with; the glue could check the block when a session starts" },
  { requirement: "HD-13", reason: "the hook chains are dispatched by the kit's Session.dispatch from the AI SDK's callbacks, and it makes no hook_dispatch or hook_subscriber span; the AI SDK's tracing could carry them" },
  { requirement: "PA-06", reason: "the read/interactive precheck is the glue's policy table (the AI SDK has an approval function (toolApproval), no policy rules)" },
  { requirement: "PA-09", reason: "the downgrade of an ask and its ask_downgrade event are the glue's policy table" },
  { requirement: "PA-10", reason: "the default by kind is the glue's policy table" },
  { requirement: "PA-14", reason: "the plan_item rows are events the glue writes: the AI SDK has no plan rows" },
  { requirement: "HD-12", reason: "the plan_item rows and their decided_by are the glue's" },
];

main({
  info: () => ({ name: "vercel-ai-sdk-generateText", version: "7.0.173", capabilities: ["bound.max_wall_clock_s", "done.terminal_tool"], glue }),
  run,
});
