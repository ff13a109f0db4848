package loop

import (
	"encoding/json"

	"github.com/agentconform/conform/spec/wire"
)

// streamed is a model stream folded into one reply.
type streamed struct {
	msg    wire.Message
	usages []wire.Usage
	stop   string
	err    *wire.ModelError
}

// accumulate folds the stream: text deltas into one text block where the
// first delta appeared, each tool_call into a tool_use block.
func accumulate(events []wire.StreamEvent) streamed {
	out := streamed{msg: wire.Message{Role: "assistant", Content: []wire.ContentBlock{}}}
	text := -1
	for _, e := range events {
		switch e.Type {
		case wire.EventTextDelta:
			if text < 0 {
				text = len(out.msg.Content)
				out.msg.Content = append(out.msg.Content, wire.ContentBlock{Type: wire.BlockText})
			}
			out.msg.Content[text].Text += e.Text
		case wire.EventToolCall:
			input := e.Input
			if len(input) == 0 {
				input = json.RawMessage("{}")
			}
			out.msg.Content = append(out.msg.Content, wire.ContentBlock{Type: wire.BlockToolUse, ID: e.ID, Name: e.Name, Input: input})
		case wire.EventUsage:
			if e.Usage != nil {
				out.usages = append(out.usages, *e.Usage)
			}
		case wire.EventStop:
			out.stop = e.StopReason
		case wire.EventErrorSE:
			if e.Error != nil {
				me := *e.Error
				out.err = &me
			} else {
				out.err = &wire.ModelError{Category: wire.ModelErrUnknown, Message: "error event without details"}
			}
		}
	}
	return out
}

func addUsage(sum *wire.Usage, u wire.Usage) {
	sum.InputTokens += u.InputTokens
	sum.OutputTokens += u.OutputTokens
	sum.CacheReadTokens = addOpt(sum.CacheReadTokens, u.CacheReadTokens)
	sum.CacheWriteTokens = addOpt(sum.CacheWriteTokens, u.CacheWriteTokens)
	sum.ReasoningTokens = addOpt(sum.ReasoningTokens, u.ReasoningTokens)
}

func addOpt(a, b *int64) *int64 {
	if b == nil {
		return a
	}
	v := *b
	if a != nil {
		v += *a
	}
	return &v
}
