// The Agents SDK's own spans as trace/span: a trace processor (the SDK's
// TracingProcessor interface, installed with setTraceProcessors, which also
// keeps the default OpenAI exporter from sending anything) forwards every
// span the runner ends, with its session found by trace id. Roles map the
// SDK's span types: turn → turn, generation (the model's span, which the
// SDK's providers open around a call; model.mjs does the same) → model_call,
// function (one tool call) → tool_execution. The SDK has no span for a
// policy or approval step and none for a hook dispatch, so no span gets
// those roles; task, agent, guardrail and handoff spans have no conform role.
import { setTraceProcessors } from "@openai/agents";

/** trace id → the adapter's run state of the session it traces */
export const traced = new Map();

const roles = { turn: "turn", generation: "model_call", function: "tool_execution" };
const nanos = (/** @type {string | null} */ iso) => (iso ? Date.parse(iso) * 1e6 : 0); // the SDK stamps spans in ms

export function forwardSpans() {
  const nothing = async () => {};
  setTraceProcessors([{
    onTraceStart: nothing, onTraceEnd: nothing, onSpanStart: nothing, shutdown: nothing, forceFlush: nothing,
    async onSpanEnd(span) {
      const r = traced.get(span.traceId), d = span.spanData;
      if (!r) return;
      r.s.host.span({
        trace_id: span.traceId, span_id: span.spanId, ...(span.parentId ? { parent_span_id: span.parentId } : {}),
        name: d.name ? `${d.type} ${d.name}` : d.type, role: roles[d.type] ?? "", session_id: r.s.id, ...(r.turn ? { turn_id: r.turn.id } : {}),
        start_unix_nano: nanos(span.startedAt), end_unix_nano: nanos(span.endedAt), attributes: { "openai_agents.span_type": d.type },
      });
    },
  }]);
}
