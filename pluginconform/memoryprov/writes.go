package memoryprov

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	memoryv1 "github.com/agentconform/conform/api/gen/pluggableharness/memory/v1"
	"github.com/agentconform/conform/pluginconform/kit"
	"github.com/agentconform/conform/pluginconform/provkit"
)

var (
	words = []string{"deploy", "runbook", "staging", "tests", "flaky", "review", "owner", "latency", "budget", "schema", "cache", "release"}
	slug  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// writeRules are the requirements a generated write case judges.
var writeRules = []string{"MM-09", "MM-10", "MM-11", "MM-12", "MM-13", "MM-16", "MM-17", "MM-19", "MM-23", "MM-26", "MM-27", "MM-29", "MM-32", "MM-33", "MM-34", "MM-36", "MM-37"}

// wcase is one generated write case.
type wcase struct {
	typ                memoryv1.MemoryType
	scope              memoryv1.MemoryScope
	bad                string // "type", "scope" or "" (a well-formed Record)
	suggest            string
	title, text, later string
	// cut splits text into several content blocks at these byte offsets
	// (none: one block); laterTitle, when set, is UpdateRecord's title.
	cut             []int
	laterTitle      *string
	link, laterLink bool
	del, reject     bool
}

// letterless are titles with no letter or digit: a provider deriving the
// id from one must still answer a non-empty slug (MM-09, MM-10). None is
// empty or blank: no row says a provider must take a record without a
// title, and a refused well-formed Record stops the write cases.
var letterless = []string{"!!", "...", "—", "?"}

func (w wcase) String() string {
	s := fmt.Sprintf("Record type %s scope %s title %q content %q", w.typ, w.scope, w.title, w.text)
	if len(w.cut) > 0 {
		s += fmt.Sprintf(" in %d text blocks %q", len(w.cut)+1, w.blocksText())
	}
	if w.suggest != "" {
		s += fmt.Sprintf(" id %q", w.suggest)
	}
	if w.bad != "" {
		return s + " (unsupported " + w.bad + ")"
	}
	s += fmt.Sprintf(", then UpdateRecord content %q", w.later)
	if w.laterTitle != nil {
		s += fmt.Sprintf(" title %q", *w.laterTitle)
	}
	if w.del {
		s += ", then DeleteRecord"
	}
	if w.reject {
		s += ", RejectRecord instead of ApproveRecord"
	}
	return s
}

func (r *run) drawWrite(t *rapid.T, n int) wcase {
	w := wcase{
		typ:   rapid.SampledFrom(r.caps.GetSupportedTypes()).Draw(t, "type"),
		scope: rapid.SampledFrom(r.caps.GetSupportedScopes()).Draw(t, "scope"),
	}
	switch rapid.IntRange(0, 5).Draw(t, "kind") {
	case 0:
		w.bad, w.typ = "type", rapid.SampledFrom(unsupported[memoryv1.MemoryType](memoryv1.MemoryType_name, typeNames(r.caps.GetSupportedTypes()))).Draw(t, "bad type")
	case 1:
		w.bad, w.scope = "scope", rapid.SampledFrom(unsupported[memoryv1.MemoryScope](memoryv1.MemoryScope_name, scopeNames(r.caps.GetSupportedScopes()))).Draw(t, "bad scope")
	}
	ws := rapid.SliceOfN(rapid.SampledFrom(words), 1, 8).Draw(t, "words")
	w.title = strings.Join(ws[:min(3, len(ws))], " ")
	if rapid.IntRange(0, 3).Draw(t, "letterless title") == 0 {
		w.title = rapid.SampledFrom(letterless).Draw(t, "title")
	}
	w.text = strings.Join(ws, " ")
	// Content in several text blocks, cut after a word's space: tokens
	// count all of them (MM-26), GetRecord answers all of them (MM-13).
	if len(ws) > 1 && rapid.Bool().Draw(t, "several blocks") {
		at := 0
		for i, wd := range ws[:len(ws)-1] {
			at += len(wd) + 1
			if i == 0 || rapid.Bool().Draw(t, "cut") {
				w.cut = append(w.cut, at)
			}
		}
	}
	if rapid.Bool().Draw(t, "suggest an id") {
		w.suggest = fmt.Sprintf("conform-%s-%d", ws[0], n)
	}
	if w.link = rapid.Bool().Draw(t, "dangling link"); w.link {
		w.text += fmt.Sprintf(" see [[conform-missing-%d]]", n)
	}
	w.later = strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 8).Draw(t, "new words"), " ")
	if w.laterLink = rapid.Bool().Draw(t, "dangling link on update"); w.laterLink {
		w.later += fmt.Sprintf(" and [[conform-absent-%d]]", n)
	}
	if rapid.Bool().Draw(t, "new title") {
		lt := strings.Join(rapid.SliceOfN(rapid.SampledFrom(words), 1, 3).Draw(t, "title words"), " ")
		w.laterTitle = &lt
	}
	w.del = rapid.IntRange(0, 2).Draw(t, "delete") == 0
	w.reject = rapid.IntRange(0, 2).Draw(t, "reject") == 0
	return w
}

