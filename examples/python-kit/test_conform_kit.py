"""Self-test of conform_kit: a minimal harness over real pipes, in process.

Run from the repository root:

    python3 -m unittest discover -s examples/python-kit

With CONFORM_KIT_TRANSCRIPT set, every message the kit sends during these
tests is appended to that file; examples/python-kit/kit_test.go runs this
test so and validates the transcript with conform's JSON Schemas.
"""

import json
import os
import queue
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import conform_kit as kit  # noqa: E402
import toy_kernel  # noqa: E402

TIMEOUT = 10
TRANSCRIPT = os.environ.get("CONFORM_KIT_TRANSCRIPT") or None

CONFIG = {
    "profile": "p", "working_directory": "/w", "bounds": {}, "telemetry": False,
    "hooks": {"default_timeout_ms": 1000, "subscribers": []}, "policy": {"rules": []},
    "model": {"name": "m", "supports_tool_use": True, "supports_parallel_tool_calls": True,
              "pricing": {"currency": "USD", "tiers": [{"input_per_mtok": 1, "output_per_mtok": 2}]}},
    "tools": [
        {"provider": "fs", "name": "read", "description": "Read", "kind": "data_source", "risk": "low"},
        {"provider": "ui", "name": "ask", "description": "Ask", "kind": "interactive", "risk": "low"},
        {"provider": "fs", "name": "write", "description": "Write", "kind": "resource", "risk": "high"},
    ],
}

CALLS = [[
    {"type": "text_delta", "text": "Working."},
    {"type": "tool_call", "id": "c1", "name": "read", "input": {"path": "a"}},
    {"type": "tool_call", "id": "c2", "name": "ask", "input": {"q": "ok?"}},
    {"type": "tool_call", "id": "c3", "name": "write", "input": {"path": "b"}},
    {"type": "tool_call", "id": "c4", "name": "nope"},
    {"type": "usage", "usage": {"input_tokens": 1000, "output_tokens": 10}},
    {"type": "stop", "stop_reason": "tool_use"},
], [
    {"type": "text_delta", "text": "Done."},
    {"type": "usage", "usage": {"input_tokens": 1000, "output_tokens": 10}},
    {"type": "stop", "stop_reason": "end_turn"},
]]


class MiniHarness:
    """Plays the harness over two pipes: calls the kit, answers its requests
    (hook answers by subscriber from hooks), and logs what it sends."""

    def __init__(self, kernel, hooks=None, model_turns=None):
        hr, kw = os.pipe()
        kr, hw = os.pipe()
        self.wfile = os.fdopen(hw, "wb")
        self.rfile = os.fdopen(hr, "rb")
        self.hooks = hooks or {}
        self.model_turns = list(model_turns or CALLS)
        self.log = []  # (method, params) of every kit request and notification
        self.cancelled = []  # ids the kit gave up on
        self.answers = {}
        self.next_id = 0
        self.lock = threading.Lock()
        self.kit_done = threading.Event()
        kin, kout = os.fdopen(kr, "rb"), os.fdopen(kw, "wb")
        self._kit_files = (kin, kout)

        def serve():
            kit.serve(kernel, kin, kout, transcript=TRANSCRIPT)
            self.kit_done.set()

        threading.Thread(target=serve, daemon=True).start()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def close(self):
        self.wfile.close()  # the kit's end of input
        self.kit_done.wait(TIMEOUT)
        for f in self._kit_files:
            f.close()
        self.reader.join(TIMEOUT)
        self.rfile.close()

    def _write(self, msg):
        msg["jsonrpc"] = "2.0"
        with self.lock:
            self.wfile.write((json.dumps(msg) + "\n").encode())
            self.wfile.flush()

    def _read(self):
        for line in self.rfile:
            msg = json.loads(line)
            if "method" in msg:
                self.log.append((msg["method"], msg.get("params")))
                if msg["method"] == "$/cancelRequest":
                    self.cancelled.append(msg["params"]["id"])
                elif "id" in msg:
                    threading.Thread(target=self._answer, args=(msg,), daemon=True).start()
            else:
                self.answers[msg["id"]].put(msg)

    def _answer(self, msg):
        method, p = msg["method"], msg["params"]
        result = None
        if method == "context/assemble":
            # From the second turn on, null: the schema lets the harness
            # answer null for no contributions, and the kit must pass on a
            # list (the transcript validates it).
            result = {"contributions": [{"source": "mini", "text": "ctx"}] if p["turn"] == 1 else None}
        elif method == "hook/dispatch":
            script = self.hooks.get(p["subscriber"])
            if script == "hang":
                return  # never answered; the kit must give up on it
            if script is not None:
                result = script
            elif p["mode"] == "transform":
                result = {"outcome": "transform", "payload": p["payload"]}
            elif p["mode"] == "veto":
                result = {"outcome": "veto", "decision": "ALLOW"}
            else:
                result = {"outcome": "ack"}
        elif method == "model/stream":
            result = {"events": self.model_turns.pop(0)}
        elif method == "tool/invoke":
            if p["tool"] == "write":
                self._write({"id": msg["id"], "error": {"code": kit.PROCESS_CRASHED, "message": "gone"}})
                return
            result = {"output": {"ok": True}}
        elif method == "frontend/interactive":
            result = {"response": "yes"}
        if result is None:
            self._write({"id": msg["id"], "error": {"code": -32601, "message": method}})
        else:
            self._write({"id": msg["id"], "result": result})

    def send(self, method, params):
        with self.lock:
            self.next_id += 1
            req_id = self.next_id
            self.answers[req_id] = queue.Queue(maxsize=1)
        self._write({"id": req_id, "method": method, "params": params})
        return self.answers[req_id]

    def call(self, method, params):
        return self.send(method, params).get(timeout=TIMEOUT)

    def init(self):
        res = self.call("initialize", {"protocol_versions": [kit.PROTOCOL_VERSION], "harness": {"name": "mini", "version": "0"}})
        assert "result" in res, res

    def sent(self, method):
        return [p for m, p in self.log if m == method]


