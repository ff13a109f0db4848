// The kit's self-test: a scripted harness drives kernels built on the kit
// over in-memory streams (node --test). With CONFORM_KIT_TRANSCRIPT set, the
// kit appends every message it sends to that file, and nodekit_test.go
// validates each one against spec/wire's schemas.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { serve, Session, Cancelled, HookAbort, fold, misfit, price, toolResultOf, RPCError, PROCESS_CRASHED } from "./kit.mjs";
import { toyKernel } from "./toy.mjs";

/** A scripted harness: answer(msg) gives each kernel request its answer
 * ({result} or {error}), or undefined to hold it forever. */
function harness(kernel, answer = () => undefined) {
  const input = new PassThrough(), output = new PassThrough();
  const served = serve(kernel, { input, output });
  const seen = [], waiting = new Map();
  let nextId = 0, buf = "";
  output.on("data", (chunk) => {
    buf += chunk.toString();
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      seen.push(msg);
      if (msg.method && msg.id !== undefined) {
        Promise.resolve(answer(msg)).then((r) => r && input.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, ...r }) + "\n"));
      } else if (msg.id !== undefined) waiting.get(msg.id)?.(msg);
    }
  });
  const request = (method, params) => new Promise((resolve) => {
    const id = ++nextId;
    waiting.set(id, resolve);
    input.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  });
  const until = async (pred) => { for (let i = 0; i < 500 && !seen.some(pred); i++) await new Promise((r) => setTimeout(r, 10)); return seen.find(pred); };
  const init = () => request("initialize", { protocol_versions: ["conform.wire/v1"], harness: { name: "test", version: "0" } });
  return { input, seen, request, until, init, served, close: () => input.end() };
}

const tools = [
  { provider: "p", name: "lookup", description: "look up", kind: "data_source", risk: "low", input_schema: { type: "object" } },
  { provider: "p", name: "ask", description: "ask the user", kind: "interactive", risk: "low" },
  { provider: "p", name: "write", description: "write", kind: "resource", risk: "high" },
];
const config = (over = {}) => ({
  profile: "conform", working_directory: "/w", bounds: { max_turns: 5 }, telemetry: true, tools,
  hooks: { default_timeout_ms: 2000, subscribers: [] }, policy: { rules: [] },
  model: { name: "m", supports_tool_use: true, supports_parallel_tool_calls: true, pricing: { currency: "USD", tiers: [{ input_per_mtok: 1, output_per_mtok: 2 }] } },
  ...over,
});
const usage = { type: "usage", usage: { input_tokens: 100, output_tokens: 10 } };

test("a toy session: turn order, hooks, tools of every kind, costs", async () => {
  let streams = 0;
  const h = harness(toyKernel, (m) => {
    if (m.method === "model/stream") {
      return ++streams === 1
        ? { result: { events: [{ type: "tool_call", id: "c1", name: "lookup", input: { q: 1 } }, { type: "tool_call", id: "c2", name: "ask", input: {} },
          { type: "tool_call", id: "c3", name: "write", input: {} }, { type: "tool_call", id: "c4", name: "nope", input: {} }, usage, { type: "stop", stop_reason: "tool_use" }] } }
        : { result: { events: [{ type: "text_delta", text: "done" }, usage, { type: "stop", stop_reason: "end_turn" }] } };
    }
    if (m.method === "hook/dispatch") return m.params.mode === "veto" ? { result: { outcome: "veto", decision: "ALLOW" } } : { result: { outcome: "ack" } };
    if (m.method === "tool/invoke") return m.params.tool === "write" ? { error: { code: PROCESS_CRASHED, message: "crashed" } } : { result: { output: { ok: true } } };
    if (m.method === "frontend/interactive") return { result: { response: "yes" } };
    if (m.method === "context/assemble") return { result: { contributions: [{ source: "s", text: "ctx" }] } };
    return undefined;
  });
  assert.equal((await h.init()).result.protocol_version, "conform.wire/v1");
  const subscribers = ["session-start", "pre-model-call", "post-model-response", "pre-tool-call", "plan-ready", "post-tool-call", "post-apply", "session-end"]
    .map((point, i) => ({ id: `s${i}`, point, mode: point === "plan-ready" ? "veto" : "observe" }));
  const res = await h.request("session/run", { session_id: "r1", prompt: "hi", config: config({ hooks: { default_timeout_ms: 2000, subscribers } }) });
  assert.equal(res.result.status, "completed");
  assert.equal(res.result.turns, 2);
  assert.equal(res.result.total_input_tokens, 200);
  assert.deepEqual(res.result.final_message, { role: "assistant", content: [{ type: "text", text: "done" }] });
  const order = h.seen.filter((m) => m.method && m.method !== "event" && m.method !== "cost/usage").map((m) => m.params.point || m.params.tool || m.method);
  assert.deepEqual(order.slice(0, 16), ["session/meta", "session-start", "context/assemble", "pre-model-call", "model/stream", "post-model-response",
    "pre-tool-call", "pre-tool-call", "pre-tool-call", "lookup", "frontend/interactive", "plan-ready", "write", "post-tool-call", "post-tool-call", "post-tool-call"]);
  const second = h.seen.filter((m) => m.method === "model/stream")[1].params;
  assert.equal(second.assembled_context[0].text, "ctx");
  const results = second.messages[2].content;
  assert.deepEqual(results.map((b) => b.tool_use_id), ["c1", "c2", "c3", "c4"]);
  assert.equal(results[2].error_category, "process_crashed");
  assert.equal(results[3].error_category, "not_found");
  assert.equal(h.seen.filter((m) => m.method === "cost/usage").at(-1).params.session_total_usd, 0.00024);
  h.close();
  await h.served;
});

