// The AI SDK's own spans as trace/span. ai 7 traces every generateText
// call, step, language-model call and tool execution on Node's tracing
// channel "ai:telemetry" (node_modules/ai/dist/index.js 4204, 4300: its
// telemetry, on unless telemetry.isEnabled is false), so a subscriber from
// Node's standard library sees them: no OpenTelemetry package is needed.
// The session a span belongs to, and its parent span, come from an
// AsyncLocalStorage bound to the channel's start event. Roles map the AI
// SDK's span types: generateText → session (one call per session here),
// step → turn, languageModelCall → model_call, executeTool →
// tool_execution. The AI SDK has no span for the approval of a call
// (toolApproval) and none for a callback, so no span gets the roles
// policy_chain, hook_dispatch or hook_subscriber.
import { tracingChannel } from "node:diagnostics_channel";
import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";

const roles = { generateText: "session", step: "turn", languageModelCall: "model_call", executeTool: "tool_execution" };
const current = new AsyncLocalStorage();
const open = new WeakMap(); // the channel's message of a span → the span so far
const channel = tracingChannel("ai:telemetry");
const id = (/** @type {number} */ n) => randomBytes(n).toString("hex");

channel.start.bindStore(current, (msg) => {
  const up = current.getStore();
  if (!up) return up; // not a traced session (telemetry off)
  const span = { r: up.r, trace: up.trace, id: id(8), parent: up.span?.id, start: Date.now() * 1e6 };
  open.set(msg, span);
  return { ...up, span };
});
channel.subscribe({
  start() {}, end() {}, asyncStart() {}, error() {},
  asyncEnd(/** @type {any} */ msg) {
    const sp = open.get(msg);
    if (!sp) return;
    open.delete(msg);
    const role = roles[msg.type] ?? "", tool = msg.type === "executeTool" ? msg.event?.toolCall?.toolName : undefined;
    sp.r.s.host.span({ trace_id: sp.trace, span_id: sp.id, ...(sp.parent ? { parent_span_id: sp.parent } : {}), name: `ai.${msg.type}${tool ? ` ${tool}` : ""}`, role,
      session_id: sp.r.s.id, ...(role !== "session" && sp.r.turn ? { turn_id: sp.r.turn.id } : {}), start_unix_nano: sp.start, end_unix_nano: Date.now() * 1e6,
      attributes: { "ai.telemetry.type": msg.type } });
  },
});

/** Runs fn with the session's spans forwarded (r: the adapter's run state). @template T @param {any} r @param {() => Promise<T>} fn */
export const traced = (r, fn) => current.run({ r, trace: id(16), span: undefined }, fn);