// blocks is the Record's content: text cut at w.cut.
func (w wcase) blocks() []*contentv1.ContentBlock {
	var out []*contentv1.ContentBlock
	for _, s := range w.blocksText() {
		out = append(out, textBlock(s))
	}
	return out
}

func (w wcase) blocksText() []string {
	var out []string
	from := 0
	for _, at := range w.cut {
		out = append(out, w.text[from:at])
		from = at
	}
	return append(out, w.text[from:])
}

// unsupported are the enum values (unspecified included) missing from
// the declared set.
func unsupported[E ~int32](names map[int32]string, have []string) []E {
	var out []E
	for v, name := range names {
		if !slices.Contains(have, name) {
			out = append(out, E(v))
		}
	}
	slices.Sort(out)
	return out
}

func typeNames(ts []memoryv1.MemoryType) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.String())
	}
	return out
}

func scopeNames(ss []memoryv1.MemoryScope) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.String())
	}
	return out
}

// checkWrites runs the generated write cases.
func (r *run) checkWrites(ctx context.Context) {
	s := r.c.Scenario("memory/writes", "Record, GetRecord, UpdateRecord and DeleteRecord on generated records", writeRules...)
	defer r.c.Add(s)
	if len(r.caps.GetSupportedTypes()) == 0 || len(r.caps.GetSupportedScopes()) == 0 {
		s.Errorf("the plugin declares no supported type or scope, so no record can be written")
		return
	}
	start := time.Now()
	n := 0
	res := kit.Property(r.opt.Cases, func(t *rapid.T) (kit.Verdicts, any, string, string) {
		n++
		w := r.drawWrite(t, n)
		v, stop := r.writeCase(ctx, w)
		return v, w.String(), "", stop
	})
	r.stats.GeneratedCalls += res.Calls
	r.stats.GeneratedTime += time.Since(start)
	ratify := r.caps.GetRatificationSupported()
	unreached := map[string]string{
		"MM-10": "every generated Record that omitted an id failed",
		"MM-23": "no record was pending (the provider writes every record canonical)",
		"MM-33": cond(!ratify, "the plugin declares ratification_supported false") + cond(ratify, "no record was pending"),
		"MM-34": cond(!ratify, "the plugin declares ratification_supported false") + cond(ratify, "no record was pending"),
		"MM-19": "no generated case deleted a record",
	}
	res.Record(r.c, s, "generated write cases", writeRules, unreached)
	if res.Stopped != "" {
		s.Errorf("%s", res.Stopped)
	}
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
	}
}

