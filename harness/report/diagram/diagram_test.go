package diagram

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ms(v float64) *float64 { return &v }

// sample is a turn with a late tool answer, a notification in between, an
// error answer, a request never answered and a harness request.
func sample() []Message {
	return []Message{
		{Seq: 1, AtMS: 1, DoneMS: ms(2), Kind: KindRequest, Method: "context/assemble", Label: "context/assemble"},
		{Seq: 3, AtMS: 3, DoneMS: ms(4), Kind: KindRequest, Method: "model/stream", Label: "model/stream"},
		{Seq: 5, AtMS: 5, DoneMS: ms(9), Kind: KindRequest, Method: "tool/invoke", Label: "invoke read", Session: "s1"},
		{Seq: 6, AtMS: 6, Kind: KindNotification, Method: "cost/usage", Label: "cost 0.001"},
		{Seq: 7, AtMS: 7, DoneMS: ms(8), Kind: KindRequest, Method: "hook/dispatch", Label: "hook pre-tool-call O1", Error: "denied"},
		{Seq: 10, AtMS: 10, Kind: KindRequest, Method: "frontend/permission", Label: "permission write", Unanswered: true},
		{Seq: 11, AtMS: 11, Kind: KindHarness, Method: "session/spawn", Label: "harness spawns child"},
	}
}

func TestNew(t *testing.T) {
	d := New(sample(), 3)
	var names []string
	for _, l := range d.Lifelines {
		names = append(names, l.Name)
	}
	if want := []string{"kernel", "context", "model", "tool providers", "hook subscribers", "frontend", "recorder", "harness"}; !cmp.Equal(names, want) {
		t.Errorf("lifelines %v, want %v", names, want)
	}
	type row struct {
		Kind     EventKind
		Seq      int
		From, To string
		Err, Un  bool
	}
	var got []row
	for _, e := range d.Events {
		got = append(got, row{e.Kind, e.Seq, d.Lifelines[e.From].Name, d.Lifelines[e.To].Name, e.Error, e.Unanswered})
	}
	want := []row{
		{Call, 1, "kernel", "context", false, false},
		{Answer, 1, "context", "kernel", false, false},
		{Call, 3, "kernel", "model", false, false},
		{Answer, 3, "model", "kernel", false, false},
		{Call, 5, "kernel", "tool providers", false, false},
		{Notify, 6, "kernel", "recorder", false, false},
		{Call, 7, "kernel", "hook subscribers", false, false},
		{Answer, 7, "hook subscribers", "kernel", true, false},
		// The tool's answer at 9 ms comes after the hook's, as it happened.
		{Answer, 5, "tool providers", "kernel", false, false},
		{Call, 10, "kernel", "frontend", false, true},
		{Push, 11, "harness", "kernel", false, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if d.Messages != 7 || d.Omitted != 3 {
		t.Errorf("Messages, Omitted = %d, %d; want 7, 3", d.Messages, d.Omitted)
	}
	if !strings.Contains(d.Events[4].Detail, "in session s1") {
		t.Errorf("detail %q does not name the session", d.Events[4].Detail)
	}
}

// A harness request whose answer was recorded gets the kernel's answer as
// an arrow of its own.
func TestHarnessRequestAnswered(t *testing.T) {
	d := New([]Message{{Seq: 1, AtMS: 1, DoneMS: ms(3), Kind: KindHarness, Method: "frontend/decide", Label: "harness decides", Error: "unknown"}}, 0)
	if len(d.Events) != 2 {
		t.Fatalf("%d events, want 2", len(d.Events))
	}
	push, ans := d.Events[0], d.Events[1]
	if push.Kind != Push || push.Error || d.Lifelines[push.From].Name != "frontend" || d.Lifelines[push.To].Name != "kernel" {
		t.Errorf("push %+v", push)
	}
	if ans.Kind != Answer || !ans.Error || ans.Text != "error: unknown" || d.Lifelines[ans.From].Name != "kernel" || d.Lifelines[ans.To].Name != "frontend" {
		t.Errorf("answer %+v", ans)
	}
}

func TestNewUsesOnlyLifelinesItNeeds(t *testing.T) {
	d := New([]Message{{Seq: 1, Kind: KindNotification, Method: "trace/span", Label: "span"}}, 0)
	if len(d.Lifelines) != 2 || d.Lifelines[0].Name != "kernel" || d.Lifelines[1].Name != "recorder" {
		t.Errorf("lifelines %+v, want kernel and recorder", d.Lifelines)
	}
	if d := New(nil, 0); len(d.Lifelines) != 1 || len(d.Events) != 0 {
		t.Errorf("empty exchange: %+v", d)
	}
}

// An answer recorded at the same millisecond as its request still follows
// it, and a clock that reads the answer earlier cannot put it first.
func TestAnswerNeverBeforeItsRequest(t *testing.T) {
	d := New([]Message{
		{Seq: 1, AtMS: 5, DoneMS: ms(4), Kind: KindRequest, Method: "model/stream", Label: "m"},
		{Seq: 3, AtMS: 5, DoneMS: ms(5), Kind: KindRequest, Method: "model/stream", Label: "m"},
	}, 0)
	var kinds []EventKind
	for _, e := range d.Events {
		kinds = append(kinds, e.Kind)
	}
	if want := []EventKind{Call, Answer, Call, Answer}; !cmp.Equal(kinds, want) {
		t.Errorf("kinds %v, want %v", kinds, want)
	}
}

func TestTail(t *testing.T) {
	msgs := sample()
	got, cut := Tail(msgs, 2)
	if cut != 5 || len(got) != 2 || got[0].Seq != 10 {
		t.Errorf("Tail(7, 2) = %d messages from #%d, cut %d", len(got), got[0].Seq, cut)
	}
	if got, cut := Tail(msgs, 40); len(got) != 7 || cut != 0 {
		t.Errorf("Tail(7, 40) = %d, cut %d", len(got), cut)
	}
}

func TestShort(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{{"abcdef", 6, "abcdef"}, {"abcdef", 4, "abc…"}, {"ééé", 2, "é…"}, {"ab", 0, "…"}} {
		if got := Short(c.in, c.n); got != c.want {
			t.Errorf("Short(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
