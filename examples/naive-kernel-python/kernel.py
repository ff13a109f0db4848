#!/usr/bin/env python3
"""naive-kernel-python: a deliberately simple agent-loop kernel speaking conform.wire/v1.

It exists to show that the wire protocol is language-neutral: the standard
library only, Python 3.9+. It follows the turn order of the agent-loop
specification but ignores everything else on purpose: no bounds (config.bounds
is never read), no final-answer turn, no policy, no permission requests, no
trace spans, no doom-loop detection, no hook timeouts, cancellation only stops waiting for the harness.

Framing: JSON-RPC 2.0, one JSON object per line, requests from the harness on
stdin, everything the kernel says on stdout (flushed per line). Diagnostics go
to stderr. Both sides send requests; the kernel numbers its own with
increasing integers.
"""

import datetime
import json
import os
import queue
import sys
import threading

PROTOCOL_VERSION = "conform.wire/v1"
KERNEL_NAME = "naive-kernel-python"
KERNEL_VERSION = "0.1.0"

# The one safety net: a session that never ends on its own fails after this
# many turns. It is not max_turns (config.bounds is ignored entirely).
SAFETY_NET_TURNS = 100

METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


def log(*args):
    print(KERNEL_NAME + ":", *args, file=sys.stderr, flush=True)


def now_rfc3339():
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + "%06dZ" % now.microsecond


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class RPCError(Exception):
    """A JSON-RPC error, received from the peer or to be sent to it."""

    def __init__(self, code, message):
        Exception.__init__(self, "%d: %s" % (code, message))
        self.code = code
        self.message = message


class ConnectionClosed(Exception):
    pass


class Cancelled(Exception):
    """The session was cancelled while it waited for the harness."""


class Conn:
    """One JSON-RPC 2.0 conversation over line-delimited JSON."""

    def __init__(self, rfile, wfile):
        self._rfile = rfile
        self._wfile = wfile
        self._wlock = threading.Lock()
        self._plock = threading.Lock()
        self._pending = {}  # our request id -> queue.Queue of the response
        self._next_id = 0
        self._closed = False

    # -- writing ---------------------------------------------------------

    def _send(self, msg):
        msg["jsonrpc"] = "2.0"
        line = (compact(msg) + "\n").encode("utf-8")
        with self._wlock:
            try:
                self._wfile.write(line)
                self._wfile.flush()
            except (BrokenPipeError, ValueError, OSError) as exc:
                log("write failed:", exc)

    def notify(self, method, params):
        self._send({"method": method, "params": params})

    def reply(self, req_id, result):
        self._send({"id": req_id, "result": result})

    def reply_error(self, req_id, code, message):
        self._send({"id": req_id, "error": {"code": code, "message": message}})

    def call(self, method, params, session=None):
        """Sends a request and blocks until its answer; returns the result or
        raises RPCError (error answer), Cancelled or ConnectionClosed."""
        q = queue.Queue(maxsize=1)
        with self._plock:
            if self._closed:
                raise ConnectionClosed()
            if session is not None and session.cancelled:
                raise Cancelled()
            self._next_id += 1
            req_id = self._next_id
            self._pending[req_id] = q
            if session is not None:
                session.inflight[req_id] = q
        self._send({"id": req_id, "method": method, "params": params})
        resp = q.get()
        if session is not None:
            with self._plock:
                session.inflight.pop(req_id, None)
        if resp is None:
            raise ConnectionClosed()
        if resp.get("cancelled"):
            raise Cancelled()
        err = resp.get("error")
        if err is not None:
            if not isinstance(err, dict):
                err = {}
            raise RPCError(err.get("code", INTERNAL_ERROR), str(err.get("message", "")))
        return resp.get("result")

    # -- reading ---------------------------------------------------------

    def cancel(self, session):
        """Gives up on every call the session is waiting for."""
        with self._plock:
            session.cancelled = True
            inflight = list(session.inflight.items())
            for req_id, _ in inflight:
                self._pending.pop(req_id, None)
        for req_id, q in inflight:
            self.notify("$/cancelRequest", {"id": req_id})
            q.put({"cancelled": True})

    def close(self):
        with self._plock:
            self._closed = True
            pending = list(self._pending.values())
            self._pending.clear()
        for q in pending:
            q.put(None)

    def _deliver(self, msg):
        req_id = msg.get("id")
        with self._plock:
            q = self._pending.pop(req_id, None) if isinstance(req_id, int) else None
        if q is None:
            log("answer to an unknown request id:", compact(req_id))
            return
        q.put(msg)

    def serve(self, handle_request):
        """Reads stdin until EOF. Answers go to waiting callers; requests and
        notifications go to handle_request(conn, msg) on the reader thread
        (it decides itself what to run in a thread of its own)."""
        for raw in self._rfile:
            raw = raw.strip()
            if not raw:
                continue
            try:
                msg = json.loads(raw.decode("utf-8"))
            except ValueError as exc:
                log("unparseable line ignored:", exc)
                continue
            if not isinstance(msg, dict):
                log("non-object message ignored")
                continue
            if "method" in msg:
                handle_request(self, msg)
            elif "id" in msg:
                self._deliver(msg)
            else:
                log("message that is neither request nor response ignored")
        self.close()


