#!/usr/bin/env python3
"""A toy agent loop made a conform kernel with conform_kit.

toy_loop is the loop being wrapped: ten lines that know nothing of conform.
ToyKernel is the adapter: the loop's model and tools are the harness's,
reached through the kit's helpers. Run conform against it:

    go run ./cmd/conform run --kernel "python3 examples/python-kit/toy_kernel.py" --tags @TA-01
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import conform_kit as kit  # noqa: E402


def toy_loop(prompt, model, tools):
    """Ask the model, run the tools it calls, stop at an answer without calls."""
    history = [{"role": "user", "content": [{"type": "text", "text": prompt}]}]
    while True:
        reply = model(history)
        history.append(reply)
        results = tools(history)
        if not results:
            return reply
        history.append(results)


class ToyKernel(kit.Kernel):
    def info(self):
        return kit.Info(name="toy-kernel-python", version="0.1.0")

    def run(self, host, params):
        s = kit.Session(host, params)
        turn = None

        def model(history):
            nonlocal turn
            turn = s.new_turn(history)  # context/assemble
            return turn.model(history, s.tool_specs()).message  # hooks, model/stream, cost/usage

        def tools(history):
            calls = [b for b in history[-1]["content"] if b["type"] == "tool_use"]
            return turn.run_tools(calls) if calls else None  # hooks, invokes, interactive calls, plan

        try:
            s.start()
            final = toy_loop(s.prompt, model, tools)
        except kit.Cancelled:
            return s.finish("cancelled")
        except (kit.RPCError, kit.HookAbort, kit.ModelFailure, kit.ProtocolViolation, ValueError) as exc:
            return s.finish("failed", why=exc)
        return s.finish("completed", final)


if __name__ == "__main__":
    kit.main(ToyKernel())
