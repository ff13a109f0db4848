#!/usr/bin/env python3
"""A fuller kernel on conform_kit, for the kit's mutation campaign.

toy_kernel.py uses five of the kit's helpers; this one uses the rest too,
so that a mutant of any helper reaches a kernel the suite judges
(make mutation-pythonkit, cmd/kitmutate): the bounds with the final-answer
turn (Session.begin, Turn.assemble, Turn.purpose), kernel events
(Session.event), spans (Host.span; each tool call's and the plan-ready
chain's around the kit's Turn.invoke, Turn.interactive and
Session.dispatch), a declared reading and glue (Info),
refused configs (reject_config), frontend/decide (nothing_pending) and the
conversions (fold, tool_result_of, result_block, output_text, price) through
Turn. It is not a conforming kernel: it has no retries, policy or
sub-agents, and the campaign counts only the scenarios it passes.

    go run ./cmd/conform run --kernel "python3 examples/python-kit/full_kernel.py"
"""

import os
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import conform_kit as kit  # noqa: E402

FINAL = {"role": "user", "content": [{"type": "text", "text": "A limit was reached: answer now, without tools."}]}


def _ns() -> int:
    return time.time_ns()


class FullKernel(kit.Kernel):
    def __init__(self):
        self.lock = threading.Lock()
        self.running = set()

    def info(self):
        # The kit's dispatch waits without a deadline when a subscriber's
        # effective timeout is 0: the "none" reading of hooks.zero_timeout.
        return kit.Info(name="full-kernel-python", version="0.1.0", readings={"hooks.zero_timeout": "none"},
                        glue={"TA-02": "the bounds check is this adapter's, not a framework's"})

    def decide(self, host, params):
        with self.lock:
            known = params.get("session_id") in self.running
        if not known:
            raise kit.RPCError(kit.UNKNOWN_SESSION, "no running session %s" % params.get("session_id"))
        return kit.nothing_pending(host, params)

    def run(self, host, params):
        bounds = (params.get("config") or {}).get("bounds") or {}
        if bounds.get("soft"):
            raise kit.reject_config("soft limits are not supported (no bound.soft_limits capability)")
        sid = params.get("session_id")
        with self.lock:
            self.running.add(sid)
        try:
            return Loop(host, params, bounds).run()
        finally:
            with self.lock:
                self.running.discard(sid)


class Loop:
    def __init__(self, host, params, bounds):
        self.s = kit.Session(host, params)
        self.bounds = bounds
        self.began = time.monotonic()
        self.trace = uuid.uuid4().hex
        self.root = uuid.uuid4().hex[:16]
        self.root_start = _ns()
        # The running turn's span id, the parent of its tool and policy spans.
        self.turn_span = ""
        # The plan-ready chain is this loop's whole policy step (run_tools
        # decides every item "no-policy"), so the policy_chain span is its.
        dispatch = self.s.dispatch

        def traced_dispatch(turn_id, payload, host=None):
            if payload.get("variant") != "plan-ready":
                return dispatch(turn_id, payload, host)
            return self.timed("loop.policy", "policy_chain", turn_id, lambda: dispatch(turn_id, payload, host))
        self.s.dispatch = traced_dispatch

    def span(self, name, role, turn_id, start, parent=None, span_id=None):
        """span_id is given for a span whose children are sent before it ends."""
        if not self.s.config.get("telemetry"):
            return
        sp = {"trace_id": self.trace, "span_id": span_id or uuid.uuid4().hex[:16], "name": name, "role": role,
              "session_id": self.s.id, "start_unix_nano": start, "end_unix_nano": _ns(),
              "attributes": {"conform.role": role}}
        if parent is not None:
            sp["parent_span_id"] = parent
        if turn_id:
            sp["turn_id"] = turn_id
        self.s.host.span(sp)

    def bound(self):
        """The status of the bound that fired at the end of a turn, or ""."""
        s, b = self.s, self.bounds
        if b.get("max_turns") is not None and s.turns >= int(b["max_turns"]):
            return "error_max_turns"
        if b.get("max_cost_usd") is not None and s.cost_usd >= float(b["max_cost_usd"]):
            return "error_max_budget_usd"
        if b.get("max_wall_clock_s") is not None and time.monotonic() - self.began >= float(b["max_wall_clock_s"]):
            return "error_max_wall_clock"
        return ""

    def timed(self, name, role, turn_id, fn):
        """Runs fn under a span of the running turn, ended however fn ends."""
        start, parent = _ns(), self.turn_span
        try:
            return fn()
        finally:
            self.span(name, role, turn_id, start, parent)

    def turn(self, history, purpose="turn"):
        s = self.s
        t = s.begin()
        t.purpose = purpose
        start = _ns()
        turn_span = self.turn_span = uuid.uuid4().hex[:16]
        # run_tools is the kit's: the calls it makes through the turn are
        # where each tool runs, so each gets its tool_execution span there.
        invoke, interactive = t.invoke, t.interactive
        t.invoke = lambda c: self.timed("loop.tool " + c["name"], "tool_execution", t.id, lambda: invoke(c))
        t.interactive = lambda c: self.timed("loop.tool " + c["name"], "tool_execution", t.id, lambda: interactive(c))
        s.event(t.id, "turn_started", {"turn": t.number, "purpose": purpose})
        t.assemble(history)
        messages = history + [FINAL] if purpose == "final_answer" else history
        model_start = _ns()
        reply = t.model(messages, [] if purpose == "final_answer" else s.tool_specs())
        self.span("loop.model", "model_call", t.id, model_start, turn_span)
        results = None
        if reply.calls and purpose == "turn":
            results = t.run_tools(reply.calls)
        self.span("loop.turn", "turn", t.id, start, self.root, turn_span)
        return reply, results

    def run(self):
        s = self.s
        history = [{"role": "user", "content": [{"type": "text", "text": s.prompt}]}]
        try:
            s.start()
            while True:
                reply, results = self.turn(history)
                history.append(reply.message)
                if results is None:
                    return self.end("completed", reply.message)
                history.append(results)
                status = self.bound()
                if status:
                    s.event("", "limit_reached", {"status": status})
                    reply, _ = self.turn(history, "final_answer")
                    return self.end(status, reply.message)
        except kit.Cancelled:
            return self.end("cancelled")
        except (kit.RPCError, kit.HookAbort, kit.ModelFailure, kit.ProtocolViolation, ValueError) as exc:
            return self.end("failed", why=exc)

    def end(self, status, final=None, why=None):
        res = self.s.finish(status, final, why)
        self.span("loop.session", "session", "", self.root_start)
        return res


if __name__ == "__main__":
    kit.main(FullKernel())
