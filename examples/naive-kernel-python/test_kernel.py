"""Self-test of the naive Python kernel: a minimal harness over real pipes.

Run from the repository root:

    python3 -m unittest discover -s examples/naive-kernel-python
"""

import json
import os
import queue
import subprocess
import sys
import threading
import unittest

KERNEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernel.py")
TIMEOUT = 10


class MiniHarness:
    """Plays the harness: calls the kernel, answers its requests with the
    given model script, and logs every message the kernel sends."""

    def __init__(self, model_turns=None, tool_outputs=None):
        self.proc = subprocess.Popen(
            [sys.executable, KERNEL],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        # model_turns: one list of stream events per model/stream request.
        self.model_turns = list(model_turns or [[{"type": "text_delta", "text": "done"}]])
        self.tool_outputs = tool_outputs or {}
        self.log = []  # (method, params) of every kernel request/notification
        self.answers = {}  # our request id -> queue
        self.next_id = 0
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _write(self, msg):
        msg["jsonrpc"] = "2.0"
        with self.lock:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()

    def _read(self):
        for line in self.proc.stdout:
            msg = json.loads(line)
            assert msg.get("jsonrpc") == "2.0", msg
            if "method" in msg:
                self.log.append((msg["method"], msg.get("params")))
                if "id" in msg:
                    self._answer(msg)
            else:
                self.answers[msg["id"]].put(msg)

    def _answer(self, msg):
        method, params = msg["method"], msg["params"]
        if method == "context/assemble":
            result = {"contributions": [{"source": "mini", "text": "ctx"}]}
        elif method == "hook/dispatch":
            result = {"outcome": "ack"}
            if params["mode"] == "transform":
                result = {"outcome": "transform", "payload": {
                    "variant": params["point"],
                    "messages": [{"role": "user", "content": [{"type": "text", "text": "rewritten"}]}],
                }}
        elif method == "model/stream":
            result = {"events": self.model_turns.pop(0)}
        elif method == "tool/invoke":
            result = {"output": self.tool_outputs.get(params["tool"], "ok")}
        elif method == "frontend/interactive":
            result = {"response": "yes"}
        else:
            self._write({"id": msg["id"], "error": {"code": -32601, "message": method}})
            return
        self._write({"id": msg["id"], "result": result})

    def send(self, method, params):
        """Sends a request; returns the queue its answer will arrive on."""
        with self.lock:
            self.next_id += 1
            req_id = self.next_id
            self.answers[req_id] = queue.Queue()
        self._write({"id": req_id, "method": method, "params": params})
        return self.answers[req_id]

    def request(self, method, params):
        return self.send(method, params).get(timeout=TIMEOUT)

    def methods(self):
        return [m for m, _ in self.log]

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        rc = self.proc.wait(timeout=TIMEOUT)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return rc


def config(tools=None, subscribers=None):
    return {
        "profile": "default",
        "working_directory": "/tmp",
        "bounds": {"max_turns": 1},
        "hooks": {"default_timeout_ms": 1000, "subscribers": subscribers or []},
        "policy": {"rules": []},
        "telemetry": False,
        "model": {
            "name": "fake-model",
            "supports_tool_use": True,
            "supports_parallel_tool_calls": True,
            "pricing": {"currency": "USD", "tiers": [{"input_per_mtok": 2.0, "output_per_mtok": 10.0}]},
        },
        "tools": tools or [],
    }


class KernelTest(unittest.TestCase):
    def start(self, init=True, **kw):
        h = MiniHarness(**kw)
        self.addCleanup(lambda: h.proc.poll() is None and h.close())
        if init:
            resp = h.request("initialize", {"protocol_versions": ["conform.wire/v1"], "harness": {"name": "t", "version": "0"}})
            self.assertIn("result", resp)
        return h

    def test_initialize(self):
        h = self.start(init=False)
        resp = h.request("session/run", {"session_id": "s0", "prompt": "hi", "config": config()})
        self.assertEqual(resp["error"]["code"], -32600)  # initialize first
        resp = h.request("initialize", {"protocol_versions": ["conform.wire/v1"], "harness": {"name": "t", "version": "0"}})
        self.assertEqual(resp["result"], {
            "protocol_version": "conform.wire/v1",
            "kernel": {"name": "naive-kernel-python", "version": "0.1.0"},
            "capabilities": [],
        })

    def test_text_only_session_completes(self):
        h = self.start(model_turns=[[
            {"type": "text_delta", "text": "hello "},
            {"type": "text_delta", "text": "world"},
            {"type": "usage", "usage": {"input_tokens": 1000, "output_tokens": 100}},
            {"type": "stop", "stop_reason": "end_turn"},
        ]])
        subs = [{"id": s, "point": s, "mode": "observe"} for s in ("session-start", "pre-model-call", "session-end")]
        resp = h.request("session/run", {"session_id": "s1", "prompt": "hi", "config": config(subscribers=subs)})
        res = resp["result"]
        self.assertEqual(res["status"], "completed")
        self.assertEqual(res["session_id"], "s1")
        self.assertEqual(res["turns"], 1)
        self.assertEqual(res["final_message"], {"role": "assistant", "content": [{"type": "text", "text": "hello world"}]})
        self.assertEqual((res["total_input_tokens"], res["total_output_tokens"]), (1000, 100))
        self.assertAlmostEqual(res["total_cost_usd"], 0.003)
        self.assertEqual(h.methods(), [
            "session/meta", "hook/dispatch", "context/assemble", "hook/dispatch",
            "model/stream", "cost/usage", "hook/dispatch", "session/meta",
        ])
        stream = dict(h.log)["model/stream"]
        self.assertEqual(stream["call_context"], {"session_id": "s1", "turn_id": "t1", "working_directory": "/tmp"})
        self.assertEqual(stream["assembled_context"], [{"source": "mini", "text": "ctx"}])
        self.assertEqual(stream["purpose"], "turn")
        metas = [p for m, p in h.log if m == "session/meta"]
        self.assertEqual([m["status"] for m in metas], ["running", "completed"])
        self.assertIn("ended_at", metas[1])

    def test_tool_turn_order_and_results(self):
        tools = [
            {"provider": "fs", "name": "write", "description": "writes", "kind": "resource", "risk": "medium"},
            {"provider": "fs", "name": "read", "description": "reads", "kind": "data_source", "risk": "low",
             "input_schema": {"type": "object"}},
            {"provider": "ui", "name": "ask", "description": "asks", "kind": "interactive", "risk": "low"},
        ]
        h = self.start(
            model_turns=[
                [
                    {"type": "tool_call", "id": "c1", "name": "write", "input": {"path": "a"}},
                    {"type": "tool_call", "id": "c2", "name": "read", "input": {"path": "b"}},
                    {"type": "tool_call", "id": "c3", "name": "nope", "input": {}},
                    {"type": "tool_call", "id": "c4", "name": "ask", "input": {"q": "ok?"}},
                ],
                [{"type": "text_delta", "text": "all done"}],
            ],
            tool_outputs={"read": {"bytes": 3}, "write": "written"},
        )
        subs = [{"id": "plan", "point": "plan-ready", "mode": "veto", "timeout_ms": 50}]
        res = h.request("session/run", {"session_id": "s2", "prompt": "go", "config": config(tools, subs)})["result"]
        self.assertEqual(res["status"], "completed")
        self.assertEqual(res["turns"], 2)
        # data_source, then interactive, then plan-ready, then resource.
        phases = [(m, p.get("tool") or p.get("tool_name") or p.get("point"))
                  for m, p in h.log if m in ("tool/invoke", "frontend/interactive", "hook/dispatch")]
        self.assertEqual(phases, [
            ("tool/invoke", "read"), ("frontend/interactive", "ask"),
            ("hook/dispatch", "plan-ready"), ("tool/invoke", "write"),
        ])
        hooks = [p for m, p in h.log if m == "hook/dispatch"]
        self.assertEqual(len(hooks), 1)
        self.assertEqual(hooks[0]["timeout_ms"], 50)
        self.assertEqual(hooks[0]["payload"]["plan"]["items"][0]["id"], "p-c1")
        second = [p for m, p in h.log if m == "model/stream"][1]
        results = second["messages"][-1]["content"]
        self.assertEqual(results, [
            {"type": "tool_result", "tool_use_id": "c1", "content": "written"},
            {"type": "tool_result", "tool_use_id": "c2", "content": '{"bytes":3}'},
            {"type": "tool_result", "tool_use_id": "c3", "content": "unknown tool", "is_error": True},
            {"type": "tool_result", "tool_use_id": "c4", "content": "yes"},
        ])
        self.assertEqual(second["tools"][1], {"name": "read", "description": "reads", "input_schema": {"type": "object"}})

    def test_transform_replaces_model_messages(self):
        h = self.start()
        subs = [{"id": "rw", "point": "pre-model-call", "mode": "transform"}]
        res = h.request("session/run", {"session_id": "s3", "prompt": "original", "config": config(subscribers=subs)})
        self.assertEqual(res["result"]["status"], "completed")
        stream = dict(h.log)["model/stream"]
        self.assertEqual(stream["messages"], [{"role": "user", "content": [{"type": "text", "text": "rewritten"}]}])

    def test_sessions_run_concurrently(self):
        # The first session's model call is held until the second session has
        # reached its own model call: only a kernel that runs sessions at
        # once gets past this.
        both = threading.Barrier(2, timeout=TIMEOUT)
        h = self.start(model_turns=[[{"type": "text_delta", "text": "a"}], [{"type": "text_delta", "text": "b"}]])
        answer = h._answer

        def held(msg):
            if msg["method"] == "model/stream":
                threading.Thread(target=lambda: (both.wait(), answer(msg)), daemon=True).start()
            else:
                answer(msg)

        h._answer = held
        q1 = h.send("session/run", {"session_id": "x", "prompt": "1", "config": config()})
        q2 = h.send("session/run", {"session_id": "y", "prompt": "2", "config": config()})
        for q in (q1, q2):
            self.assertEqual(q.get(timeout=TIMEOUT)["result"]["status"], "completed")

    def test_unknown_method(self):
        h = self.start()
        resp = h.request("no/such", {})
        self.assertEqual(resp["error"]["code"], -32601)

    def test_shutdown_exits_zero(self):
        h = self.start()
        self.assertEqual(h.request("shutdown", {})["result"], {})
        self.assertEqual(h.proc.wait(timeout=TIMEOUT), 0)
        h.close()

    def test_eof_exits_zero(self):
        h = self.start()
        self.assertEqual(h.close(), 0)


if __name__ == "__main__":
    unittest.main()
