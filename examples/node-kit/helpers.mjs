// The conversions of PROTOCOL.md §7.4 and §8.2 that every kernel needs:
// fold (a model stream into a message), outputText, toolResultOf and
// resultBlock (a tool outcome into a tool_result), price (a usage event's
// cost and tier), and misfit (whether a hook answer fits its mode, §7.2).
import { RPCError, Cancelled, CallTimeout, ProtocolViolation, PROCESS_CRASHED, PRODUCER } from "./conn.mjs";

/** @typedef {import("./wire.js").JSONObject} JSONObject
 * @typedef {import("./wire.js").Message} Message
 * @typedef {import("./wire.js").HookPayload} HookPayload
 * @typedef {import("./wire.js").ToolResult} ToolResult
 * @typedef {import("./wire.js").ContentBlock} ContentBlock
 * @typedef {import("./wire.js").Usage} Usage
 * @typedef {import("./wire.js").ModelError} ModelError
 * @typedef {import("./wire.js").Status} Status */

/** A transform subscriber failed, which aborts its chain (§7.2);
 * Session.dispatch has reported it with a hook_error event already. */
export class HookAbort extends Error {
  /** @param {string} point @param {string} subscriber @param {string} category @param {string} reason */
  constructor(point, subscriber, category, reason) {
    super(`transform subscriber ${subscriber} at ${point} failed (${category}): ${reason}`);
    Object.assign(this, { point, subscriber, category, reason });
  }
}

/** A model call whose stream ended with an error event. Turn.model does
 * not retry: retrying is a loop's policy. */
export class ModelFailure extends Error {
  /** @param {ModelError} error */
  constructor(error) { super(`model error ${error.category}: ${error.message}`); this.error = error; }
}

export const nowRFC3339 = () => new Date().toISOString();

/** A tool output as tool_result content (§7.4): a string as itself,
 * anything else as compact JSON, nothing as "". @param {any} output */
export const outputText = (output) => (output === undefined || output === null ? "" : typeof output === "string" ? output : JSON.stringify(output));

/** A call's result from its tool/invoke outcome: the output as text with
 * is_error and error_category carried over; a crashed provider a
 * process_crashed error result the kernel builds itself; a cancelled call a
 * cancelled one; any other failure execution_failed.
 * @param {import("./wire.js").InvokeResult | null} result @param {unknown} [error] @returns {ToolResult} */
export function toolResultOf(result, error) {
  if (!error) {
    /** @type {ToolResult} */
    const out = { content: outputText(result && result.output) };
    if (result && result.is_error) out.is_error = true;
    if (result && result.error_category) out.error_category = result.error_category;
    return out;
  }
  /** @type {import("./wire.js").ToolErrorCategory} */
  let category = "execution_failed";
  if (error instanceof RPCError && error.code === PROCESS_CRASHED) category = "process_crashed";
  else if (error instanceof Cancelled || error instanceof CallTimeout) category = "cancelled";
  return { content: `${category}: ${error instanceof Error ? error.message : String(error)}`, is_error: true, error_category: category };
}

/** The tool_result block of one call. @param {string} callId @param {ToolResult} r @returns {ContentBlock} */
export function resultBlock(callId, r) {
  /** @type {ContentBlock} */
  const b = { type: "tool_result", tool_use_id: callId, content: r.content || "" };
  if (r.is_error) b.is_error = true;
  if (r.error_category) b.error_category = r.error_category;
  return b;
}

/** Reads a stream: text deltas joined, tool calls as tool_use blocks,
 * usage events added up, the stop reason and the error.
 * @param {import("./wire.js").StreamEvent[] | null} events */
