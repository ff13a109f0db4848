// Package plangate is the plan/apply gate: plan construction, the kernel's
// own policy engine, the precheck of reads and interactive calls, and the
// ask flow.
//
// Policy runs inside the kernel, never as a hook (HD-12), and decides each
// plan item on its own (PA-01): rules in order, first match wins, a rule
// matching on provider, tool and kind with empty fields matching anything;
// with no match a resource asks and a data_source or interactive call is
// allowed (PA-10). Every item is reported as a plan_item event with its
// decision and decided_by when the plan reaches plan-ready (PA-14), before
// anyone is asked, so the rows exist even for items later cancelled.
//
// data_source and interactive calls get a precheck with the same rules but
// only allow or deny: a winning ask becomes deny, with an ask_downgrade
// event and a denial text that says so (PA-06, PA-09).
//
// All ask items of one plan go to the frontend in one frontend/permission
// request (PA-02, capability plan.batched_ask), and each is decided by its
// own plan_item_id. What a decision's scope means is a swappable part
// (Answers, with the optional DecisionLifetimer and MemoryKeyer a test
// kernel implements to change one rule): a SESSION-scoped answer is
// remembered in memory per provider and tool for the rest of the session
// (PA-18); an ALWAYS answer is stored
// in the kernel's policy store when config.policy.persist_always is set,
// and otherwise refused with an error event of category
// always_scope_unsupported (PA-19). A corrected_input is checked against the
// tool's input_schema and, if it fails, refused with an error event of
// category invalid_corrected_input, never coerced and never taken as a deny
// (PA-17). A refused decision leaves the item pending and it is asked again
// only after MaxAsks unusable answers in a row is it denied, with a
// reason saying so, so that a stuck frontend cannot spin the session
// (reading plan.max_asks). Only resource items get a preview, fetched
// under a deadline; a missing, failing or slow preview leaves the item
// without one (PA-11, PA-12). Kind, risk, description and preview are
// copied into the item when the plan is built (PA-13). A denial becomes an
// error tool_result naming the reason (PA-03).
//
// The circuit breaker (PA-05, capability plan.circuit_breaker) is a
// swappable part fed with every call's decision in message order; its
// thresholds come from config.policy.circuit_breaker, and when it trips the
// loop takes the limit-reached path like a bound.
package plangate
