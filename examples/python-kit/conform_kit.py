"""conform_kit: turn a Python agent loop into a conform kernel.

A single file, standard library only (Python 3.9 or newer): copy it next to
your adapter. It speaks conform.wire/v1 (spec/PROTOCOL.md in the conform
repository) for you: JSON-RPC 2.0, one object per line, on stdin and stdout.

You write a Kernel: ``info()`` says who you are, ``run(host, params)`` runs
one session and returns its result. Optional methods: ``cancel``,
``continue_session``, ``spawn``, ``decide``, ``write_memory``; without them
the kit answers as PROTOCOL.md says a kernel without that part answers.
``main(kernel)`` serves it on stdio, which is what

    conform run --kernel "python3 my_kernel.py"

starts. ``run`` gets a Host: one method per kernel -> harness request
(assemble, hook, stream, invoke, preview, permission, interactive, confirm)
and per notification (span, cost, meta, event). Each session runs in a
thread of its own, several at once; a Host call blocks until the harness
answers and raises Cancelled once the session is cancelled (the kit sends
$/cancelRequest for the calls in flight).

Helpers carry the protocol duties every kernel has, so that an adapter
writes only its loop: Session (the session/meta rows and session hooks,
turns and their context/assemble, a point's hook chain with the rules of
PROTOCOL.md section 7.2, pricing and cost/usage) and Turn (a model call with
its hooks, a reply's tool calls in the order of section 12), plus fold,
tool_result_of, output_text and result_block. A helper that implements a
loop feature says so; an adapter for a real framework calls the Host from
the framework's own hooks instead, so that conform's report is about the
framework and not about the glue.

The kit does not validate messages against the JSON Schemas (the standard
library has no validator); the harness validates everything it receives.
Set CONFORM_KIT_TRANSCRIPT to a file name to have the kit append every
message it sends to it, one JSON object per line, for validation elsewhere
(the kit's own test does this with conform's Go validator). Log to stderr:
stdout carries protocol messages only.
"""

from __future__ import annotations

import datetime
import json
import os
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

JSON = Dict[str, Any]

PROTOCOL_VERSION = "conform.wire/v1"
MAX_LINE = 8 << 20  # bytes; a longer line is a protocol violation

# JSON-RPC error codes of the protocol (PROTOCOL.md section 10).
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
CONFIG_REJECTED = -32001
HOOK_FAILED = -32002
PROCESS_CRASHED = -32003
CANCELLED = -32004
UNKNOWN_SESSION = -32005
VERSION_MISMATCH = -32006

PRODUCER = "kernel"  # producer of the events a kernel reports itself
HOOK_POINTS = ["session-start", "context-assemble", "pre-model-call", "post-model-response",
               "pre-tool-call", "plan-ready", "post-tool-call", "post-apply", "session-end"]


def log(*args: Any) -> None:
    """Writes a diagnostic line to stderr (never stdout)."""
    print("conform_kit:", *args, file=sys.stderr, flush=True)


