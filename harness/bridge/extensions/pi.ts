// conform's MCP client for pi (@mariozechner/pi-coding-agent), which has no
// MCP client by design: tools reach pi only from its built-ins or from
// extensions. Written by conform's bridge for a profile whose mcp_extension
// is "pi" and loaded with `pi -e {mcp_extension}`: at start it lists the
// bridge's MCP tools (Streamable HTTP at {mcp_url}) and registers each as a
// pi tool named conform__NAME whose execute calls it. It is glue, not pi:
// how pi schedules, validates and reports those calls is pi's own.
//
// With the profile's hooks "pi" it also relays pi's hook system, its
// extension events (session_start, tool_call, tool_result,
// session_shutdown), to the bridge's hook endpoint {hook_url}, and does
// what the chain decided through pi's own means: a deny blocks the call
// (tool_call) or replaces its result (tool_result), an abort also aborts
// the run.
//
// Hand-written rather than the MCP TypeScript SDK: the extension runs from
// the scratch folder, where no npm package can be installed offline, and
// it needs four requests of the protocol.

const MCP_URL = "{mcp_url}";
const PREFIX = "conform__";
const PROTOCOL = "2025-06-18";
const HOOK_URL = "{hook_url}";
const RELAY_HOOKS = "{hooks}" === "pi";

let sessionID: string | undefined = undefined;
let nextID = 1;

// One JSON-RPC request; the answer is JSON or an SSE stream whose event
// carrying our id is the answer (progress notifications may come first).
async function rpc(method: string, params: unknown, signal?: AbortSignal): Promise<any> {
	const id = nextID++;
	const res = await post({ jsonrpc: "2.0", id: id, method: method, params: params }, signal);
	const text = await res.text();
	if (!res.ok) {
		throw new Error(`conform MCP ${method}: HTTP ${res.status}: ${text.slice(0, 500)}`);
	}
	const messages = (res.headers.get("content-type") ?? "").includes("text/event-stream") ? events(text) : [JSON.parse(text)];
	const answer = messages.find((m) => m && m.id === id);
	if (!answer) {
		throw new Error(`conform MCP ${method}: no answer to request ${id}`);
	}
	if (answer.error) {
		throw new Error(`conform MCP ${method}: ${answer.error.message}`);
	}
	return answer.result;
}

async function notify(method: string, params: unknown): Promise<void> {
	const res = await post({ jsonrpc: "2.0", method: method, params: params });
	await res.text();
}

async function post(body: unknown, signal?: AbortSignal): Promise<Response> {
	const headers: Record<string, string> = {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		"mcp-protocol-version": PROTOCOL,
	};
	if (sessionID !== undefined) {
		headers["mcp-session-id"] = sessionID;
	}
	const res = await fetch(MCP_URL, { method: "POST", headers: headers, body: JSON.stringify(body), signal: signal });
	const sid = res.headers.get("mcp-session-id");
	if (sid) {
		sessionID = sid;
	}
	return res;
}

// events parses an SSE body: each event's data lines joined.
function events(sse: string): any[] {
	const out: any[] = [];
	for (const block of sse.split(/\r?\n\r?\n/)) {
		const data = block
			.split(/\r?\n/)
			.filter((l) => l.startsWith("data:"))
			.map((l) => l.slice(5).replace(/^ /, ""))
			.join("\n");
		if (data !== "") {
			out.push(JSON.parse(data));
		}
	}
	return out;
}

// relay posts one hook event as the relay command would (hookrelay's
// envelope) and returns the chain's decision. A relay that cannot be had
// fails closed at tool_call, which gates a call, and open elsewhere, as
// the relay command does.
async function relay(event: string, input: Record<string, unknown>): Promise<{ outcome?: string; reason?: string }> {
	try {
		const res = await fetch(HOOK_URL, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ agent: "pi", event: event, input: input }),
		});
		const text = await res.text();
		if (!res.ok) {
			throw new Error(`HTTP ${res.status}: ${text.slice(0, 500)}`);
		}
		return JSON.parse(text);
	} catch (err) {
		const reason = `conform hook relay: ${err instanceof Error ? err.message : String(err)}`;
		return event === "tool_call" ? { outcome: "deny", reason: reason + " (failing closed: tool_call is blocked)" } : { outcome: "allow", reason: reason };
	}
}

function relayHooks(pi: any) {
	pi.on("session_start", async () => {
		await relay("session_start", {});
	});
	pi.on("session_shutdown", async () => {
		await relay("session_shutdown", {});
	});
	pi.on("tool_call", async (event: any, ctx: any) => {
		const d = await relay("tool_call", { tool_name: event.toolName, tool_use_id: event.toolCallId, tool_input: event.input });
		switch (d.outcome) {
			case "deny":
				return { block: true, reason: d.reason || "denied by a conform hook subscriber" };
			case "abort":
				ctx.abort();
				return { block: true, reason: d.reason || "a conform hook chain aborted the turn" };
		}
		return undefined;
	});
	pi.on("tool_result", async (event: any, ctx: any) => {
		const text = (event.content ?? []).map((c: any) => (c.type === "text" ? c.text : JSON.stringify(c))).join("\n");
		const d = await relay("tool_result", { tool_name: event.toolName, tool_use_id: event.toolCallId, tool_input: event.input, tool_response: text });
		switch (d.outcome) {
			case "deny":
				return { content: [{ type: "text", text: d.reason || "denied by a conform hook subscriber" }], isError: true };
			case "abort":
				ctx.abort();
				return { content: [{ type: "text", text: d.reason || "a conform hook chain aborted the turn" }], isError: true };
		}
		return undefined;
	});
}

export default async function (pi: any) {
	if (RELAY_HOOKS) {
		relayHooks(pi);
	}
	await rpc("initialize", { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "conform-pi-mcp", version: "1" } });
	await notify("notifications/initialized", {});
	const tools: any[] = [];
	let cursor: string | undefined = undefined;
	do {
		const page = await rpc("tools/list", cursor === undefined ? {} : { cursor: cursor });
		tools.push(...(page.tools ?? []));
		cursor = page.nextCursor;
	} while (cursor);
	for (const tool of tools) {
		pi.registerTool({
			name: PREFIX + tool.name,
			label: tool.title ?? tool.name,
			description: tool.description || tool.name,
			parameters: tool.inputSchema ?? { type: "object" },
			// MCP's one scheduling hint, in pi's terms: a tool that is not
			// read-only runs one call at a time (pi's per-tool
			// executionMode); what pi makes of a reply mixing the two is
			// its own.
			executionMode: tool.annotations?.readOnlyHint === true ? "parallel" : "sequential",
			async execute(_toolCallId: string, params: unknown, signal?: AbortSignal) {
				const result = await rpc("tools/call", { name: tool.name, arguments: params ?? {} }, signal);
				const content = (result.content ?? []).map((c: any) => (c.type === "text" ? { type: "text", text: c.text } : { type: "text", text: JSON.stringify(c) }));
				if (result.isError) {
					// pi reports a thrown error to the model as an error result.
					throw new Error(content.map((c: any) => c.text).join("\n") || `${tool.name} failed`);
				}
				return { content: content, details: {} };
			},
		});
	}
}