def tool_result_content(output):
    """The tool_result text: strings as they are, anything else compact JSON."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    return compact(output)


class Session:
    """One session/run, naive from start to end."""

    def __init__(self, conn, params):
        self.conn = conn
        self.cancelled = False
        self.inflight = {}  # our request id -> queue, while the session waits
        self.session_id = params.get("session_id") or ""
        self.prompt = params.get("prompt") or ""
        self.config = params.get("config") or {}
        self.model = self.config.get("model") or {}
        self.model_name = self.model.get("name") or ""
        self.working_directory = self.config.get("working_directory") or ""
        self.tools = {}
        for tool in self.config.get("tools") or []:
            if isinstance(tool, dict) and tool.get("name"):
                self.tools[tool["name"]] = tool
        self.specs = []
        for tool in self.config.get("tools") or []:
            spec = {"name": tool.get("name", ""), "description": tool.get("description") or ""}
            if tool.get("input_schema") is not None:
                spec["input_schema"] = tool["input_schema"]
            self.specs.append(spec)
        hooks = self.config.get("hooks") or {}
        self.subscribers = hooks.get("subscribers") or []
        self.default_timeout_ms = hooks.get("default_timeout_ms") or 0
        self.total_cost = 0.0
        self.total_input = 0
        self.total_output = 0
        self.turns = 0
        self.started_at = now_rfc3339()

    def call_context(self, turn_id):
        return {
            "session_id": self.session_id,
            "turn_id": turn_id,
            "working_directory": self.working_directory,
        }

    # -- hooks -------------------------------------------------------------

    def dispatch(self, point, payload, turn_id):
        """Calls every subscriber of point in declaration order. Returns the
        messages a pre-model-call transform produced, or None."""
        transformed = None
        for sub in self.subscribers:
            if not isinstance(sub, dict) or sub.get("point") != point:
                continue
            params = {
                "call_context": self.call_context(turn_id),
                "point": point,
                "subscriber": sub.get("id", ""),
                "mode": sub.get("mode", ""),
                "timeout_ms": sub.get("timeout_ms") or self.default_timeout_ms,
                "payload": payload,
            }
            try:
                answer = self.conn.call("hook/dispatch", params, self)
            except RPCError as exc:
                log("hook", sub.get("id"), "at", point, "failed (ignored):", exc)
                continue
            if (
                point == "pre-model-call"
                and isinstance(answer, dict)
                and answer.get("outcome") == "transform"
                and isinstance(answer.get("payload"), dict)
                and isinstance(answer["payload"].get("messages"), list)
            ):
                transformed = answer["payload"]["messages"]
                # Later subscribers see the transformed messages.
                payload = dict(payload, messages=transformed)
        return transformed

    # -- model ---------------------------------------------------------------

    def cost_of(self, usage):
        tiers = (self.model.get("pricing") or {}).get("tiers") or []
        if not tiers:
            return 0.0
        tier = tiers[0]
        return (
            usage.get("input_tokens", 0) * tier.get("input_per_mtok", 0) / 1e6
            + usage.get("output_tokens", 0) * tier.get("output_per_mtok", 0) / 1e6
        )

    def report_usage(self, usage, turn_id):
        clean = {
            "input_tokens": int(usage.get("input_tokens") or 0),
            "output_tokens": int(usage.get("output_tokens") or 0),
        }
        for key in ("cache_read_tokens", "cache_write_tokens", "reasoning_tokens"):
            if usage.get(key) is not None:
                clean[key] = int(usage[key])
        cost = self.cost_of(clean)
        self.total_cost += cost
        self.total_input += clean["input_tokens"]
        self.total_output += clean["output_tokens"]
        self.conn.notify("cost/usage", {
            "session_id": self.session_id,
            "turn_id": turn_id,
            "model": self.model_name,
            "usage": clean,
            "cost_usd": cost,
            "session_total_usd": self.total_cost,
            "tier_index": 0,
        })

    def assistant_message(self, events, turn_id):
        text = ""
        tool_uses = []
        for ev in events:
            if not isinstance(ev, dict):
                continue
            kind = ev.get("type")
            if kind == "text_delta":
                text += ev.get("text") or ""
            elif kind == "tool_call":
                inp = ev.get("input")
                tool_uses.append({
                    "type": "tool_use",
                    "id": ev.get("id") or "",
                    "name": ev.get("name") or "",
                    "input": {} if inp is None else inp,
                })
            elif kind == "usage" and isinstance(ev.get("usage"), dict):
                self.report_usage(ev["usage"], turn_id)
        content = []
        if text:
            content.append({"type": "text", "text": text})
        content.extend(tool_uses)
        return {"role": "assistant", "content": content}, tool_uses

    # -- tools ---------------------------------------------------------------

    def invoke(self, use, tool, turn_id):
        try:
            res = self.conn.call("tool/invoke", {
                "call_context": self.call_context(turn_id),
                "call_id": use["id"],
                "provider": tool.get("provider", ""),
                "tool": use["name"],
                "input": use["input"],
                "attempt": 1,
            }, self)
        except RPCError as exc:
            return {"content": "tool error: " + exc.message, "is_error": True}
        if not isinstance(res, dict):
            res = {}
        result = {"content": tool_result_content(res.get("output"))}
        if res.get("is_error"):
            result["is_error"] = True
        if res.get("error_category"):
            result["error_category"] = res["error_category"]
        return result

    def interact(self, use, turn_id):
        try:
            res = self.conn.call("frontend/interactive", {
                "call_context": self.call_context(turn_id),
                "call_id": use["id"],
                "tool_name": use["name"],
                "prompt": "The agent asks you to answer " + use["name"] + ".",
                "input": use["input"],
            }, self)
        except RPCError as exc:
            return {"content": "interactive error: " + exc.message, "is_error": True}
        if not isinstance(res, dict):
            res = {}
        return {"content": tool_result_content(res.get("response"))}

    def hook_call(self, use):
        tool = self.tools.get(use["name"]) or {}
        return {
            "id": use["id"],
            "name": use["name"],
            "provider": tool.get("provider", ""),
            "kind": tool.get("kind", ""),
            "input": use["input"],
        }

    def run_tools(self, tool_uses, turn_id):
        """Steps 6-8 of a turn; returns the results in message order."""
        for use in tool_uses:
            self.dispatch("pre-tool-call", {"variant": "pre-tool-call", "call": self.hook_call(use)}, turn_id)

        results = {}
        for use in tool_uses:
            if use["name"] not in self.tools:
                results[use["id"]] = {"content": "unknown tool", "is_error": True}

        def of_kind(kind):
            return [u for u in tool_uses if u["name"] in self.tools and self.tools[u["name"]].get("kind") == kind]

        for use in of_kind("data_source"):
            results[use["id"]] = self.invoke(use, self.tools[use["name"]], turn_id)
        for use in of_kind("interactive"):
            results[use["id"]] = self.interact(use, turn_id)

        items = []
        for use in of_kind("resource"):
            tool = self.tools[use["name"]]
            items.append({
                "id": "p-" + use["id"],
                "tool_call_id": use["id"],
                "provider": tool.get("provider", ""),
                "tool": use["name"],
                "kind": "resource",
                "risk": tool.get("risk", ""),
                "description": tool.get("description") or "",
                "input": use["input"],
                "decision": "allow",
                "decided_by": "naive-default",
            })
        plan = {"items": items}
        self.dispatch("plan-ready", {"variant": "plan-ready", "plan": plan}, turn_id)
        for use in of_kind("resource"):
            results[use["id"]] = self.invoke(use, self.tools[use["name"]], turn_id)

        ordered = []
        for use in tool_uses:
            # A kind outside the three known ones gets no invoke at all.
            result = results.get(use["id"]) or {"content": "unsupported tool kind", "is_error": True}
            ordered.append(result)
            self.dispatch("post-tool-call", {
                "variant": "post-tool-call",
                "call": self.hook_call(use),
                "result": result,
            }, turn_id)
        self.dispatch("post-apply", {"variant": "post-apply", "plan": plan}, turn_id)
        return ordered

    # -- the loop ------------------------------------------------------------

    def meta(self, status, ended=False):
        row = {
            "session_id": self.session_id,
            "profile": self.config.get("profile") or "",
            "depth": 0,
            "status": status,
            "started_at": self.started_at,
        }
        if ended:
            row["ended_at"] = now_rfc3339()
        self.conn.notify("session/meta", row)

    def run(self):
        self.meta("running")
        start = {"variant": "session-start", "session_id": self.session_id}
        if self.prompt:
            start["prompt"] = self.prompt
        self.dispatch("session-start", start, "")

        history = [{"role": "user", "content": [{"type": "text", "text": self.prompt}]}]
        final_message = None
        status = "failed"
        last_turn_id = ""
        for n in range(1, SAFETY_NET_TURNS + 1):
            turn_id = "t%d" % n
            last_turn_id = turn_id
            self.turns = n

            assembled = self.conn.call("context/assemble", {
                "call_context": self.call_context(turn_id),
                "turn": n,
                "history": history,
            }, self)
            contributions = []
            if isinstance(assembled, dict) and isinstance(assembled.get("contributions"), list):
                contributions = assembled["contributions"]

            pre = {"variant": "pre-model-call", "messages": history}
            if self.model_name:
                pre["model"] = self.model_name
            if self.specs:
                pre["tools"] = self.specs
            messages = self.dispatch("pre-model-call", pre, turn_id) or history

            streamed = self.conn.call("model/stream", {
                "call_context": self.call_context(turn_id),
                "purpose": "turn",
                "model": self.model_name,
                "messages": messages,
                "tools": self.specs,
                "assembled_context": contributions,
                "attempt": 1,
            }, self)
            events = streamed.get("events") if isinstance(streamed, dict) else None
            message, tool_uses = self.assistant_message(events or [], turn_id)
            final_message = message

            self.dispatch("post-model-response", {"variant": "post-model-response", "message": message}, turn_id)
            if not tool_uses:
                status = "completed"
                break

            results = self.run_tools(tool_uses, turn_id)
            blocks = []
            for use, result in zip(tool_uses, results):
                block = {"type": "tool_result", "tool_use_id": use["id"]}
                if result.get("content"):
                    block["content"] = result["content"]
                if result.get("is_error"):
                    block["is_error"] = True
                if result.get("error_category"):
                    block["error_category"] = result["error_category"]
                blocks.append(block)
            history = history + [message, {"role": "user", "content": blocks}]
        else:
            log("session", self.session_id, "hit the safety net of", SAFETY_NET_TURNS, "turns")

        return self.finish(status, final_message)

    def finish(self, status, final_message):
        self.dispatch("session-end", {"variant": "session-end", "session_id": self.session_id, "status": status}, "")
        self.meta(status, ended=True)
        result = {
            "session_id": self.session_id,
            "status": status,
            "total_cost_usd": self.total_cost,
            "total_input_tokens": self.total_input,
            "total_output_tokens": self.total_output,
            "turns": self.turns,
        }
        if final_message is not None:
            result["final_message"] = final_message
        return result


SESSIONS = {}
SESSIONS_LOCK = threading.Lock()


def handle_session_run(conn, params):
    session = Session(conn, params)
    with SESSIONS_LOCK:
        SESSIONS[session.session_id] = session
    try:
        return session.run()
    except Cancelled:
        session.cancelled = False  # let the session-end hooks through
        return session.finish("cancelled", None)
    except RPCError as exc:
        # A harness call the loop cannot do without (context/assemble,
        # model/stream) failed: the naive kernel gives up on the session.
        log("session", session.session_id, "failed:", exc)
        result = session.finish("failed", None)
        result["error"] = str(exc)
        return result


def run_session(conn, req_id, params):
    """Answers one session/run; runs on a thread of its own."""
    try:
        result = handle_session_run(conn, params)
    except ConnectionClosed:
        return
    except Exception as exc:  # a bug in this kernel; say so
        log("session/run crashed:", repr(exc))
        conn.reply_error(req_id, INTERNAL_ERROR, "kernel error: %r" % (exc,))
        return
    conn.reply(req_id, result)


def handle_request(conn, msg):
    """Called on the reader thread for every incoming request or notification."""
    if "id" not in msg:
        # Notifications ($/cancelRequest included) are ignored.
        return
    method = msg.get("method")
    req_id = msg.get("id")
    params = msg.get("params")
    if not isinstance(params, dict):
        params = {}
    if method == "session/run":
        # Its own thread, so that the session can block while it calls the
        # harness and several sessions can run at once.
        threading.Thread(target=run_session, args=(conn, req_id, params), daemon=True).start()
    elif method == "initialize":
        # The other requests never block: they are answered right here, in
        # arrival order, so none is still unanswered when shutdown exits.
        conn.reply(req_id, {
            "protocol_version": PROTOCOL_VERSION,
            "kernel": {"name": KERNEL_NAME, "version": KERNEL_VERSION},
            "capabilities": [],
        })
    elif method == "session/cancel":
        with SESSIONS_LOCK:
            session = SESSIONS.get(params.get("session_id"))
        if session is not None:
            conn.cancel(session)
        conn.reply(req_id, {})
    elif method == "shutdown":
        conn.reply(req_id, {})
        sys.stderr.flush()
        os._exit(0)
    else:
        conn.reply_error(req_id, METHOD_NOT_FOUND, "method not found: %s" % (method,))


def main():
    conn = Conn(sys.stdin.buffer, sys.stdout.buffer)
    conn.serve(handle_request)
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
