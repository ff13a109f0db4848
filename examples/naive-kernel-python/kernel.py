#!/usr/bin/env python3
"""naive-kernel-python: a deliberately simple agent-loop kernel speaking conform.wire/v1.

It exists to show that the wire protocol is language-neutral: the standard
library only, Python 3.9+. It follows the turn order of the agent-loop
specification but ignores everything else on purpose: no bounds (config.bounds
is never read), no final-answer turn, no policy, no permission requests, no
trace spans, no doom-loop detection, no hook timeouts, no hook failure
handling.

The wire is conform_kit's (examples/python-kit/conform_kit.py): framing,
the session threads, initialize, cancellation, shutdown and the answers of
a kernel without sub-agents, soft limits or other frontend connections.
Everything naive is here: the loop, its hooks, its costs and its tools use
only the kit's Host, never its helpers, which would make the kernel less
naive than it is meant to be.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python-kit"))

import conform_kit as kit  # noqa: E402

KERNEL_NAME = "naive-kernel-python"
KERNEL_VERSION = "0.1.0"

# The one safety net: a session that never ends on its own fails after this
# many turns. It is not max_turns (config.bounds is ignored entirely).
SAFETY_NET_TURNS = 100


def log(*args):
    print(KERNEL_NAME + ":", *args, file=sys.stderr, flush=True)


class Session:
    """One session/run, naive from start to end."""

    def __init__(self, host, params):
        self.host = host
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
        self.started_at = kit.now_rfc3339()

    def call_context(self, turn_id):
        return {"session_id": self.session_id, "turn_id": turn_id, "working_directory": self.working_directory}

    # -- hooks -------------------------------------------------------------

    def dispatch(self, point, payload, turn_id, host=None):
        """Calls every subscriber of point in declaration order, with no
        timeout. Returns the messages a pre-model-call transform produced, or
        None; every other answer, and every failure, is ignored."""
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
                answer = (host or self.host).hook(params)
            except (kit.RPCError, kit.ProtocolViolation) as exc:
                log("hook", sub.get("id"), "at", point, "failed (ignored):", exc)
                continue
            if (
                point == "pre-model-call"
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
        self.host.cost({
            "session_id": self.session_id,
            "turn_id": turn_id,
            "model": self.model_name,
            "usage": clean,
            "cost_usd": cost,
            "session_total_usd": self.total_cost,
            "tier_index": 0,
        })

    def assistant_message(self, events, turn_id):
        reply = kit.fold(events)
        for ev in events:
            if isinstance(ev, dict) and ev.get("type") == "usage" and isinstance(ev.get("usage"), dict):
                self.report_usage(ev["usage"], turn_id)
        return reply.message, reply.calls

    # -- tools ---------------------------------------------------------------

    def invoke(self, use, tool, turn_id):
        try:
            res = self.host.invoke({
                "call_context": self.call_context(turn_id),
                "call_id": use["id"],
                "provider": tool.get("provider", ""),
                "tool": use["name"],
                "input": use["input"],
                "attempt": 1,
            })
        except (kit.RPCError, kit.ProtocolViolation) as exc:
            return {"content": "tool error: %s" % exc, "is_error": True}
        result = {"content": kit.output_text(res.get("output"))}
        if res.get("is_error"):
            result["is_error"] = True
        if res.get("error_category"):
            result["error_category"] = res["error_category"]
        return result

    def interact(self, use, turn_id):
        try:
            res = self.host.interactive({
                "call_context": self.call_context(turn_id),
                "call_id": use["id"],
                "tool_name": use["name"],
                "prompt": "The agent asks you to answer " + use["name"] + ".",
                "input": use["input"],
            })
        except (kit.RPCError, kit.ProtocolViolation) as exc:
            return {"content": "interactive error: %s" % exc, "is_error": True}
        return {"content": kit.output_text(res.get("response"))}

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
        """Steps 6-8 of a turn; returns the results in message order. A call
        of a tool the config does not have gets no tool hooks: its payload
        would have no kind."""
        known = [u for u in tool_uses if u["name"] in self.tools]
        for use in known:
            self.dispatch("pre-tool-call", {"variant": "pre-tool-call", "call": self.hook_call(use)}, turn_id)

        results = {}
        for use in tool_uses:
            if use["name"] not in self.tools:
                results[use["id"]] = {"content": "unknown tool", "is_error": True}

        def of_kind(kind):
            return [u for u in known if self.tools[u["name"]].get("kind") == kind]

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
            if use["name"] in self.tools:
                self.dispatch("post-tool-call", {
                    "variant": "post-tool-call",
                    "call": self.hook_call(use),
                    "result": result,
                }, turn_id)
        self.dispatch("post-apply", {"variant": "post-apply", "plan": plan}, turn_id)
        return ordered

    # -- the loop ------------------------------------------------------------

    def meta(self, status, ended=False, final_message=None):
        row = {
            "session_id": self.session_id,
            "profile": self.config.get("profile") or "",
            "depth": 0,
            "status": status,
            "started_at": self.started_at,
        }
        if ended:
            row["ended_at"] = kit.now_rfc3339()
        if final_message is not None:
            row["final_message"] = final_message
        self.host.meta(row)

    def run(self):
        self.meta("running")
        self.dispatch("session-start", {"variant": "session-start", "session_id": self.session_id,
                                        "prompt": self.prompt}, "")

        history = [{"role": "user", "content": [{"type": "text", "text": self.prompt}]}]
        final_message = None
        status = "failed"
        for n in range(1, SAFETY_NET_TURNS + 1):
            turn_id = "t%d" % n
            self.turns = n

            assembled = self.host.assemble({"call_context": self.call_context(turn_id), "turn": n, "history": history})
            contributions = assembled.get("contributions") or []

            pre = {"variant": "pre-model-call", "messages": history}
            if self.model_name:
                pre["model"] = self.model_name
            if self.specs:
                pre["tools"] = self.specs
            messages = self.dispatch("pre-model-call", pre, turn_id) or history

            streamed = self.host.stream({
                "call_context": self.call_context(turn_id),
                "purpose": "turn",
                "model": self.model_name,
                "messages": messages,
                "tools": self.specs,
                "assembled_context": contributions,
                "attempt": 1,
            })
            message, tool_uses = self.assistant_message(streamed.get("events") or [], turn_id)
            final_message = message

            self.dispatch("post-model-response", {"variant": "post-model-response", "message": message}, turn_id)
            if not tool_uses:
                status = "completed"
                break

            results = self.run_tools(tool_uses, turn_id)
            blocks = [kit.result_block(use["id"], result) for use, result in zip(tool_uses, results)]
            history = history + [message, {"role": "user", "content": blocks}]
        else:
            log("session", self.session_id, "hit the safety net of", SAFETY_NET_TURNS, "turns")

        return self.finish(status, final_message)

    def finish(self, status, final_message):
        # After a cancel the session-end hooks still go out, on a Host the
        # cancellation does not reach.
        end = {"variant": "session-end", "session_id": self.session_id, "status": status}
        if final_message is not None:
            end["final_message"] = final_message
        self.dispatch("session-end", end, "", self.host.detached())
        self.meta(status, ended=True, final_message=final_message)
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


class NaiveKernel(kit.Kernel):
    def info(self):
        return kit.Info(name=KERNEL_NAME, version=KERNEL_VERSION)

    def run(self, host, params):
        session = Session(host, params)
        try:
            return session.run()
        except kit.Cancelled:
            return session.finish("cancelled", None)
        except (kit.RPCError, kit.ProtocolViolation) as exc:
            # A harness call the loop cannot do without (context/assemble,
            # model/stream) failed: the naive kernel gives up on the session.
            log("session", session.session_id, "failed:", exc)
            result = session.finish("failed", None)
            result["error"] = str(exc)
            return result


if __name__ == "__main__":
    kit.main(NaiveKernel())