test("errors: a second initialize, an unknown method, spawn without sub-agents, a duplicate session", async () => {
  const h = harness(toyKernel);
  assert.equal((await h.request("session/run", { session_id: "x", prompt: "", config: config() })).error.code, -32600);
  await h.init();
  assert.equal((await h.init()).error.code, -32600);
  assert.equal((await h.request("nope/nope", {})).error.code, -32601);
  assert.equal((await h.request("session/spawn", { parent_session_id: "x", call_id: "c", profile: "p", prompt: "" })).error.code, -32601);
  assert.equal((await h.request("session/cancel", { session_id: "ghost" })).error.code, -32005);
  h.request("session/run", { session_id: "d", prompt: "", config: config() });
  assert.ok(await h.until((m) => m.method === "context/assemble")); // held: the session stays running
  assert.equal((await h.request("session/run", { session_id: "d", prompt: "", config: config() })).error.code, -32600);
  assert.equal((await h.request("session/continue", { session_id: "d", message: "go" })).error.code, -32602);
  const decided = await h.request("frontend/decide", { session_id: "d", connection: "second", decisions: [{ plan_item_id: "pi-1", decision: "ALLOW" }],
    interactive_responses: [{ call_id: "c9", response: "no" }] });
  assert.equal(decided.result.results[0].category, "INVALID_CLIENT_EVENT");
  assert.equal(decided.result.interactive_results[0].accepted, false);
  assert.ok(h.seen.some((m) => m.method === "event" && m.params.kind === "frontend_error"));
  assert.deepEqual((await h.request("shutdown")).result, {}); // cancels "d"
  await h.served;
  assert.ok(h.seen.some((m) => m.method === "$/cancelRequest"));
  assert.ok(h.seen.some((m) => m.result && m.result.status === "cancelled"));
  const v = harness(toyKernel);
  assert.equal((await v.request("initialize", { protocol_versions: ["conform.wire/v0"], harness: { name: "t", version: "0" } })).error.code, -32006);
  v.close();
});

test("initialize carries the kernel's glue list (PROTOCOL.md §15), and none when it has none", async () => {
  const glue = [{ requirement: "TA-25", reason: "pricing is the glue's" }];
  const h = harness({ ...toyKernel, info: () => ({ ...toyKernel.info(), glue }) });
  assert.deepEqual((await h.init()).result.glue, glue);
  h.close();
  const plain = harness(toyKernel);
  assert.equal((await plain.init()).result.glue, undefined);
  plain.close();
});

test("cancel: the calls in flight are abandoned, session-end still runs, the signal fires", async () => {
  let aborted = false;
  const kernel = { ...toyKernel, async run(host, params) { host.signal.addEventListener("abort", () => { aborted = true; }); return toyKernel.run(host, params); } };
  const h = harness(kernel, (m) => (m.method === "hook/dispatch" ? { result: { outcome: "ack" } } : m.method === "context/assemble" ? { result: { contributions: null } } : undefined)); // null: the schema lets the harness answer it
  await h.init();
  const run = h.request("session/run", { session_id: "c", prompt: "", config: config({ hooks: { default_timeout_ms: 100, subscribers: [{ id: "end", point: "session-end", mode: "observe" },
    { id: "zero", point: "session-start", mode: "observe", timeout_ms: 0 }] } }) });
  const stream = await h.until((m) => m.method === "model/stream");
  assert.deepEqual((await h.request("session/cancel", { session_id: "c" })).result, {});
  assert.equal((await run).result.status, "cancelled");
  assert.ok(h.seen.some((m) => m.method === "$/cancelRequest" && m.params.id === stream.id));
  assert.ok(h.seen.some((m) => m.method === "hook/dispatch" && m.params.point === "session-end"));
  // An own timeout_ms of 0 is not absent: announced as 0, not the default.
  assert.deepEqual(h.seen.filter((m) => m.method === "hook/dispatch").map((m) => [m.params.subscriber, m.params.timeout_ms]), [["zero", 0], ["end", 100]]);
  assert.equal(h.seen.filter((m) => m.method === "session/meta").at(-1).params.status, "cancelled");
  assert.ok(aborted);
  assert.deepEqual((await h.request("session/cancel", { session_id: "c" })).result, {}); // ended: {}
  h.close();
});