export function fold(events) {
  let text = "", stop = "";
  /** @type {ContentBlock[]} */
  const calls = [];
  /** @type {Usage & {[k: string]: number}} */
  const usage = { input_tokens: 0, output_tokens: 0 };
  /** @type {ModelError | undefined} */
  let error;
  for (const ev of events || []) {
    if (ev.type === "text_delta") text += ev.text || "";
    else if (ev.type === "tool_call") calls.push({ type: "tool_use", id: ev.id || "", name: ev.name || "", input: ev.input || {} });
    else if (ev.type === "usage" && ev.usage) for (const [k, v] of Object.entries(ev.usage)) usage[k] = (usage[k] || 0) + Number(v || 0);
    else if (ev.type === "stop") stop = ev.stop_reason || "";
    else if (ev.type === "error") error = ev.error;
  }
  /** @type {Message} */
  const message = { role: "assistant", content: [...(text ? [{ type: /** @type {const} */ ("text"), text }] : []), ...calls] };
  return { message, text, calls, usage, stopReason: stop, error, costUSD: 0 };
}

/** The cost of one usage event and the index of the tier that prices it:
 * the one tier whose time and input-token windows hold it (§8.2). Throws
 * when none or several do.
 * @param {import("./wire.js").Pricing} pricing @param {Usage} usage @param {number} atMs @returns {[number, number]} */
export function price(pricing, usage, atMs) {
  if (pricing.free) return [0, 0];
  const n = usage.input_tokens || 0, tiers = pricing.tiers || [];
  const found = tiers.flatMap((t, i) => {
    if (t.effective_from && atMs < Date.parse(t.effective_from)) return [];
    if (t.effective_until && atMs >= Date.parse(t.effective_until)) return [];
    if (n < (t.input_tokens_from || 0)) return [];
    if (t.input_tokens_until !== undefined && n >= t.input_tokens_until) return [];
    return [i];
  });
  if (found.length !== 1) throw new Error(`${found.length} pricing tiers match input_tokens=${n}`);
  const t = tiers[found[0]];
  const per = (/** @type {number | undefined} */ count, /** @type {number | undefined} */ rate) => ((count || 0) * (rate || 0)) / 1e6;
  const usd = per(usage.input_tokens, t.input_per_mtok) + per(usage.output_tokens, t.output_per_mtok) +
    per(usage.cache_read_tokens, t.cache_read_per_mtok) + per(usage.cache_write_tokens, t.cache_write_per_mtok) +
    per(usage.reasoning_tokens, t.output_per_mtok);
  return [usd, found[0]];
}

/** Why a hook answer does not fit the subscriber's mode ("" when it does).
 * @param {string} mode @param {HookPayload} sent @param {import("./wire.js").HookResult} answer */
function misfit(mode, sent, answer) {
  const outcome = answer.outcome;
  if (mode === "observe") return outcome === "ack" ? "" : `an observer answered ${outcome}`;
  if (mode === "veto") {
    return outcome === "veto" && (answer.decision === "ALLOW" || answer.decision === "DENY") ? "" : `a veto subscriber answered ${outcome} ${answer.decision}`;
  }
  const got = answer.payload;
  if (outcome !== "transform" || !got || typeof got !== "object") return `a transform subscriber answered ${outcome} without a payload`;
  if (got.variant !== sent.variant) return `the payload's variant changed from ${sent.variant} to ${got.variant}`;
  const strip = (/** @type {any} */ p) => { const c = { ...p }; if (sent.variant === "pre-model-call") delete c.messages; return canonical(c); };
  return strip(sent) === strip(got) ? "" : "the transform changed a field it may not change";
}

/** Absent, null and [] are one value in an optional field (PROTOCOL.md §3),
 * and a harness's echo may spell it either way. @param {any} x */
const absent = (x) => x === undefined || x === null || (Array.isArray(x) && x.length === 0);

/** JSON with sorted keys and absent fields dropped, to compare payloads.
 * @param {any} v @returns {string} */
const canonical = (v) => (Array.isArray(v) ? `[${v.map(canonical).join(",")}]`
  : v && typeof v === "object" ? `{${Object.keys(v).filter((k) => !absent(v[k])).sort().map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",")}}`
    : JSON.stringify(v));

export { misfit };