class Blocking(kit.Kernel):
    """Sessions that wait until cancelled."""

    def __init__(self):
        self.started = threading.Event()

    def info(self):
        return kit.Info("blocking", "0")

    def run(self, host, params):
        s = kit.Session(host, params)
        s.start()
        self.started.set()
        try:
            host.stream({"call_context": s.call_context("t"), "purpose": "turn", "model": "m", "messages": [],
                         "tools": [], "assembled_context": [], "attempt": 1})
        except kit.Cancelled:
            return s.finish("cancelled")
        return s.finish("completed")


class Hang(MiniHarness):
    def _answer(self, msg):
        if msg["method"] == "model/stream":
            return  # held until cancelled
        MiniHarness._answer(self, msg)


def run_params(sid, config=None):
    return {"session_id": sid, "prompt": "go", "config": config or CONFIG}


class KitTest(unittest.TestCase):
    def test_initialize(self):
        h = MiniHarness(toy_kernel.ToyKernel())
        self.addCleanup(h.close)
        self.assertEqual(h.call("session/run", run_params("s"))["error"]["code"], kit.INVALID_REQUEST)
        res = h.call("initialize", {"protocol_versions": ["conform.wire/v0"], "harness": {"name": "m", "version": "0"}})
        self.assertEqual(res["error"]["code"], kit.VERSION_MISMATCH)
        h.init()
        res = h.call("initialize", {"protocol_versions": [kit.PROTOCOL_VERSION], "harness": {"name": "m", "version": "0"}})
        self.assertEqual(res["error"]["code"], kit.INVALID_REQUEST)
        self.assertEqual(h.call("no/such", {})["error"]["code"], kit.METHOD_NOT_FOUND)

    def test_initialize_glue(self):
        class Glued(Blocking):
            def info(self):
                return kit.Info("glued", "0", glue={"TA-25": "pricing is the glue's"})

        for kernel, want in ((Glued(), [{"requirement": "TA-25", "reason": "pricing is the glue's"}]), (Blocking(), None)):
            h = MiniHarness(kernel)
            self.addCleanup(h.close)
            res = h.call("initialize", {"protocol_versions": [kit.PROTOCOL_VERSION], "harness": {"name": "m", "version": "0"}})
            self.assertEqual(res["result"].get("glue"), want)

    def test_turn_shape(self):
        subs = [{"id": "O", "point": p, "mode": "observe"} for p in kit.HOOK_POINTS if p != "context-assemble"]
        h = MiniHarness(toy_kernel.ToyKernel())
        self.addCleanup(h.close)
        h.init()
        res = h.call("session/run", run_params("s1", dict(CONFIG, hooks={"default_timeout_ms": 1000, "subscribers": subs})))["result"]
        self.assertEqual(res["status"], "completed")
        self.assertEqual(res["turns"], 2)
        self.assertEqual(res["total_input_tokens"], 2000)
        labels = []
        for m, p in h.log:
            if m == "hook/dispatch":
                labels.append("hook " + p["point"])
            elif m == "tool/invoke":
                labels.append("invoke " + p["tool"])
            elif m in ("context/assemble", "model/stream", "frontend/interactive"):
                labels.append(m)
        turn = ["context/assemble", "hook pre-model-call", "model/stream", "hook post-model-response"]
        want = (["hook session-start"] + turn + ["hook pre-tool-call"] * 3 +
                ["invoke read", "frontend/interactive", "hook plan-ready", "invoke write"] +
                ["hook post-tool-call"] * 3 + ["hook post-apply"] + turn + ["hook session-end"])
        self.assertEqual(labels, want)
        second = h.sent("model/stream")[1]
        results = second["messages"][-1]
        self.assertEqual(results["role"], "user")
        got = [(b["tool_use_id"], b["content"], b.get("error_category", "")) for b in results["content"]]
        self.assertEqual(got, [("c1", '{"ok":true}', ""), ("c2", "yes", ""),
                               ("c3", "process_crashed: -32003: gone", "process_crashed"),
                               ("c4", "unknown tool nope", "not_found")])
        self.assertEqual(len(h.sent("cost/usage")), 2)
        self.assertEqual([r["status"] for r in h.sent("session/meta")], ["running", "completed"])

    def test_dispatch_rules(self):
        subs = [
            {"id": "late", "point": "post-model-response", "mode": "observe", "timeout_ms": 50},
            {"id": "wrong", "point": "pre-tool-call", "mode": "observe"},
            {"id": "V", "point": "plan-ready", "mode": "veto"},
            {"id": "never", "point": "plan-ready", "mode": "observe"},
            {"id": "zero", "point": "pre-model-call", "mode": "observe", "timeout_ms": 0},
        ]
        hooks = {"late": "hang", "wrong": {"outcome": "veto", "decision": "ALLOW"},
                 "V": {"outcome": "veto", "decision": "DENY", "reason": "no"}}
        h = MiniHarness(toy_kernel.ToyKernel(), hooks=hooks)
        self.addCleanup(h.close)
        h.init()
        res = h.call("session/run", run_params("s", dict(CONFIG, hooks={"default_timeout_ms": 1000, "subscribers": subs})))["result"]
        self.assertEqual(res["status"], "completed")
        self.assertNotIn("never", [p["subscriber"] for p in h.sent("hook/dispatch")])
        self.assertNotIn("write", [p["tool"] for p in h.sent("tool/invoke")])
        self.assertTrue(h.cancelled, "the late subscriber's call was not cancelled")
        errors = {e["producer"]: e["payload"]["category"] for e in h.sent("event") if e["kind"] == "hook_error"}
        self.assertEqual(errors, {"late": "TIMEOUT", "wrong": "INVALID_RESPONSE"})
        # An own timeout_ms of 0 is not absent: the dispatch announces 0,
        # not the default of 1000 (the kit once read 0 as absent).
        announced = {p["subscriber"]: p["timeout_ms"] for p in h.sent("hook/dispatch")}
        self.assertEqual((announced["zero"], announced["late"], announced["wrong"]), (0, 50, 1000))

    def test_misfit_absent_fields(self):
        # The harness leaves out an empty tools list (and a subscriber may
        # echo a null): a transform that changed only messages still fits.
        sent = {"variant": "pre-model-call", "model": "m", "messages": [], "tools": []}
        fits = {"outcome": "transform", "payload": {"variant": "pre-model-call", "model": "m", "messages": [{"role": "user"}]}}
        self.assertEqual(kit._misfit("transform", sent, fits), "")
        self.assertEqual(kit._misfit("transform", dict(sent, tools=None), fits), "")
        changed = {"outcome": "transform", "payload": {"variant": "pre-model-call", "model": "m!"}}
        self.assertNotEqual(kit._misfit("transform", sent, changed), "")
        more = {"outcome": "transform", "payload": {"variant": "pre-model-call", "model": "m", "tools": [{"name": "x"}]}}
        self.assertNotEqual(kit._misfit("transform", sent, more), "")

    def test_defaults_and_cancel(self):
        k = Blocking()
        h = Hang(k)
        self.addCleanup(h.close)
        h.init()
        run = h.send("session/run", run_params("s1"))
        self.assertTrue(k.started.wait(TIMEOUT))
        self.assertEqual(h.call("session/run", run_params("s1"))["error"]["code"], kit.INVALID_REQUEST)
        self.assertEqual(h.call("session/continue", {"session_id": "s1", "message": "x"})["error"]["code"], kit.INVALID_PARAMS)
        self.assertEqual(h.call("memory/write", {"session_id": "s1", "call_id": "c", "values": {}})["error"]["code"], kit.INVALID_PARAMS)
        spawn = {"parent_session_id": "s1", "call_id": "c", "profile": "p", "prompt": "x"}
        self.assertEqual(h.call("session/spawn", spawn)["error"]["code"], kit.METHOD_NOT_FOUND)
        decide = {"session_id": "s1", "connection": "second",
                  "decisions": [{"plan_item_id": "pi-1", "decision": "ALLOW"}],
                  "interactive_responses": [{"call_id": "c-1", "response": "yes"}]}
        res = h.call("frontend/decide", decide)["result"]
        self.assertEqual([r["accepted"] for r in res["results"] + res["interactive_results"]], [False, False])
        self.assertEqual(len([e for e in h.sent("event") if e["kind"] == "frontend_error"]), 2)
        self.assertEqual(h.call("session/cancel", {"session_id": "s1"}).get("result"), {})
        self.assertEqual(run.get(timeout=TIMEOUT)["result"]["status"], "cancelled")
        self.assertTrue(h.cancelled, "the held model call was not cancelled")
        self.assertEqual(h.call("session/cancel", {"session_id": "s1"}).get("result"), {})
        for method, params in (("session/cancel", {"session_id": "nobody"}), ("session/continue", {"session_id": "s1", "message": "x"}),
                               ("frontend/decide", decide)):
            self.assertEqual(h.call(method, params)["error"]["code"], kit.UNKNOWN_SESSION, method)

    def test_shutdown_answers_sessions_first(self):
        k = Blocking()
        h = Hang(k)
        self.addCleanup(h.close)
        h.init()
        run = h.send("session/run", run_params("s1"))
        self.assertTrue(k.started.wait(TIMEOUT))
        shut = h.send("shutdown", {})
        self.assertEqual(shut.get(timeout=TIMEOUT).get("result"), {})
        self.assertEqual(run.get_nowait()["result"]["status"], "cancelled")
        self.assertTrue(h.kit_done.wait(TIMEOUT), "serve did not return after shutdown")

    def test_conversions(self):
        self.assertEqual(kit.output_text("hi"), "hi")
        self.assertEqual(kit.output_text({"a": 1}), '{"a":1}')
        self.assertEqual(kit.output_text(None), "")
        crash = kit.tool_result_of(None, kit.RPCError(kit.PROCESS_CRASHED, "x"))
        self.assertEqual((crash["is_error"], crash["error_category"]), (True, "process_crashed"))
        failed = kit.tool_result_of({"output": "no", "is_error": True, "error_category": "not_found"})
        self.assertEqual(failed, {"content": "no", "is_error": True, "error_category": "not_found"})
        r = kit.fold([{"type": "text_delta", "text": "a"}, {"type": "text_delta", "text": "b"},
                      {"type": "tool_call", "id": "c", "name": "t"},
                      {"type": "usage", "usage": {"input_tokens": 1, "output_tokens": 0}},
                      {"type": "usage", "usage": {"input_tokens": 2, "output_tokens": 1}},
                      {"type": "stop", "stop_reason": "tool_use"}])
        self.assertEqual(r.message["content"][0]["text"], "ab")
        self.assertEqual(r.calls[0]["input"], {})
        self.assertEqual(r.usage, {"input_tokens": 3, "output_tokens": 1})
        tiers = {"tiers": [{"input_per_mtok": 1, "output_per_mtok": 2, "input_tokens_until": 100},
                           {"input_per_mtok": 3, "output_per_mtok": 4, "input_tokens_from": 100}]}
        self.assertEqual(kit.price(tiers, {"input_tokens": 200, "output_tokens": 0}, time.time()), (0.0006, 1))
        with self.assertRaises(ValueError):
            kit.price({"tiers": []}, {"input_tokens": 1, "output_tokens": 0}, time.time())


if __name__ == "__main__":
    unittest.main()