// writeCase runs one case and judges every answer.
func (r *run) writeCase(ctx context.Context, w wcase) (kit.Verdicts, string) {
	if reason := r.relaunch(ctx); reason != "" {
		return nil, reason
	}
	v := kit.Verdicts{}
	q := &memoryv1.RecordRequest{Type: w.typ, Scope: w.scope, Title: w.title, Content: w.blocks()}
	if w.suggest != "" {
		q.Id = proto.String(w.suggest)
	}
	resp, err := r.record(ctx, q)
	if b := r.host.Broken("Record", err); b != "" {
		return nil, b
	}
	if w.bad != "" {
		id, want := "MM-11", memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_INVALID_TYPE
		if w.bad == "scope" {
			id, want = "MM-12", memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_INVALID_SCOPE
		}
		switch {
		case err == nil:
			v[id] = fmt.Sprintf("Record of unsupported %s %s succeeded (id %q)", w.bad, enumOf(w), resp.GetResult().GetId())
			r.forget(ctx, resp.GetResult().GetId())
		case !isCategory(err, want):
			v[id] = fmt.Sprintf("Record of unsupported %s %s failed with %s, not %s", w.bad, enumOf(w), catText(err), want)
		default:
			v[id] = ""
		}
		return v, ""
	}
	if err != nil {
		if w.link {
			v["MM-37"] = "Record with a dangling [[link]] failed: " + provkit.StatusText(err)
			return v, ""
		}
		return nil, "Record failed on a well-formed request (" + provkit.StatusText(err) + "); the write rules cannot be judged"
	}
	if w.link {
		v["MM-37"] = ""
	}
	res := resp.GetResult()
	id := res.GetId()
	// A shrinking replay may write an id conform deleted before.
	delete(r.gone, id)
	switch {
	case id == "":
		v["MM-09"] = "Record answered no id"
		return v, ""
	case res.GetStatus() != memoryv1.RecordStatus_RECORD_STATUS_CANONICAL && res.GetStatus() != memoryv1.RecordStatus_RECORD_STATUS_PENDING:
		v["MM-09"] = "Record answered status " + res.GetStatus().String()
	default:
		v["MM-09"] = ""
	}
	pending := res.GetStatus() == memoryv1.RecordStatus_RECORD_STATUS_PENDING
	ratify := r.caps.GetRatificationSupported()
	v.SetOnce("MM-32", cond(pending && !ratify, "Record answered status pending, but the plugin declares ratification_supported false"))
	if w.suggest == "" {
		v["MM-10"] = cond(!slug.MatchString(id), fmt.Sprintf("the id the provider derived, %q, is not a kebab-case slug", id))
	}
	first, ok := r.judgeGet(ctx, id, q, v)
	if !ok {
		return v, ""
	}
	if pending && ratify {
		if reason := r.ratify(ctx, w, id, q, v); reason != "" || w.reject {
			return v, reason
		}
	}
	uq := &memoryv1.UpdateRecordRequest{Id: id, Content: []*contentv1.ContentBlock{textBlock(w.later)}, Title: w.laterTitle}
	_, err = r.update(ctx, uq)
	if b := r.host.Broken("UpdateRecord", err); b != "" {
		return nil, b
	}
	if err != nil {
		if w.laterLink {
			v["MM-37"] = "UpdateRecord with a dangling [[link]] failed: " + provkit.StatusText(err)
		} else {
			v["MM-16"] = "UpdateRecord of a record just written failed: " + provkit.StatusText(err)
		}
		return v, ""
	}
	if w.laterLink {
		v.SetOnce("MM-37", "")
	}
	after, err := r.get(ctx, id)
	if err != nil {
		v["MM-16"] = "GetRecord after UpdateRecord failed: " + provkit.StatusText(err)
		return v, ""
	}
	rec := after.GetRecord()
	// The title is the one given, or the old one when none was (MM-13:
	// GetRecord answers the record as the update left it).
	title := q.GetTitle()
	if w.laterTitle != nil {
		title = *w.laterTitle
	}
	v.SetOnce("MM-13", cond(rec.GetTitle() != title, fmt.Sprintf("after UpdateRecord %s GetRecord answers title %q, not %q", cond(w.laterTitle == nil, "without a title,")+cond(w.laterTitle != nil, "with a title,"), rec.GetTitle(), title)))
	v["MM-16"] = cond(joined(rec.GetContent()) != w.later, fmt.Sprintf("after UpdateRecord the content is %q, not the %q given", kit.Clip(joined(rec.GetContent()), 120), w.later))
	v["MM-17"] = cond(rec.GetType() != first.GetType() || rec.GetScope() != first.GetScope(), fmt.Sprintf("UpdateRecord changed type/scope from %s/%s to %s/%s", first.GetType(), first.GetScope(), rec.GetType(), rec.GetScope()))
	v["MM-36"] = cond(!proto.Equal(rec.GetProvenance(), first.GetProvenance()), "UpdateRecord changed the record's provenance")
	if !w.del {
		r.alive[id] = rec
		return v, ""
	}
	delete(r.alive, id)
	dr, err := r.del(ctx, id)
	if b := r.host.Broken("DeleteRecord", err); b != "" {
		return nil, b
	}
	if err != nil {
		v["MM-19"] = "DeleteRecord of a record just written failed: " + provkit.StatusText(err)
		return v, ""
	}
	gr, gerr := r.get(ctx, id)
	switch {
	case !dr.GetResult().GetDeleted():
		v["MM-19"] = "DeleteRecord answered deleted false for a record that existed"
	case gerr == nil && gr.GetRecord().GetId() == id:
		v["MM-19"] = "after DeleteRecord, GetRecord still answers the record"
	default:
		v["MM-19"] = ""
		r.gone[id] = true
	}
	return v, ""
}