def now_rfc3339() -> str:
    now = datetime.datetime.now(datetime.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + "%06dZ" % now.microsecond


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class RPCError(Exception):
    """A JSON-RPC error: received from the harness (code says which, e.g.
    PROCESS_CRASHED for a crashed tool), or raised by a kernel method to
    answer with that code."""

    def __init__(self, code: int, message: str) -> None:
        Exception.__init__(self, "%d: %s" % (code, message))
        self.code = code
        self.message = message


class Cancelled(Exception):
    """The session was cancelled (or the kernel is shutting down)."""


class CallTimeout(Exception):
    """A call's own timeout passed; the kit sent $/cancelRequest for it."""


class ConnectionClosed(Exception):
    """The harness has gone (end of stdin)."""


class ProtocolViolation(Exception):
    """The harness's answer does not have the shape the protocol gives it."""


def reject_config(message: str) -> RPCError:
    """The error that refuses a session config before the session starts."""
    return RPCError(CONFIG_REJECTED, message)


@dataclass
class Info:
    """The kernel's initialize answer."""
    name: str
    version: str
    capabilities: List[str] = field(default_factory=list)
    readings: Dict[str, str] = field(default_factory=dict)
    # requirement ID -> what the adapter's glue, not the framework, decides
    # there (PROTOCOL.md §15); reports label those requirements glue.
    glue: Dict[str, str] = field(default_factory=dict)


class Kernel:
    """What an adapter implements. run(host, params) runs one root session
    (params: the session/run params, with session_id, prompt and config) and
    returns its RunSessionResult; it runs in a thread of its own. Raise
    RPCError (reject_config, ...) to answer with an error instead.

    Optional methods, used when defined: cancel(session_id),
    continue_session(session_id, message), spawn(host, params) -> result,
    decide(host, params) -> result, write_memory(params). Raise
    RPCError(UNKNOWN_SESSION, ...) and so on from them."""

    def info(self) -> Info:
        raise NotImplementedError

    def run(self, host: "Host", params: JSON) -> JSON:
        raise NotImplementedError


class Scope:
    """A session's cancellation: once cancelled, its calls in flight are
    abandoned ($/cancelRequest) and its later calls raise Cancelled."""

    def __init__(self) -> None:
        self.cancelled = False
        self.inflight: Dict[int, "queue.Queue[Optional[JSON]]"] = {}


class Conn:
    """One JSON-RPC 2.0 conversation over line-delimited JSON."""

    def __init__(self, rfile: Any, wfile: Any, transcript: Optional[str] = None) -> None:
        self._rfile = rfile
        self._wfile = wfile
        self._wlock = threading.Lock()
        self._plock = threading.Lock()
        self._pending: Dict[int, "queue.Queue[Optional[JSON]]"] = {}
        self._next_id = 0
        self._closed = False
        self._transcript = transcript
        self.answering: Dict[str, str] = {}  # compact id of a request being answered -> its method

    def send(self, msg: JSON) -> None:
        msg["jsonrpc"] = "2.0"
        line = compact(msg)
        with self._wlock:
            if self._transcript:
                self._record(msg)
            try:
                self._wfile.write((line + "\n").encode("utf-8"))
                self._wfile.flush()
            except (BrokenPipeError, ValueError, OSError) as exc:
                log("write failed:", exc)

    def _record(self, msg: JSON) -> None:
        if "method" in msg:
            entry = {"method": msg["method"], "part": "params", "body": msg.get("params")}
        elif "result" in msg:
            method = self.answering.pop(compact(msg.get("id")), "")
            entry = {"method": method, "part": "result", "body": msg["result"]}
        else:
            entry = {"method": self.answering.pop(compact(msg.get("id")), ""), "part": "error", "body": msg.get("error")}
        with open(str(self._transcript), "a", encoding="utf-8") as f:
            f.write(compact(entry) + "\n")

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def reply(self, req_id: Any, result: Any) -> None:
        self.send({"id": req_id, "result": result})

    def reply_error(self, req_id: Any, code: int, message: str) -> None:
        self.send({"id": req_id, "error": {"code": code, "message": message}})

    def call(self, method: str, params: JSON, scope: Scope, timeout: Optional[float] = None) -> Any:
        """Sends a request and blocks until its answer; returns the result or
        raises RPCError, Cancelled, CallTimeout or ConnectionClosed."""
        q: "queue.Queue[Optional[JSON]]" = queue.Queue(maxsize=1)
        with self._plock:
            if self._closed:
                raise ConnectionClosed()
            if scope.cancelled:
                raise Cancelled()
            self._next_id += 1
            req_id = self._next_id
            self._pending[req_id] = q
            scope.inflight[req_id] = q
        self.send({"id": req_id, "method": method, "params": params})
        try:
            resp = q.get(timeout=timeout)
        except queue.Empty:
            with self._plock:
                self._pending.pop(req_id, None)
            self.notify("$/cancelRequest", {"id": req_id})
            raise CallTimeout()
        finally:
            with self._plock:
                scope.inflight.pop(req_id, None)
        if resp is None:
            raise ConnectionClosed()
        if resp.get("cancelled"):
            raise Cancelled()
        err = resp.get("error")
        if err is not None:
            err = err if isinstance(err, dict) else {}
            raise RPCError(int(err.get("code", INTERNAL_ERROR)), str(err.get("message", "")))
        return resp.get("result")

    def cancel(self, scope: Scope) -> None:
        """Cancels a scope: every call it waits for is abandoned."""
        with self._plock:
            scope.cancelled = True
            inflight = list(scope.inflight.items())
            for req_id, _ in inflight:
                self._pending.pop(req_id, None)
        for req_id, q in inflight:
            self.notify("$/cancelRequest", {"id": req_id})
            q.put({"cancelled": True})

    def close(self) -> None:
        with self._plock:
            self._closed = True
            pending = list(self._pending.values())
            self._pending.clear()
        for q in pending:
            q.put(None)

    def read(self, handle: Callable[[JSON], None]) -> None:
        """Reads until EOF: answers go to their callers, requests and
        notifications to handle (on this thread)."""
        while True:
            try:
                raw = self._rfile.readline(MAX_LINE + 2)
            except (ValueError, OSError):  # the input was closed under us: as its end
                break
            if not raw:
                break
            if len(raw) > MAX_LINE + 1:
                log("a line longer than", MAX_LINE, "bytes: the connection is closed")
                break
            raw = raw.strip()
            if not raw:
                continue
            try:
                msg = json.loads(raw.decode("utf-8"))
            except ValueError as exc:
                log("unparseable line ignored:", exc)
                continue
            if not isinstance(msg, dict):
                log("a message that is not an object ignored")
            elif "method" in msg:
                handle(msg)
            elif isinstance(msg.get("id"), int):
                with self._plock:
                    q = self._pending.pop(msg["id"], None)
                if q is not None:
                    q.put(msg)  # an answer to a call given up on is dropped: expected
            else:
                log("an answer to an id the kit never used ignored:", compact(msg.get("id")))
        self.close()


class Host:
    """The harness as one session sees it: each method is one request
    (PROTOCOL.md section 7) or notification (section 8). Requests block until
    the answer and raise RPCError (an error answer), Cancelled (the session
    was cancelled), CallTimeout or ConnectionClosed."""

    def __init__(self, conn: Conn, scope: Optional[Scope] = None) -> None:
        self.conn = conn
        self.scope = scope or Scope()

    def detached(self) -> "Host":
        """A Host for the same connection that the session's cancellation
        does not reach: for the session-end hooks of a cancelled session."""
        return Host(self.conn)

    def _call(self, method: str, params: JSON, timeout: Optional[float] = None) -> JSON:
        res = self.conn.call(method, params, self.scope, timeout)
        if not isinstance(res, dict):
            raise ProtocolViolation("%s answered with %s, not an object" % (method, compact(res)))
        return res

    def assemble(self, params: JSON) -> JSON:
        return self._call("context/assemble", params)

    def hook(self, params: JSON, timeout: Optional[float] = None) -> JSON:
        return self._call("hook/dispatch", params, timeout)

    def stream(self, params: JSON) -> JSON:
        return self._call("model/stream", params)

    def invoke(self, params: JSON) -> JSON:
        return self._call("tool/invoke", params)

    def preview(self, params: JSON) -> JSON:
        return self._call("tool/preview", params)

    def permission(self, params: JSON) -> JSON:
        return self._call("frontend/permission", params)

    def interactive(self, params: JSON) -> JSON:
        return self._call("frontend/interactive", params)

    def confirm(self, params: JSON) -> JSON:
        return self._call("frontend/confirm", params)

    def notify(self, method: str, params: JSON) -> None:
        self.conn.notify(method, params)

    def span(self, span: JSON) -> None:
        self.notify("trace/span", span)

    def cost(self, usage_cost: JSON) -> None:
        self.notify("cost/usage", usage_cost)

    def meta(self, row: JSON) -> None:
        self.notify("session/meta", row)

    def event(self, event: JSON) -> None:
        self.notify("event", event)


class _Server:
    """Answers the harness's requests for one kernel."""

    def __init__(self, kernel: Kernel, conn: Conn) -> None:
        self.kernel = kernel
        self.conn = conn
        self.lock = threading.Lock()
        self.ready = False
        self.stopping = False
        self.runs: Dict[str, Tuple[Scope, threading.Thread]] = {}
        self.ended: Dict[str, bool] = {}
        self.done = threading.Event()

    def handle(self, msg: JSON) -> None:
        if "id" not in msg:
            return  # $/cancelRequest and other notifications: nothing the kit holds runs for the harness
        req_id, method = msg.get("id"), msg.get("method")
        params = msg.get("params")
        if method == "shutdown":
            params = {}
        if not isinstance(params, dict):
            self.conn.reply_error(req_id, INVALID_PARAMS, "params must be an object")
            return
        self.conn.answering[compact(req_id)] = str(method)
        if method == "initialize":
            self._answer(req_id, lambda: self._initialize(params))
        elif method == "shutdown":
            threading.Thread(target=self._shutdown, args=(req_id,), daemon=True).start()
        elif method not in ("session/run", "session/cancel", "session/continue", "session/spawn",
                            "frontend/decide", "memory/write"):
            self.conn.reply_error(req_id, METHOD_NOT_FOUND, "unknown method %s" % (method,))
        elif not self.ready:
            self.conn.reply_error(req_id, INVALID_REQUEST, "initialize first")
        elif method == "session/run":
            self._run(req_id, params)
        elif method == "session/spawn":
            threading.Thread(target=self._answer, args=(req_id, lambda: self._spawn(params)), daemon=True).start()
        else:
            handler = {"session/cancel": self._cancel, "session/continue": self._continue,
                       "frontend/decide": self._decide, "memory/write": self._memory}[str(method)]
            self._answer(req_id, lambda: handler(params))

    def _answer(self, req_id: Any, produce: Callable[[], Any]) -> None:
        try:
            result = produce()
        except RPCError as exc:
            self.conn.reply_error(req_id, exc.code, exc.message)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a bug in the kernel; say so
            log("kernel error:", repr(exc))
            self.conn.reply_error(req_id, INTERNAL_ERROR, "kernel error: %r" % (exc,))
        else:
            self.conn.reply(req_id, result)

    def _initialize(self, params: JSON) -> JSON:
        if self.ready:
            raise RPCError(INVALID_REQUEST, "initialize was already answered on this connection")
        if PROTOCOL_VERSION not in (params.get("protocol_versions") or []):
            raise RPCError(VERSION_MISMATCH, "this kernel speaks only " + PROTOCOL_VERSION)
        self.ready = True
        info = self.kernel.info()
        res: JSON = {"protocol_version": PROTOCOL_VERSION, "kernel": {"name": info.name, "version": info.version},
                     "capabilities": list(info.capabilities)}
        if info.readings:
            res["readings"] = dict(info.readings)
        if info.glue:
            res["glue"] = [{"requirement": k, "reason": v} for k, v in info.glue.items()]
        return res

    def _run(self, req_id: Any, params: JSON) -> None:
        sid = str(params.get("session_id") or "")
        scope = Scope()
        with self.lock:
            if self.stopping:
                self.conn.reply_error(req_id, INVALID_REQUEST, "the kernel is shutting down")
                return
            if sid in self.runs:
                self.conn.reply_error(req_id, INVALID_REQUEST, "a session with this id is running: " + sid)
                return
            thread = threading.Thread(target=self._session, args=(req_id, sid, scope, params), daemon=True)
            self.runs[sid] = (scope, thread)
        thread.start()

    def _session(self, req_id: Any, sid: str, scope: Scope, params: JSON) -> None:
        try:
            self._answer(req_id, lambda: self.kernel.run(Host(self.conn, scope), params))
        finally:
            with self.lock:
                self.runs.pop(sid, None)
                self.ended[sid] = True

    def _state(self, sid: str) -> Tuple[Optional[Scope], bool]:
        with self.lock:
            run = self.runs.get(sid)
            return (run[0] if run else None), self.ended.get(sid, False)

    def _cancel(self, params: JSON) -> JSON:
        sid = str(params.get("session_id"))
        if hasattr(self.kernel, "cancel"):
            getattr(self.kernel, "cancel")(sid)
            return {}
        scope, ended = self._state(sid)
        if scope is not None:
            self.conn.cancel(scope)
        elif not ended:
            raise RPCError(UNKNOWN_SESSION, "unknown session " + sid)
        return {}

    def _continue(self, params: JSON) -> JSON:
        sid = str(params.get("session_id"))
        if hasattr(self.kernel, "continue_session"):
            getattr(self.kernel, "continue_session")(sid, str(params.get("message", "")))
            return {}
        if self._state(sid)[0] is not None:
            raise RPCError(INVALID_PARAMS, "session %s is not paused: this kernel has no soft limits" % sid)
        raise RPCError(UNKNOWN_SESSION, "no running session " + sid)

    def _spawn(self, params: JSON) -> JSON:
        if not hasattr(self.kernel, "spawn"):
            raise RPCError(METHOD_NOT_FOUND, "this kernel runs no sub-agents (session/spawn)")
        parent, _ = self._state(str(params.get("parent_session_id")))
        return getattr(self.kernel, "spawn")(Host(self.conn, parent or Scope()), params)

    def _decide(self, params: JSON) -> JSON:
        sid = str(params.get("session_id"))
        if hasattr(self.kernel, "decide"):
            return getattr(self.kernel, "decide")(Host(self.conn), params)
        if self._state(sid)[0] is None:
            raise RPCError(UNKNOWN_SESSION, "no running session " + sid)
        return nothing_pending(Host(self.conn), params)

    def _memory(self, params: JSON) -> JSON:
        sid = str(params.get("session_id"))
        if hasattr(self.kernel, "write_memory"):
            getattr(self.kernel, "write_memory")(params)
            return {}
        scope, ended = self._state(sid)
        if scope is not None or ended:
            # Running or ended, a session of the agent-loop profile is not a
            # deterministic-first one (PROTOCOL.md §17.5); only an id the
            # kernel never ran is unknown.
            raise RPCError(INVALID_PARAMS, "session %s does not run the deterministic-first profile" % sid)
        raise RPCError(UNKNOWN_SESSION, "unknown session " + sid)

    def _shutdown(self, req_id: Any) -> None:
        """Cancels every running session, waits until each is answered,
        answers, and ends serve (on a thread of its own: the reader must go
        on delivering the answers the ending sessions wait for)."""
        with self.lock:
            self.stopping = True
            runs = list(self.runs.values())
        for scope, _ in runs:
            self.conn.cancel(scope)
        for _, thread in runs:
            thread.join()
        self.conn.reply(req_id, {})
        self.done.set()


def nothing_pending(host: Host, params: JSON) -> JSON:
    """frontend/decide as a kernel with nothing pending answers it (PROTOCOL.md
    section 6.7): every decision and interactive response rejected with
    INVALID_CLIENT_EVENT, each with its frontend_error event."""
    sid, conn = params.get("session_id"), params.get("connection")
    out: JSON = {"results": []}

    def reject(key: str, ident: Any) -> JSON:
        msg = "%s %s is not pending in session %s" % (key, ident, sid)
        host.event({"session_id": sid, "kind": "frontend_error", "producer": PRODUCER, "payload": {
            "connection": conn, key: ident, "category": "INVALID_CLIENT_EVENT", "message": msg}})
        return {key: ident, "accepted": False, "category": "INVALID_CLIENT_EVENT", "message": msg}

    for d in params.get("decisions") or []:
        out["results"].append(reject("plan_item_id", d.get("plan_item_id")))
    responses = params.get("interactive_responses") or []
    if responses:
        out["interactive_results"] = [reject("call_id", r.get("call_id")) for r in responses]
    return out


def serve(kernel: Kernel, rfile: Any = None, wfile: Any = None, transcript: Optional[str] = None) -> None:
    """Serves kernel until the end of the input or until shutdown has been
    answered. rfile and wfile are binary streams (stdin and stdout by
    default); transcript defaults to $CONFORM_KIT_TRANSCRIPT."""
    conn = Conn(rfile or sys.stdin.buffer, wfile or sys.stdout.buffer,
                transcript if transcript is not None else os.environ.get("CONFORM_KIT_TRANSCRIPT"))
    server = _Server(kernel, conn)

    def read() -> None:
        conn.read(server.handle)
        server.done.set()

    threading.Thread(target=read, daemon=True).start()
    server.done.wait()


def main(kernel: Kernel) -> None:
    """Serves kernel on stdin and stdout, then exits with status 0."""
    try:
        serve(kernel)
    except KeyboardInterrupt:
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # session threads still blocked on a gone harness are not waited for


# ---- helpers ----------------------------------------------------------------

class HookAbort(Exception):
    """A transform subscriber failed, which aborts its chain (section 7.2).
    Session.dispatch has reported it with a hook_error event already."""

    def __init__(self, point: str, subscriber: str, category: str, reason: str) -> None:
        Exception.__init__(self, "transform subscriber %s at %s failed (%s): %s" % (subscriber, point, category, reason))
        self.point, self.subscriber, self.category, self.reason = point, subscriber, category, reason


class ModelFailure(Exception):
    """A model call whose stream ended with an error event. Turn.model does
    not retry: retrying is a loop's policy."""

    def __init__(self, error: JSON) -> None:
        Exception.__init__(self, "model error %s: %s" % (error.get("category"), error.get("message")))
        self.error = error


@dataclass
class Outcome:
    """What a point's chain made of its payload: the payload after the
    transforms; denied (with by and reason) when a veto subscriber denied or
    failed (fail closed)."""
    payload: JSON
    denied: bool = False
    by: str = ""
    reason: str = ""


@dataclass
class Reply:
    """One model call folded from its stream: the assistant message (text,
    then one tool_use block per call), its calls, usage, stop reason and
    error, and the cost Turn.model charged for it."""
    message: JSON
    calls: List[JSON]
    usage: JSON
    stop_reason: str = ""
    error: Optional[JSON] = None
    cost_usd: float = 0.0


def fold(events: List[JSON]) -> Reply:
    """Reads a stream: text deltas joined, tool calls as tool_use blocks (no
    input: {}), usage events added up, the stop reason and the error."""
    text, calls = "", []
    usage: JSON = {"input_tokens": 0, "output_tokens": 0}
    stop, error = "", None
    for ev in events:
        kind = ev.get("type")
        if kind == "text_delta":
            text += ev.get("text") or ""
        elif kind == "tool_call":
            inp = ev.get("input")
            calls.append({"type": "tool_use", "id": ev.get("id") or "", "name": ev.get("name") or "",
                          "input": {} if inp is None else inp})
        elif kind == "usage" and isinstance(ev.get("usage"), dict):
            for k, v in ev["usage"].items():
                usage[k] = usage.get(k, 0) + int(v or 0)
        elif kind == "stop":
            stop = ev.get("stop_reason") or ""
        elif kind == "error":
            error = ev.get("error")
    content = ([{"type": "text", "text": text}] if text else []) + calls
    return Reply(message={"role": "assistant", "content": content}, calls=calls, usage=usage, stop_reason=stop, error=error)


def output_text(output: Any) -> str:
    """A tool output as tool_result content (section 7.4): a string as
    itself, anything else as compact JSON, nothing as ""."""
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    return compact(output)


def tool_result_of(result: Optional[JSON], error: Optional[BaseException] = None) -> JSON:
    """A call's result from its tool/invoke outcome: the output as text with
    is_error and error_category carried over; a crashed provider
    (PROCESS_CRASHED) a process_crashed error result the kernel builds
    itself; a cancelled call a cancelled one; any other failure
    execution_failed."""
    if error is None:
        result = result or {}
        out: JSON = {"content": output_text(result.get("output"))}
        if result.get("is_error"):
            out["is_error"] = True
        if result.get("error_category"):
            out["error_category"] = result["error_category"]
        return out
    category = "execution_failed"
    if isinstance(error, RPCError) and error.code == PROCESS_CRASHED:
        category = "process_crashed"
    elif isinstance(error, (Cancelled, CallTimeout)):
        category = "cancelled"
    return {"content": "%s: %s" % (category, error), "is_error": True, "error_category": category}


def result_block(call_id: str, result: JSON) -> JSON:
    """The tool_result block of one call."""
    block = {"type": "tool_result", "tool_use_id": call_id, "content": result.get("content", "")}
    for key in ("is_error", "error_category"):
        if result.get(key):
            block[key] = result[key]
    return block


def _rfc3339(text: str) -> float:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def price(pricing: JSON, usage: JSON, at: float) -> Tuple[float, int]:
    """The cost of one usage event and the index of the tier that prices
    it: the one tier whose time and input-token windows hold it (section
    8.2). Raises ValueError when none or several do."""
    if pricing.get("free"):
        return 0.0, 0
    n = int(usage.get("input_tokens") or 0)
    found = []
    for i, t in enumerate(pricing.get("tiers") or []):
        if t.get("effective_from") and at < _rfc3339(t["effective_from"]):
            continue
        if t.get("effective_until") and at >= _rfc3339(t["effective_until"]):
            continue
        if n < int(t.get("input_tokens_from") or 0):
            continue
        if t.get("input_tokens_until") is not None and n >= int(t["input_tokens_until"]):
            continue
        found.append(i)
    if len(found) != 1:
        raise ValueError("%d pricing tiers match input_tokens=%d" % (len(found), n))
    t = (pricing.get("tiers") or [])[found[0]]

    def per(count_key: str, rate_key: str) -> float:
        return int(usage.get(count_key) or 0) * float(t.get(rate_key) or 0) / 1e6

    usd = (per("input_tokens", "input_per_mtok") + per("output_tokens", "output_per_mtok") +
           per("cache_read_tokens", "cache_read_per_mtok") + per("cache_write_tokens", "cache_write_per_mtok") +
           per("reasoning_tokens", "output_per_mtok"))
    return usd, found[0]


class Session:
    """The protocol duties of one session that every kernel has (see the
    module docstring). Each helper does what its docstring says and nothing
    else; use only the ones that match what your loop does."""

    def __init__(self, host: Host, params: JSON) -> None:
        self.host = host
        self.id: str = str(params.get("session_id") or "")
        self.prompt: str = str(params.get("prompt") or "")
        self.config: JSON = params.get("config") or {}
        self.started = now_rfc3339()
        self.turns = 0
        self.cost_usd = 0.0
        self.input_tokens = 0
        self.output_tokens = 0
        self._lock = threading.Lock()

    def call_context(self, turn_id: str) -> JSON:
        return {"session_id": self.id, "turn_id": turn_id,
                "working_directory": self.config.get("working_directory") or ""}

    def tool(self, name: str) -> Optional[JSON]:
        """The config's schema of the tool named name, or None."""
        for t in self.config.get("tools") or []:
            if t.get("name") == name:
                return t
        return None

    def tool_specs(self) -> List[JSON]:
        """Every tool of the config as a model request offers it."""
        specs = []
        for t in self.config.get("tools") or []:
            spec = {"name": t.get("name", ""), "description": t.get("description") or ""}
            if t.get("input_schema") is not None:
                spec["input_schema"] = t["input_schema"]
            specs.append(spec)
        return specs

    def _row(self, status: str) -> JSON:
        return {"session_id": self.id, "profile": self.config.get("profile") or "", "depth": 0,
                "status": status, "started_at": self.started}

    def start(self) -> None:
        """Sends the running session/meta row and dispatches session-start.
        Raises HookAbort for an aborted transform chain."""
        self.host.meta(self._row("running"))
        payload: JSON = {"variant": "session-start", "session_id": self.id, "prompt": self.prompt}
        self.dispatch("", payload)

    def finish(self, status: str, final: Optional[JSON] = None, why: Optional[BaseException] = None) -> JSON:
        """Ends the session: session-end hooks (even after a cancel), the end
        row, and the RunSessionResult with the totals charge counted."""
        payload: JSON = {"variant": "session-end", "session_id": self.id, "status": status}
        if final is not None:
            payload["final_message"] = final
        try:
            self.dispatch("", payload, self.host.detached())
        except (HookAbort, Cancelled):
            pass
        row = self._row(status)
        row["ended_at"] = now_rfc3339()
        if final is not None:
            row["final_message"] = final
        self.host.meta(row)
        res: JSON = {"session_id": self.id, "status": status, "total_cost_usd": self.cost_usd,
                     "total_input_tokens": self.input_tokens, "total_output_tokens": self.output_tokens,
                     "turns": self.turns}
        if final is not None:
            res["final_message"] = final
        if why is not None:
            res["error"] = str(why)
        return res

    def event(self, turn_id: str, kind: str, payload: JSON) -> None:
        """Reports an event of the session on the kernel's behalf."""
        ev: JSON = {"session_id": self.id, "kind": kind, "producer": PRODUCER, "payload": payload}
        if turn_id:
            ev["turn_id"] = turn_id
        self.host.event(ev)

    def charge(self, turn_id: str, usage: JSON) -> float:
        """Prices one usage event (price), reports it with cost/usage and
        counts it in the totals."""
        model = self.config.get("model") or {}
        usd, tier = price(model.get("pricing") or {}, usage, time.time())
        with self._lock:
            self.cost_usd += usd
            self.input_tokens += int(usage.get("input_tokens") or 0)
            self.output_tokens += int(usage.get("output_tokens") or 0)
            total = self.cost_usd
        self.host.cost({"session_id": self.id, "turn_id": turn_id, "model": model.get("name") or "",
                        "usage": usage, "cost_usd": usd, "session_total_usd": total, "tier_index": tier})
        return usd

    def begin(self) -> "Turn":
        """The next turn, without sending anything: its number and its own
        turn_id. A loop with a context step then calls Turn.assemble."""
        with self._lock:
            self.turns += 1
            return Turn(self, self.turns, "%s/t%d" % (self.id, self.turns))

    def new_turn(self, history: List[JSON]) -> "Turn":
        """The next turn with its step 1, context/assemble."""
        turn = self.begin()
        turn.assemble(history)
        return turn

    def dispatch(self, turn_id: str, payload: JSON, host: Optional[Host] = None) -> Outcome:
        """Runs the subscribers declared at payload["variant"], in order, one
        at a time, with the rules of section 7.2: the mode and effective
        timeout on each call, cancelled when the timeout passes (0: none);
        observers' answers ignored; a transform's payload passed on (only the
        messages of pre-model-call may change); a veto other than ALLOW denies
        and ends the chain. A failure is reported as a hook_error event naming
        the subscriber, then ignored (observe), raised as HookAbort
        (transform) or taken as a deny (veto). This is a hook system with
        timeouts; a framework with hooks of its own calls Host.hook from
        them instead. host, when given, makes the calls (Finish passes one
        the session's cancellation does not reach)."""
        out = Outcome(payload=payload)
        hooks = self.config.get("hooks") or {}
        for sub in hooks.get("subscribers") or []:
            if sub.get("point") != payload.get("variant"):
                continue
            # An own timeout_ms of 0 is the subscriber's, not absent: only
            # an absent one falls back to the default (section 9 Subscriber).
            own = sub.get("timeout_ms")
            timeout_ms = int(hooks.get("default_timeout_ms") or 0 if own is None else own)
            answer, category, reason = self._call_hook(host or self.host, turn_id, sub, out.payload, timeout_ms)
            mode = sub.get("mode")
            if category:
                self._hook_error(turn_id, sub, category, reason)
            if mode == "transform":
                if category:
                    raise HookAbort(str(sub.get("point")), str(sub.get("id")), category, reason)
                out.payload = answer["payload"]
            elif mode == "veto" and (category or answer.get("decision") != "ALLOW"):
                out.denied, out.by = True, str(sub.get("id"))
                out.reason = answer.get("reason") or reason or ("denied by " + out.by)
                return out
        return out

    def _call_hook(self, host: Host, turn_id: str, sub: JSON, payload: JSON, timeout_ms: int) -> Tuple[JSON, str, str]:
        params = {"call_context": self.call_context(turn_id), "point": sub.get("point"), "subscriber": sub.get("id"),
                  "mode": sub.get("mode"), "timeout_ms": timeout_ms, "payload": payload}
        mode = sub.get("mode")
        try:
            answer = host.hook(params, timeout_ms / 1000.0 if timeout_ms > 0 else None)
        except CallTimeout:
            return {}, "TIMEOUT", "no answer within %d ms" % timeout_ms
        except ProtocolViolation as exc:
            return {}, "INVALID_RESPONSE", str(exc)
        except RPCError as exc:
            if exc.code == PROCESS_CRASHED:
                return {}, "PROCESS_CRASHED", exc.message
            failed = {"transform": "TRANSFORM_FAILED", "veto": "VETO_FAILED"}.get(str(mode), "UNKNOWN")
            return {}, failed, exc.message
        why = _misfit(str(mode), payload, answer)
        return (answer, "", "") if not why else ({}, "INVALID_RESPONSE", why)

    def _hook_error(self, turn_id: str, sub: JSON, category: str, message: str) -> None:
        ev: JSON = {"session_id": self.id, "kind": "hook_error", "producer": sub.get("id"), "payload": {
            "subscriber": sub.get("id"), "point": sub.get("point"), "mode": sub.get("mode"),
            "category": category, "message": message}}
        if turn_id:
            ev["turn_id"] = turn_id
        self.host.event(ev)


def _misfit(mode: str, sent: JSON, answer: JSON) -> str:
    """Why an answer does not fit the subscriber's mode ("" when it does)."""
    outcome = answer.get("outcome")
    if mode == "observe":
        return "" if outcome == "ack" else "an observer answered %s" % outcome
    if mode == "veto":
        ok = outcome == "veto" and answer.get("decision") in ("ALLOW", "DENY")
        return "" if ok else "a veto subscriber answered %s %s" % (outcome, answer.get("decision"))
    got = answer.get("payload")
    if outcome != "transform" or not isinstance(got, dict):
        return "a transform subscriber answered %s without a payload" % outcome
    if got.get("variant") != sent.get("variant"):
        return "the payload's variant changed from %s to %s" % (sent.get("variant"), got.get("variant"))
    before, after = dict(sent), dict(got)
    if sent.get("variant") == "pre-model-call":
        before.pop("messages", None)
        after.pop("messages", None)
    same = _present(before) == _present(after)
    return "" if same else "the transform changed a field it may not change"


def _present(v: Any) -> Any:
    """v without its absent fields: absent, null and [] are one value in an
    optional field (PROTOCOL.md §3), and a subscriber's echo may spell it
    either way (the harness leaves out an empty tools list, for one)."""
    if isinstance(v, dict):
        return {k: _present(x) for k, x in v.items() if x is not None and x != []}
    if isinstance(v, list):
        return [_present(x) for x in v]
    return v


class Turn:
    """One turn: its number, turn_id and context contributions. purpose is
    the model requests' purpose ("turn"; "final_answer" for the one turn
    after a bound)."""

    def __init__(self, session: Session, number: int, turn_id: str) -> None:
        self.session = session
        self.number = number
        self.id = turn_id
        self.contributions: List[JSON] = []
        self.purpose = "turn"

    def assemble(self, history: List[JSON]) -> None:
        """Step 1: context/assemble on the history so far."""
        s = self.session
        res = s.host.assemble({"call_context": s.call_context(self.id), "turn": self.number, "history": history})
        self.contributions = res.get("contributions") or []

    def model(self, messages: List[JSON], tools: List[JSON]) -> Reply:
        """Steps 2 to 5: pre-model-call hooks (their transforms rewrite this
        request's messages only), one model/stream, a cost/usage report per
        usage event, post-model-response hooks (which see the reply or the
        failure). Raises ModelFailure after a failed call, HookAbort for an
        aborted transform chain."""
        s = self.session
        model = (s.config.get("model") or {}).get("name") or ""
        pre = s.dispatch(self.id, {"variant": "pre-model-call", "model": model, "messages": messages, "tools": tools})
        res = s.host.stream({"call_context": s.call_context(self.id), "purpose": self.purpose, "model": model,
                             "messages": pre.payload.get("messages") or [], "tools": tools,
                             "assembled_context": self.contributions, "attempt": 1})
        events = res.get("events") or []
        reply = fold(events)
        for ev in events:
            if ev.get("type") == "usage" and isinstance(ev.get("usage"), dict):
                reply.cost_usd += s.charge(self.id, ev["usage"])
        post: JSON = {"variant": "post-model-response", "message": reply.message, "usage": reply.usage,
                      "cost_usd": reply.cost_usd}
        if reply.stop_reason:
            post["stop_reason"] = reply.stop_reason
        if reply.error:
            post["error"] = reply.error
        s.dispatch(self.id, post)
        if reply.error:
            raise ModelFailure(reply.error)
        return reply

    def _hook_call(self, call: JSON) -> JSON:
        tool = self.session.tool(call["name"]) or {}
        return {"id": call["id"], "name": call["name"], "provider": tool.get("provider", ""),
                "kind": tool.get("kind", ""), "input": call.get("input")}

    def invoke(self, call: JSON) -> JSON:
        """One tool/invoke (attempt 1, no retry), as tool_result_of makes it."""
        s = self.session
        tool = s.tool(call["name"]) or {}
        try:
            res = s.host.invoke({"call_context": s.call_context(self.id), "call_id": call["id"],
                                 "provider": tool.get("provider", ""), "tool": call["name"],
                                 "input": call.get("input"), "attempt": 1})
        except (RPCError, ProtocolViolation, CallTimeout) as exc:
            return tool_result_of(None, exc)
        return tool_result_of(res)

    def interactive(self, call: JSON) -> JSON:
        """One interactive call through frontend/interactive."""
        s = self.session
        try:
            res = s.host.interactive({"call_context": s.call_context(self.id), "call_id": call["id"],
                                      "tool_name": call["name"], "prompt": "The agent asks: " + call["name"],
                                      "input": call.get("input")})
        except (RPCError, ProtocolViolation) as exc:
            return {"content": "the frontend failed: %s" % exc, "is_error": True, "error_category": "execution_failed"}
        return {"content": output_text(res.get("response"))}

    def run_tools(self, calls: List[JSON]) -> JSON:
        """Steps 7 to 14 in the order of section 12: a pre-tool-call dispatch
        per call, the data_source calls, the interactive calls, the
        plan-ready chain, the resource calls, a post-tool-call dispatch per
        call, the post-apply chain; each group in the model's order, one
        call at a time. It applies no policy: every resource call is in the
        plan as allow, decided_by "no-policy", and runs unless a veto
        subscriber denies the plan. A call of a tool the config lacks gets an
        error result and no invoke or tool hooks. Returns the user message
        with one tool_result per call, in the model's order."""
        s = self.session
        known = [c for c in calls if s.tool(c["name"]) is not None]
        for c in known:
            s.dispatch(self.id, {"variant": "pre-tool-call", "call": self._hook_call(c)})
        results: Dict[str, JSON] = {}

        def of_kind(kind: str) -> List[JSON]:
            return [c for c in known if (s.tool(c["name"]) or {}).get("kind") == kind]

        for c in of_kind("data_source"):
            results[c["id"]] = self.invoke(c)
        for c in of_kind("interactive"):
            results[c["id"]] = self.interactive(c)
        items = []
        for c in of_kind("resource"):
            t = s.tool(c["name"]) or {}
            items.append({"id": "%s/p%d" % (self.id, len(items) + 1), "tool_call_id": c["id"],
                          "provider": t.get("provider", ""), "tool": c["name"], "kind": "resource",
                          "risk": t.get("risk", ""), "description": t.get("description") or "",
                          "input": c.get("input"), "decision": "allow", "decided_by": "no-policy"})
        plan = {"items": items}
        verdict = s.dispatch(self.id, {"variant": "plan-ready", "plan": plan})
        for c in of_kind("resource"):
            if verdict.denied:
                results[c["id"]] = {"content": "denied by %s: %s" % (verdict.by, verdict.reason),
                                    "is_error": True, "error_category": "permission_denied"}
            else:
                results[c["id"]] = self.invoke(c)
        blocks = []
        for c in calls:
            result = results.get(c["id"]) or {"content": "unknown tool " + c["name"], "is_error": True,
                                               "error_category": "not_found"}
            if s.tool(c["name"]) is not None:
                s.dispatch(self.id, {"variant": "post-tool-call", "call": self._hook_call(c), "result": result})
            blocks.append(result_block(c["id"], result))
        s.dispatch(self.id, {"variant": "post-apply", "plan": plan})
        return {"role": "user", "content": blocks}
