// A Model of @openai/agents-core (the Agents SDK's provider interface)
// whose provider is the harness's model/stream: it converts the runner's
// input items and tools to the wire and the answer back to output items,
// prices usage with cost/usage, and for a failed call throws, with
// getRetryAdvice telling the runner's own retry policy whether and when a
// retry makes sense (the ModelError's retryable and retry_after_ms).
import { Usage, withGenerationSpan } from "@openai/agents";
import { fold } from "../../node-kit/kit.mjs";

const text = (c) => (typeof c === "string" ? c : (c || []).map((p) => p.text ?? "").join(""));

/** The runner's input items as conform messages. */
export function toWire(items, system) {
  const out = system ? [{ role: "system", content: [{ type: "text", text: system }] }] : [];
  const push = (role, block) => { // calls join their assistant message, results share one user message; a text is a message of its own
    const last = out[out.length - 1];
    const joins = last && last.role === role && (block.type === "tool_use" || (block.type === "tool_result" && last.content.every((b) => b.type === "tool_result")));
    if (joins) last.content.push(block);
    else out.push({ role, content: [block] });
  };
  for (const it of typeof items === "string" ? [{ role: "user", content: items }] : items) {
    if (it.type === "function_call") push("assistant", { type: "tool_use", id: it.callId, name: it.name, input: JSON.parse(it.arguments || "{}") });
    else if (it.type === "function_call_result") push("user", { type: "tool_result", tool_use_id: it.callId, content: typeof it.output === "string" ? it.output : it.output?.text ?? JSON.stringify(it.output) });
    else if (it.role === "user" || it.role === "assistant" || it.role === "system") {
      const t = text(it.content);
      if (t || it.role !== "assistant") push(it.role, { type: "text", text: t });
    }
  }
  return out;
}

/** conform messages as input items (for a transform's answer). */
export function fromWire(messages) {
  const items = [];
  for (const m of messages) {
    for (const b of m.content || []) {
      if (b.type === "tool_use") items.push({ type: "function_call", callId: b.id, name: b.name, arguments: JSON.stringify(b.input ?? {}), status: "completed" });
      else if (b.type === "tool_result") items.push({ type: "function_call_result", callId: b.tool_use_id, name: "", status: "completed", output: { type: "text", text: b.content ?? "" } });
      else if (m.role === "assistant") items.push({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: b.text ?? "" }] });
      else items.push({ role: m.role, content: b.text ?? "" });
    }
  }
  return items;
}

class ModelFailed extends Error {
  constructor(e) { super(`${e.category}: ${e.message}`); this.modelError = e; }
}

/** @param {any} run the adapter's per-session state */
export function conformModel(run) {
  const s = run.s, name = s.config.model.name;
  return {
    async getResponse(req) { // the span the SDK's own providers open around a call (openaiChatCompletionsModel.mjs:46)
      return req.tracing ? withGenerationSpan(async (span) => { span.spanData.model = name; return this.call(req); }, undefined, req._internal?.tracingParent) : this.call(req);
    },
    async call(req) {
      const turn = run.turn, attempt = ++run.attempt;
      const res = await s.host.stream({
        call_context: s.callContext(turn.id), purpose: "turn", model: name, messages: toWire(req.input, req.systemInstructions),
        tools: req.tools.filter((t) => t.type === "function").map((t) => ({ name: t.name, description: t.description || "", input_schema: t.parameters })),
        assembled_context: turn.contributions, attempt,
      }, req.signal);
      const r = fold(res.events);
      for (const c of r.calls) run.inputs?.set(c.id, c.input ?? null); // a call's input, for a plan row the SDK's own rejection leaves to the glue
      run.last = r.text ? { role: "assistant", content: [{ type: "text", text: r.text }] } : run.last; // kept for a cancelled session's end row
      for (const ev of res.events || []) if (ev.type === "usage" && ev.usage) r.costUSD += s.charge(turn.id, ev.usage);
      if (r.error) {
        s.event(turn.id, "model_error", { ...r.error });
        throw new ModelFailed(r.error);
      }
      const output = [...(r.text ? [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: r.text }] }] : []),
        ...r.calls.map((c) => ({ type: "function_call", callId: c.id, name: c.name, arguments: JSON.stringify(c.input ?? {}), status: "completed" }))];
      if (r.stopReason === "content_filtered") s.event(turn.id, "content_filtered", { stop_reason: r.stopReason });
      return { output, usage: new Usage({ requests: 1, inputTokens: r.usage.input_tokens, outputTokens: r.usage.output_tokens, totalTokens: r.usage.input_tokens + r.usage.output_tokens }) };
    },
    getRetryAdvice({ error }) {
      const e = error?.modelError;
      return e ? { suggested: e.retryable, ...(e.retry_after_ms !== undefined ? { retryAfterMs: e.retry_after_ms } : {}) } : undefined;
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() { throw new Error("this adapter drives run() without streaming"); },
  };
}