// judgeGet fetches a record just written and judges it.
func (r *run) judgeGet(ctx context.Context, id string, q *memoryv1.RecordRequest, v kit.Verdicts) (*memoryv1.MemoryRecord, bool) {
	resp, err := r.get(ctx, id)
	if err != nil {
		v["MM-13"] = fmt.Sprintf("GetRecord of %q, just recorded, failed: %s", id, provkit.StatusText(err))
		return nil, false
	}
	rec := resp.GetRecord()
	var bad []string
	if rec.GetId() != id {
		bad = append(bad, fmt.Sprintf("id %q", rec.GetId()))
	}
	if rec.GetType() != q.GetType() || rec.GetScope() != q.GetScope() {
		bad = append(bad, fmt.Sprintf("type/scope %s/%s", rec.GetType(), rec.GetScope()))
	}
	if rec.GetTitle() != q.GetTitle() {
		bad = append(bad, fmt.Sprintf("title %q", rec.GetTitle()))
	}
	if joined(rec.GetContent()) != joined(q.GetContent()) {
		bad = append(bad, fmt.Sprintf("content %q", kit.Clip(joined(rec.GetContent()), 120)))
	}
	v["MM-13"] = cond(len(bad) > 0, "GetRecord answered "+strings.Join(bad, ", ")+", not what was recorded")
	r.judgeRecord("GetRecord", "", rec, v)
	v["MM-29"] = cond(rec.RelevanceScore != nil, fmt.Sprintf("GetRecord's answer carries relevance_score %v (set only on Recall and ListRecords)", rec.GetRelevanceScore()))
	return rec, true
}

// judgeRecord applies what every answered record must keep: a supported
// type and scope (MM-27), tokens from CountTokens (MM-26) asked for model
// when the request named one (Recall's model_target; "" for none), status
// pending only under ratification (MM-32), relevance in [0, 1] (MM-28).
func (r *run) judgeRecord(where, model string, rec *memoryv1.MemoryRecord, v kit.Verdicts) {
	v.SetOnce("MM-27", cond(!slices.Contains(r.caps.GetSupportedTypes(), rec.GetType()) || !slices.Contains(r.caps.GetSupportedScopes(), rec.GetScope()),
		fmt.Sprintf("%s answered record %q of type %s and scope %s", where, rec.GetId(), rec.GetType(), rec.GetScope())))
	switch text := textOf(rec.GetContent()); {
	case r.cb.AnsweredFor(model, text, rec.GetTokens()):
		v.SetOnce("MM-26", "")
	case r.cb.Answered(text, rec.GetTokens()):
		v.SetOnce("MM-26", fmt.Sprintf("%s answered record %q with tokens %d, a CountTokens answer to a request that did not name the model_target %q: the provider did not pass its model into CountTokens", where, rec.GetId(), rec.GetTokens(), model))
	default:
		v.SetOnce("MM-26", fmt.Sprintf("%s answered record %q with tokens %d, which no CountTokens answer gave for its content", where, rec.GetId(), rec.GetTokens()))
	}
	if rec.GetStatus() == memoryv1.RecordStatus_RECORD_STATUS_PENDING && !r.caps.GetRatificationSupported() {
		v.SetOnce("MM-32", fmt.Sprintf("%s answered record %q with status pending, but the plugin declares ratification_supported false", where, rec.GetId()))
	}
	if rec.RelevanceScore != nil {
		sc := rec.GetRelevanceScore()
		v.SetOnce("MM-28", cond(!(sc >= 0 && sc <= 1), fmt.Sprintf("%s answered record %q with relevance_score %v", where, rec.GetId(), sc)))
	}
}

