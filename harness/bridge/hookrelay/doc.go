// Package hookrelay carries a coding agent's own hook events to the
// scenario's hook subscribers and their decisions back (issue 27, the
// bridge).
//
// Three pieces:
//   - Main is the body of `conform hook-relay --url URL --agent AGENT
//     --event EVENT`, the command the agent's hook system runs: it forwards
//     the hook's stdin JSON to the agent kernel and prints the decision in
//     the agent's own format (exit code and stdout JSON).
//   - Handler is the agent kernel's endpoint: it turns what the relay sent
//     into an Event (with the spec hook point the agent event maps to, per
//     the Mappings table) and asks a Dispatcher, the agent kernel's wrapper
//     around kernelkit.Host.Hook, for the Decision.
//   - config.go writes each agent's hook configuration pointing at the
//     relay: Claude Code settings "hooks", Codex hooks.json (Claude Code's
//     format), Gemini CLI settings "hooks". An entry stands either for one
//     conform subscriber (--subscriber: the agent's own hook system then
//     orders a point's subscribers, and the dispatch rows judge the agent)
//     or for a point's whole chain (the kernel's Dispatcher runs it).
//
// Requirements served (through the recorded hook/dispatch, never here):
// HD-01..HD-11 (dispatch order, modes, failures, a veto's deny reaching the
// agent), HD-13 (the spans are the agent's), TA-10/TA-18 (session-start and
// session-end points). What an agent's hook system cannot express (a
// pre-model-call transform in Claude Code, for one) is the profile's to
// declare; the Mappings table says which agent events match a spec point
// exactly and which only approximately.
//
// Failure policy (the relay never hangs: every forward has a timeout):
//   - The kernel answered with a Decision: printed in the agent's format.
//   - The kernel answered that the subscriber failed (Outcome Failed): the
//     relay exits 1 with the reason on stderr, which all three agents treat
//     as a failing hook that does not block (their documented non-blocking
//     error), so how the agent handles a failing hook is its own behaviour.
//   - The chain the kernel dispatched for the point aborted the turn
//     (Outcome Abort): the relay prints "continue": false with the reason,
//     denying the call too at an event that gates one, so the agent stops
//     as the kernel's own turn would.
//   - The kernel could not be reached, timed out or answered with an HTTP
//     error: the bridge itself is broken, and the relay fails CLOSED at an
//     event that gates an action (PreToolUse, UserPromptSubmit,
//     PermissionRequest; Gemini BeforeTool, BeforeAgent, BeforeModel): exit
//     2 with the reason on stderr, the blocking channel of all three agents.
//     At every other event it fails OPEN: exit 1, the non-blocking error.
package hookrelay