test("a call's own AbortSignal abandons it with $/cancelRequest and rejects with the reason", async () => {
  const h = harness({ info: () => ({ name: "t", version: "0" }), async run(host, params) {
    const s = new Session(host, params), ac = new AbortController();
    setTimeout(() => ac.abort(new Error("step timeout")), 20);
    await assert.rejects(host.stream({ call_context: s.callContext("t1"), purpose: "turn", model: "m", messages: [], tools: [], assembled_context: [], attempt: 1 }, ac.signal), /step timeout/);
    return s.finish("error_max_wall_clock");
  } });
  await h.init();
  assert.equal((await h.request("session/run", { session_id: "a", prompt: "", config: config() })).result.status, "error_max_wall_clock");
  const stream = h.seen.find((m) => m.method === "model/stream");
  assert.ok(h.seen.some((m) => m.method === "$/cancelRequest" && m.params.id === stream.id));
  h.close();
});

test("a Session's signal (a kernel's own cancel) abandons its calls, and none goes out after it fired; session-end still runs", async () => {
  const ac = new AbortController();
  const h = harness({ info: () => ({ name: "t", version: "0" }),
    cancel: () => ac.abort(new Cancelled()),
    async run(host, params) {
      const s = new Session(host, params, { signal: ac.signal });
      try {
        await s.start();
        await s.begin().model([], []);
        return s.finish("completed");
      } catch (err) {
        assert.ok(err instanceof Cancelled, `the abandoned stream rejects with the signal's reason, got ${err}`);
        await assert.rejects(s.begin().assemble([]), Cancelled); // after it fired: rejected, never sent
        return s.finish("cancelled");
      }
    } }, (m) => (m.method === "hook/dispatch" ? { result: { outcome: "ack" } } : m.method === "context/assemble" ? { result: { contributions: [] } } : undefined));
  await h.init();
  const run = h.request("session/run", { session_id: "k", prompt: "", config: config({ hooks: { default_timeout_ms: 100, subscribers: [{ id: "end", point: "session-end", mode: "observe" }] } }) });
  const stream = await h.until((m) => m.method === "model/stream");
  assert.deepEqual((await h.request("session/cancel", { session_id: "k" })).result, {});
  assert.equal((await run).result.status, "cancelled");
  assert.ok(h.seen.some((m) => m.method === "$/cancelRequest" && m.params.id === stream.id));
  assert.equal(h.seen.filter((m) => m.method === "context/assemble").length, 0);
  assert.ok(h.seen.some((m) => m.method === "hook/dispatch" && m.params.point === "session-end"));
  h.close();
});

test("Session.answerInteractive: another connection's first answer is the call's result and withdraws the frontend/interactive", async () => {
  /** @type {Session | undefined} */
  let session;
  const h = harness({ info: () => ({ name: "t", version: "0" }),
    async run(host, params) {
      session = new Session(host, params);
      const res = await session.begin().interactive({ type: "tool_use", id: "c1", name: "ask", input: {} });
      assert.equal(session.answerInteractive("c1", "too late"), false); // answered already
      return session.finish("completed", { role: "assistant", content: [{ type: "text", text: String(res.content) }] });
    } });
  await h.init();
  const run = h.request("session/run", { session_id: "i", prompt: "", config: config() });
  const ask = await h.until((m) => m.method === "frontend/interactive");
  assert.equal(session?.answerInteractive("nope", "x"), false);
  assert.equal(session?.answerInteractive("c1", "from the second screen"), true);
  assert.equal((await run).result.final_message.content[0].text, "from the second screen");
  assert.ok(h.seen.some((m) => m.method === "$/cancelRequest" && m.params.id === ask.id));
  h.close();
});

test("dispatch: a timed-out transform aborts its chain with a hook_error; a failing veto denies", async () => {
  const h = harness({ info: () => ({ name: "t", version: "0" }), async run(host, params) {
    const s = new Session(host, params);
    const veto = await s.dispatch("t1", { variant: "plan-ready", plan: { items: [] } });
    assert.equal(veto.denied, true);
    await assert.rejects(s.dispatch("t1", { variant: "pre-model-call", model: "m", messages: [], tools: [] }), HookAbort);
    return s.finish("failed", undefined, new Error("aborted"));
  } }, (m) => (m.params.point === "plan-ready" ? { error: { code: -32002, message: "scripted" } } : undefined));
  await h.init();
  const subscribers = [{ id: "v", point: "plan-ready", mode: "veto" }, { id: "slow", point: "pre-model-call", mode: "transform", timeout_ms: 30 }];
  const res = await h.request("session/run", { session_id: "h", prompt: "", config: config({ hooks: { default_timeout_ms: 1000, subscribers } }) });
  assert.equal(res.result.status, "failed");
  const cats = h.seen.filter((m) => m.params?.kind === "hook_error").map((m) => m.params.payload.category);
  assert.deepEqual(cats, ["VETO_FAILED", "TIMEOUT"]);
  assert.ok(h.seen.some((m) => m.method === "$/cancelRequest"));
  h.close();
});