// ratify runs the review path on a pending record: Recall leaves it out
// (MM-23), then RejectRecord discards it (MM-34) or ApproveRecord makes it
// canonical (MM-33).
func (r *run) ratify(ctx context.Context, w wcase, id string, q *memoryv1.RecordRequest, v kit.Verdicts) string {
	rc, err := r.recall(ctx, &memoryv1.RecallRequest{SessionId: "conform-session-ratify", TurnId: turnID(1), TokenBudget: 1 << 20, ModelTarget: target, TypeFilter: []memoryv1.MemoryType{q.GetType()}})
	if b := r.host.Broken("Recall", err); b != "" {
		return b
	}
	if err == nil {
		v["MM-23"] = ""
		for _, rec := range rc.GetRecords() {
			if rec.GetId() == id {
				v["MM-23"] = fmt.Sprintf("Recall without include_pending answered the pending record %q", id)
			}
		}
	}
	if w.reject {
		rr, err := r.reject(ctx, id)
		if b := r.host.Broken("RejectRecord", err); b != "" {
			return b
		}
		gr, gerr := r.get(ctx, id)
		switch {
		case err != nil:
			v["MM-34"] = "RejectRecord of a pending record failed: " + provkit.StatusText(err)
		case !rr.GetResult().GetDeleted():
			v["MM-34"] = "RejectRecord answered deleted false"
		case gerr == nil && gr.GetRecord().GetId() == id:
			v["MM-34"] = "after RejectRecord, GetRecord still answers the draft (a soft delete)"
		default:
			v["MM-34"] = ""
			r.gone[id] = true
		}
		return ""
	}
	ar, err := r.approve(ctx, id)
	if b := r.host.Broken("ApproveRecord", err); b != "" {
		return b
	}
	if err != nil {
		v["MM-33"] = "ApproveRecord of a pending record failed: " + provkit.StatusText(err)
		return ""
	}
	gr, gerr := r.get(ctx, id)
	switch {
	case ar.GetResult().GetStatus() != memoryv1.RecordStatus_RECORD_STATUS_CANONICAL:
		v["MM-33"] = "ApproveRecord answered status " + ar.GetResult().GetStatus().String()
	case gerr != nil:
		v["MM-33"] = "GetRecord after ApproveRecord failed: " + provkit.StatusText(gerr)
	case gr.GetRecord().GetStatus() != memoryv1.RecordStatus_RECORD_STATUS_CANONICAL:
		v["MM-33"] = "after ApproveRecord the record is " + gr.GetRecord().GetStatus().String()
	default:
		v["MM-33"] = ""
	}
	return ""
}

// forget deletes a record conform did not mean to write.
func (r *run) forget(ctx context.Context, id string) {
	if id != "" {
		_, _ = r.del(ctx, id)
	}
}

func enumOf(w wcase) string {
	if w.bad == "scope" {
		return w.scope.String()
	}
	return w.typ.String()
}

func catText(err error) string {
	if c, ok := errCategory(err); ok {
		return c.String()
	}
	return "no MemoryError (" + provkit.StatusText(err) + ")"
}
