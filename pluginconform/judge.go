package pluginconform

import (
	"fmt"
	"slices"
	"strings"

	toolv1 "github.com/agentconform/conform/api/gen/pluggableharness/tool/v1"
	"github.com/agentconform/conform/pluginconform/schemagen"
)

// judgeShape applies the stream rules every call must keep, whatever its
// arguments: one terminal event and nothing after it (PL-14), no lead-up
// from a non-streaming operation (PL-15), exit_status (PL-16), and the
// error taxonomy (PL-19..PL-21).
func (r *run) judgeShape(op *toolv1.ToolSchema, o outcome) verdicts {
	v := verdicts{}
	terminals, firstTerm := 0, -1
	for i, ev := range o.events {
		if terminal(ev) {
			terminals++
			if firstTerm < 0 {
				firstTerm = i
			}
		}
	}
	switch {
	case terminals == 0 && o.endErr != nil:
		v["PL-14"] = "the stream ended with " + statusText(o.endErr) + " and no result or error event"
	case terminals == 0:
		v["PL-14"] = fmt.Sprintf("the stream ended after %d %s with no result or error event", len(o.events), plural(len(o.events), "event", "events"))
	case firstTerm < len(o.events)-1:
		v["PL-14"] = fmt.Sprintf("%s came after the terminal %s", eventName(o.events[firstTerm+1]), eventName(o.events[firstTerm]))
	case o.openAfter:
		v["PL-14"] = fmt.Sprintf("the stream stayed open %v after its terminal %s", r.grace(), eventName(o.events[firstTerm]))
	case o.endErr != nil:
		v["PL-14"] = "the stream ended with " + statusText(o.endErr) + " after its terminal event"
	default:
		v["PL-14"] = ""
	}
	if !op.GetStreaming() && firstTerm != 0 && len(o.events) > 0 {
		lead := o.events[0]
		v["PL-15"] = fmt.Sprintf("the operation is declared streaming false but sent %s before its terminal event", eventName(lead))
	} else if !op.GetStreaming() && firstTerm == 0 {
		v["PL-15"] = ""
	}
	r.judgeExitStatus(op, o, firstTerm, v)
	r.judgeErrors(o, v)
	return v
}

func (r *run) judgeExitStatus(op *toolv1.ToolSchema, o outcome, firstTerm int, v verdicts) {
	var at []int
	for i, ev := range o.events {
		if ev.GetExitStatus() != nil {
			at = append(at, i)
		}
	}
	declared := slices.Contains(r.opt.ProcessBacked, op.GetName())
	switch {
	case len(at) > 1:
		v["PL-16"] = fmt.Sprintf("exit_status came %d times", len(at))
	case len(at) == 1 && firstTerm >= 0 && at[0] > firstTerm:
		v["PL-16"] = "exit_status came after the terminal event"
	case len(at) == 1 && len(r.opt.ProcessBacked) > 0 && !declared:
		v["PL-16"] = "exit_status came from an operation not named process-backed (--process-backed)"
	case len(at) == 1:
		v["PL-16"] = ""
	case declared && firstTerm >= 0 && o.events[firstTerm].GetResult() != nil:
		v["PL-16"] = "the process-backed operation ended with a result but sent no exit_status"
	case len(r.opt.ProcessBacked) > 0 && !declared:
		v["PL-16"] = ""
	}
}

func (r *run) judgeErrors(o outcome, v verdicts) {
	for _, ev := range o.events {
		e := ev.GetError()
		if e == nil {
			continue
		}
		switch {
		case e.GetCategory() == toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_UNSPECIFIED:
			setOnce(v, "PL-19", "an error event has category TOOL_ERROR_CATEGORY_UNSPECIFIED")
		case strings.TrimSpace(e.GetMessage()) == "":
			setOnce(v, "PL-19", "an error event of category "+e.GetCategory().String()+" has an empty message")
		default:
			setOnce(v, "PL-19", "")
		}
		if e.GetCategory() == toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_UNKNOWN {
			if len(e.GetDetails().GetFields()) == 0 {
				setOnce(v, "PL-20", "an error of category unknown carries no details (the raw underlying error)")
			} else {
				setOnce(v, "PL-20", "")
			}
		}
		if e.GetCategory() == toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_PROCESS_CRASHED {
			setOnce(v, "PL-21", "the plugin sent an error of category process_crashed about itself")
		} else {
			setOnce(v, "PL-21", "")
		}
	}
}

// setOnce keeps the first failure of a requirement on a call.
func setOnce(v verdicts, id, msg string) { v.SetOnce(id, msg) }

// judgeResult checks a result payload against output_schema (PL-17).
func judgeResult(out *schemagen.Validator, o outcome, v verdicts) {
	for _, ev := range o.events {
		res := ev.GetResult()
		if res == nil {
			continue
		}
		if out == nil {
			return
		}
		payload := map[string]any{}
		if res.GetPayload() != nil {
			payload = res.GetPayload().AsMap()
		}
		if err := out.Validate(payload); err != nil {
			setOnce(v, "PL-17", "the result payload "+clip(jsonText(payload), 300)+" does not validate against output_schema: "+err.Error())
		} else {
			setOnce(v, "PL-17", "")
		}
		return
	}
}

// judgeValidAccepted checks the end of a call whose arguments validate
// against the input_schema (PL-18's other side): invalid_arguments means
// "input failed input_schema validation" (tool conformance.md's taxonomy),
// so valid input may fail in any other category, never in that one.
func judgeValidAccepted(o outcome, v verdicts) {
	for _, ev := range o.events {
		switch {
		case ev.GetResult() != nil:
			v["PL-18"] = ""
			return
		case ev.GetError() != nil:
			if ev.GetError().GetCategory() == toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS {
				v["PL-18"] = "arguments that validate against the input_schema got an invalid_arguments error (" + clip(ev.GetError().GetMessage(), 200) + "): that category says the input failed input_schema validation"
				return
			}
			v["PL-18"] = ""
			return
		}
	}
}

// judgeInvalid checks the end of a call given broken arguments (PL-18).
func judgeInvalid(o outcome, how string, v verdicts) {
	for _, ev := range o.events {
		switch {
		case ev.GetResult() != nil:
			v["PL-18"] = "arguments with " + how + " got a result, not an invalid_arguments error"
			return
		case ev.GetError() != nil:
			if c := ev.GetError().GetCategory(); c != toolv1.ToolErrorCategory_TOOL_ERROR_CATEGORY_INVALID_ARGUMENTS {
				v["PL-18"] = "arguments with " + how + " got an error of category " + c.String() + ", not invalid_arguments"
				return
			}
			v["PL-18"] = ""
			return
		}
	}
}