test("helpers: fold, price tiers, tool results, hook answers", () => {
  const sent = { variant: "pre-model-call", model: "m", messages: [], tools: [] };
  assert.equal(misfit("transform", sent, { outcome: "transform", payload: { variant: "pre-model-call", model: "m" } }), ""); // [] echoed as absent
  assert.notEqual(misfit("transform", sent, { outcome: "transform", payload: { variant: "pre-model-call", model: "m!" } }), "");
  assert.notEqual(misfit("observe", sent, { outcome: "veto", decision: "ALLOW" }), "");
  const r = fold([{ type: "text_delta", text: "a" }, { type: "text_delta", text: "b" }, { type: "tool_call", id: "1", name: "t" }, usage, usage, { type: "stop", stop_reason: "tool_use" }]);
  assert.deepEqual(r.message.content, [{ type: "text", text: "ab" }, { type: "tool_use", id: "1", name: "t", input: {} }]);
  assert.equal(r.usage.input_tokens, 200);
  const tiers = { currency: "USD", tiers: [{ input_tokens_until: 1000, input_per_mtok: 1, output_per_mtok: 1 }, { input_tokens_from: 1000, input_per_mtok: 2, output_per_mtok: 2 }] };
  assert.deepEqual(price(tiers, { input_tokens: 1000, output_tokens: 0 }, Date.now()), [0.002, 1]);
  assert.throws(() => price({ currency: "USD", tiers: [] }, { input_tokens: 1, output_tokens: 0 }, Date.now()));
  assert.equal(toolResultOf({ output: "x" }).content, "x");
  assert.equal(toolResultOf(null, new RPCError(PROCESS_CRASHED, "gone")).error_category, "process_crashed");
  assert.equal(toolResultOf(null, new Cancelled()).error_category, "cancelled");
});

test("a config whose tools are null or left out offers none (SessionConfig.tools: array or null)", async () => {
  for (const tools of [null, undefined]) {
    const h = harness(toyKernel, (m) => {
      if (m.method === "model/stream") return { result: { events: [{ type: "text_delta", text: "ok" }, usage, { type: "stop", stop_reason: "end_turn" }] } };
      if (m.method === "context/assemble") return { result: { contributions: [] } };
      return undefined;
    });
    await h.init();
    const res = await h.request("session/run", { session_id: "n", prompt: "hi", config: config({ tools }) });
    assert.equal(res.result.status, "completed", `tools ${tools}`);
    assert.deepEqual(h.seen.find((m) => m.method === "model/stream").params.tools, [], `tools ${tools}`);
    h.close();
    await h.served;
  }
});

test("a kernel method that throws something other than an RPCError is answered -32603 {code, message}, and one that throws an RPCError with its code", async () => {
  const h = harness({ ...toyKernel, cancel(sid) { if (sid === "rpc") throw new RPCError(-32602, "no"); throw new Error("boom"); } });
  await h.init();
  const res = await h.request("session/cancel", { session_id: "ghost" });
  assert.equal(res.error.code, -32603);
  assert.match(res.error.message, /kernel error: boom/);
  assert.equal((await h.request("session/cancel", { session_id: "rpc" })).error.code, -32602);
  h.close();
  await h.served;
});

test("a loop with no context step: Session.begin then Turn.model sends an empty assembled_context", async () => {
  const kernel = {
    ...toyKernel,
    async run(host, params) {
      const s = new Session(host, params);
      await s.start();
      const turn = s.begin(); // no context/assemble
      const reply = await turn.model([{ role: "user", content: [{ type: "text", text: s.prompt }] }], s.toolSpecs());
      return s.finish("completed", reply.message);
    },
  };
  const h = harness(kernel, (m) => (m.method === "model/stream" ? { result: { events: [{ type: "text_delta", text: "ok" }, usage, { type: "stop", stop_reason: "end_turn" }] } } : undefined));
  await h.init();
  const res = await h.request("session/run", { session_id: "b", prompt: "hi", config: config() });
  assert.equal(res.result.status, "completed");
  assert.ok(!h.seen.some((m) => m.method === "context/assemble"));
  assert.deepEqual(h.seen.find((m) => m.method === "model/stream").params.assembled_context, []);
  h.close();
  await h.served;
});
