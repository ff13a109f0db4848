// A LanguageModelV4 (the language-model specification of @ai-sdk/provider)
// whose provider is the harness's model/stream: it does what a provider
// package does — convert the prompt and the offered tools, call, convert
// the answer, and throw APICallError for a failed call (isRetryable and a
// retry-after-ms header from the ModelError, which the AI SDK's own retry
// reads). Pricing is reported with cost/usage as the call is made.
import { APICallError } from "@ai-sdk/provider";
import { fold } from "../../node-kit/kit.mjs";

const finish = { tool_use: "tool-calls", end_turn: "stop", content_filtered: "content-filter", max_tokens: "length" };

/** The AI SDK's prompt (or ModelMessages) as conform messages. */
export function toWire(prompt, categories = new Map()) {
  const out = [];
  for (const m of prompt) {
    const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    const blocks = [];
    for (const p of parts) {
      if (p.type === "text") blocks.push({ type: "text", text: p.text });
      else if (p.type === "tool-call") blocks.push({ type: "tool_use", id: p.toolCallId, name: p.toolName, input: typeof p.input === "string" ? JSON.parse(p.input) : p.input ?? {} });
      else if (p.type === "tool-result") {
        const o = p.output, error = o.type.startsWith("error") || o.type === "execution-denied";
        const text = o.type === "execution-denied" ? `denied: ${o.reason ?? ""}` : typeof o.value === "string" ? o.value : JSON.stringify(o.value);
        const cat = categories.get(p.toolCallId) ?? (o.type === "execution-denied" ? "permission_denied" : undefined);
        blocks.push({ type: "tool_result", tool_use_id: p.toolCallId, content: text, ...(error ? { is_error: true } : {}), ...(error && cat ? { error_category: cat } : {}) });
      }
    }
    const role = m.role === "tool" ? "user" : m.role;
    if (role === "system" && out.length && out[out.length - 1].role === "system") out[out.length - 1].content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out;
}

/** conform messages as the AI SDK's ModelMessages (for a transform's answer). */
export function fromWire(messages) {
  return messages.map((m) => {
    const text = (b) => ({ type: "text", text: b.text ?? "" });
    if (m.role === "system") return { role: "system", content: m.content.map((b) => b.text ?? "").join("\n") };
    if (m.role === "assistant") return { role: "assistant", content: m.content.map((b) => (b.type === "tool_use" ? { type: "tool-call", toolCallId: b.id, toolName: b.name, input: b.input ?? {} } : text(b))) };
    const results = m.content.filter((b) => b.type === "tool_result");
    if (results.length) {
      return { role: "tool", content: results.map((b) => ({ type: "tool-result", toolCallId: b.tool_use_id, toolName: "", output: { type: b.is_error ? "error-text" : "text", value: b.content ?? "" } })) };
    }
    return { role: "user", content: m.content.map(text) };
  });
}

/** @param {import("./adapter.mjs").Run} run */
export function conformModel(run) {
  const s = run.s, name = s.config.model.name;
  return {
    specificationVersion: "v4", provider: "conform", modelId: name, supportedUrls: {},
    async doGenerate(options) {
      const turn = run.turn;
      const attempt = ++run.attempt;
      const res = await s.host.stream({
        call_context: s.callContext(turn.id), purpose: "turn", model: name, messages: toWire(options.prompt, run.categories),
        tools: (options.tools || []).map((t) => ({ name: t.name, description: t.description || "", input_schema: t.inputSchema })),
        assembled_context: turn.contributions, attempt,
      }, options.abortSignal);
      const r = fold(res.events);
      for (const ev of res.events || []) if (ev.type === "usage" && ev.usage) r.costUSD += s.charge(turn.id, ev.usage);
      run.reply = r;
      if (r.error) {
        throw new APICallError({ message: `${r.error.category}: ${r.error.message}`, url: "conform:model/stream", requestBodyValues: {},
          isRetryable: r.error.retryable, data: r.error,
          responseHeaders: r.error.retry_after_ms !== undefined ? { "retry-after-ms": String(r.error.retry_after_ms) } : undefined });
      }
      const content = [...(r.text ? [{ type: "text", text: r.text }] : []),
        ...r.calls.map((c) => ({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: JSON.stringify(c.input ?? {}) }))];
      const u = r.usage;
      return {
        content, warnings: [],
        finishReason: { unified: finish[r.stopReason] ?? (r.calls.length ? "tool-calls" : "other"), raw: r.stopReason },
        usage: { inputTokens: { total: u.input_tokens + (u.cache_read_tokens ?? 0), noCache: u.input_tokens, cacheRead: u.cache_read_tokens, cacheWrite: u.cache_write_tokens },
          outputTokens: { total: u.output_tokens, text: undefined, reasoning: u.reasoning_tokens } },
      };
    },
    async doStream() { throw new Error("this adapter drives generateText: doStream is not used"); },
  };
}
