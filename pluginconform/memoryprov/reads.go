package memoryprov

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/protobuf/proto"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	memoryv1 "github.com/agentconform/conform/api/gen/pluggableharness/memory/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	"github.com/agentconform/conform/pluginconform/callback"
	"github.com/agentconform/conform/pluginconform/kit"
)

var target = &modelv1.ModelTarget{Id: "conform-model", ContextWindow: 200000, EffectiveCeiling: 150000}

// turnID is a ULID-shaped id that differs per turn.
func turnID(turn int) string {
	const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	b := []byte("01J00000000000000000000000")
	v := uint64(turn)
	for i := len(b) - 1; i >= 10 && v > 0; i-- {
		b[i] = digits[v%32]
		v /= 32
	}
	return string(b)
}

// checkUnknownIDs asks for, updates and deletes ids that never existed:
// each must fail with not_found (MM-14, MM-15, MM-18); so must approving
// or rejecting one on a provider supporting ratification (MM-47; without
// it, MM-35 judges those calls).
func (r *run) checkUnknownIDs(ctx context.Context) {
	s := r.c.Scenario("memory/unknown-ids", "ids that do not exist", "MM-14", "MM-15", "MM-18", "MM-47")
	defer r.c.Add(s)
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	ratify := r.caps.GetRatificationSupported()
	if !ratify {
		s.NotReached("ApproveRecord and RejectRecord of an unknown id fail with not_found", "the plugin declares ratification_supported false (MM-35 judges ratification there)", "MM-47")
	}
	for i, id := range []string{"conform-no-such-record", "conform-never-written-2"} {
		_, err := r.get(ctx, id)
		s.Check(fmt.Sprintf("GetRecord of unknown id %q fails with not_found", id), r.wantNotFound("GetRecord", err), "MM-14")
		_, err = r.update(ctx, &memoryv1.UpdateRecordRequest{Id: id, Content: []*contentv1.ContentBlock{textBlock(fmt.Sprintf("conform update %d", i))}})
		s.Check(fmt.Sprintf("UpdateRecord of unknown id %q fails with not_found", id), r.wantNotFound("UpdateRecord", err), "MM-15")
		_, err = r.del(ctx, id)
		s.Check(fmt.Sprintf("DeleteRecord of unknown id %q fails with not_found", id), r.wantNotFound("DeleteRecord", err), "MM-18")
		if ratify {
			_, err = r.approve(ctx, id)
			s.Check(fmt.Sprintf("ApproveRecord of unknown id %q fails with not_found", id), r.wantNotFound("ApproveRecord", err), "MM-47")
			_, err = r.reject(ctx, id)
			s.Check(fmt.Sprintf("RejectRecord of unknown id %q fails with not_found", id), r.wantNotFound("RejectRecord", err), "MM-47")
		}
	}
}

func (r *run) wantNotFound(method string, err error) string {
	switch {
	case err == nil:
		return method + " succeeded (a silent no-op or an empty answer) instead of failing with not_found"
	case r.host.Broken(method, err) != "":
		return r.host.Broken(method, err)
	case !notFound(err):
		return method + " failed with " + catText(err) + ", not not_found"
	}
	return ""
}

// listAll follows ListRecords page by page, in pages of 2; the reason
// says why it could not.
func (r *run) listAll(ctx context.Context, q *memoryv1.ListRecordsRequest) ([]*memoryv1.MemoryRecord, string, string) {
	q = proto.Clone(q).(*memoryv1.ListRecordsRequest)
	q.PageSize = 2
	return r.listPages(ctx, q)
}

// listPages follows ListRecords from q page by page, at q's page size (0:
// the provider's default).
func (r *run) listPages(ctx context.Context, q *memoryv1.ListRecordsRequest) ([]*memoryv1.MemoryRecord, string, string) {
	var out []*memoryv1.MemoryRecord
	q = proto.Clone(q).(*memoryv1.ListRecordsRequest)
	seen := map[string]bool{}
	for page := 0; page < 500; page++ {
		resp, err := r.list(ctx, q)
		if err != nil {
			return out, "", "ListRecords failed: " + r.host.Problem("ListRecords", err)
		}
		out = append(out, resp.GetRecords()...)
		next := resp.GetNextPageToken()
		if next == "" {
			return out, "", ""
		}
		if seen[next] {
			return out, fmt.Sprintf("ListRecords answered page token %q twice: the pages never end", next), ""
		}
		seen[next] = true
		q.PageToken = next
	}
	return out, "ListRecords did not end after 500 pages", ""
}

// checkList judges the enumeration path (MM-20..MM-22).
func (r *run) checkList(ctx context.Context) {
	s := r.c.Scenario("memory/list", "ListRecords", "MM-20", "MM-21", "MM-22")
	defer r.c.Add(s)
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	pending := r.writePending(ctx)
	all, bad, broken := r.listAll(ctx, &memoryv1.ListRecordsRequest{})
	if broken != "" {
		s.Errorf("%s", broken)
		return
	}
	count := map[string]int{}
	v := kit.Verdicts{}
	for _, rec := range all {
		count[rec.GetId()]++
		r.judgeRecord("ListRecords", "", rec, v)
	}
	s.Check(fmt.Sprintf("ListRecords, in pages of 2, lists each of the %d records conform wrote once and none it deleted", len(r.alive)), first(r.enumerated(count, bad)), "MM-20")
	// Without page_size, the provider's default page size applies: a
	// kernel that never names one must still get every record.
	if dflt, bad, broken := r.listPages(ctx, &memoryv1.ListRecordsRequest{}); broken != "" {
		s.Errorf("%s", broken)
	} else {
		count := map[string]int{}
		for _, rec := range dflt {
			count[rec.GetId()]++
		}
		s.Check("ListRecords without page_size, followed to the end, lists each record conform wrote once and none it deleted", first(r.enumerated(count, bad)), "MM-20")
	}
	if pending != "" {
		s.Check("ListRecords without a status filter lists the pending record", cond(count[pending] != 1, fmt.Sprintf("the pending record %q is listed %d times", pending, count[pending])), "MM-22")
	} else {
		s.NotReached("pending records are listable", cond(r.caps.GetRatificationSupported(), "the provider answered no pending record")+cond(!r.caps.GetRatificationSupported(), "the plugin declares ratification_supported false"), "MM-22")
	}
	r.checkFilters(ctx, s)
	for _, id := range []string{"MM-26", "MM-27", "MM-28", "MM-32"} {
		if msg, ok := v[id]; ok {
			s.Check("every listed record keeps the record rules", msg, id)
		}
	}
	if pending != "" {
		r.forget(ctx, pending)
	}
}

// enumerated names what a listing got wrong: the pages' own problem bad,
// and each record conform wrote not listed exactly once or deleted but
// listed, from count (listings by id).
func (r *run) enumerated(count map[string]int, bad string) []string {
	var problems []string
	for id := range r.alive {
		if count[id] != 1 {
			problems = append(problems, fmt.Sprintf("record %q is listed %d times", id, count[id]))
		}
	}
	for id := range r.gone {
		if count[id] > 0 {
			problems = append(problems, fmt.Sprintf("deleted record %q is still listed", id))
		}
	}
	slices.Sort(problems)
	if bad != "" {
		problems = append([]string{bad}, problems...)
	}
	return problems
}

// writePending records one record a ratifying provider leaves pending;
// its id, or "".
func (r *run) writePending(ctx context.Context) string {
	if !r.caps.GetRatificationSupported() {
		return ""
	}
	resp, err := r.record(ctx, &memoryv1.RecordRequest{Type: r.caps.GetSupportedTypes()[0], Scope: r.caps.GetSupportedScopes()[0], Title: "conform draft", Content: []*contentv1.ContentBlock{textBlock("a draft awaiting review")}})
	if err != nil || resp.GetResult().GetStatus() != memoryv1.RecordStatus_RECORD_STATUS_PENDING {
		if err == nil {
			r.forget(ctx, resp.GetResult().GetId())
		}
		return ""
	}
	return resp.GetResult().GetId()
}

// checkFilters lists by each supported type and scope and by status.
func (r *run) checkFilters(ctx context.Context, s *kit.Scenario) {
	var problems []string
	for _, t := range r.caps.GetSupportedTypes() {
		got, _, broken := r.listAll(ctx, &memoryv1.ListRecordsRequest{TypeFilter: []memoryv1.MemoryType{t}})
		if broken != "" {
			s.Errorf("%s", broken)
			return
		}
		for _, rec := range got {
			if rec.GetType() != t {
				problems = append(problems, fmt.Sprintf("ListRecords filtered to %s listed %q of type %s", t, rec.GetId(), rec.GetType()))
			}
		}
		problems = append(problems, r.missing(got, func(rec *memoryv1.MemoryRecord) bool { return rec.GetType() == t }, "type "+t.String())...)
	}
	for _, sc := range r.caps.GetSupportedScopes() {
		got, _, broken := r.listAll(ctx, &memoryv1.ListRecordsRequest{ScopeFilter: []memoryv1.MemoryScope{sc}})
		if broken != "" {
			s.Errorf("%s", broken)
			return
		}
		for _, rec := range got {
			if rec.GetScope() != sc {
				problems = append(problems, fmt.Sprintf("ListRecords filtered to %s listed %q of scope %s", sc, rec.GetId(), rec.GetScope()))
			}
		}
	}
	canon := memoryv1.RecordStatus_RECORD_STATUS_CANONICAL
	got, _, broken := r.listAll(ctx, &memoryv1.ListRecordsRequest{StatusFilter: &canon})
	if broken != "" {
		s.Errorf("%s", broken)
		return
	}
	for _, rec := range got {
		if rec.GetStatus() != canon {
			problems = append(problems, fmt.Sprintf("ListRecords filtered to canonical listed %q with status %s", rec.GetId(), rec.GetStatus()))
		}
	}
	s.Check("ListRecords filtered by type, scope and status lists only what matches, and every match", first(problems), "MM-21")
}

// missing names the records conform wrote that match but were not listed.
func (r *run) missing(got []*memoryv1.MemoryRecord, match func(*memoryv1.MemoryRecord) bool, what string) []string {
	ids := map[string]bool{}
	for _, g := range got {
		ids[g.GetId()] = true
	}
	var out []string
	for id, rec := range r.alive {
		if rec.GetType() != 0 && match(rec) && !ids[id] {
			out = append(out, fmt.Sprintf("record %q of %s was not listed under that filter", id, what))
		}
	}
	slices.Sort(out)
	return out
}

func first(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	if len(xs) > 1 {
		return fmt.Sprintf("%s (and %d more)", xs[0], len(xs)-1)
	}
	return xs[0]
}

// checkRecall asks at generous, default and tiny budgets, with and
// without filters (MM-24..MM-28).
func (r *run) checkRecall(ctx context.Context) {
	s := r.c.Scenario("memory/recall", "Recall at several budgets", "MM-24", "MM-25", "MM-26", "MM-27", "MM-28")
	defer r.c.Add(s)
	if reason := r.relaunch(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	def := r.caps.GetDefaultTokenBudget()
	budgets := []int64{1 << 20, max(def, 1), 3, 1}
	v := kit.Verdicts{}
	answered := 0
	for i, b := range budgets {
		for _, filtered := range []bool{false, true} {
			q := &memoryv1.RecallRequest{SessionId: "conform-session-recall", TurnId: turnID(100 + i), TokenBudget: b, ModelTarget: target, WorkingDirectory: r.scratch}
			if filtered {
				q.TypeFilter = r.caps.GetSupportedTypes()[:1]
				q.ScopeFilter = r.caps.GetSupportedScopes()[:1]
			}
			resp, err := r.recall(ctx, q)
			if br := r.host.Broken("Recall", err); br != "" {
				s.Errorf("%s", br)
				return
			}
			if err != nil {
				v.SetOnce("MM-25", cond(!isCategory(err, memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_BUDGET_EXCEEDED), fmt.Sprintf("Recall with token_budget %d failed with %s (only budget_exceeded may refuse a budget)", b, catText(err))))
				continue
			}
			answered++
			var sum int64
			for _, rec := range resp.GetRecords() {
				sum += rec.GetTokens()
				r.judgeRecord("Recall", q.GetModelTarget().GetId(), rec, v)
				if filtered && (rec.GetType() != q.TypeFilter[0] || rec.GetScope() != q.ScopeFilter[0]) {
					v.SetOnce("MM-24", fmt.Sprintf("Recall filtered to %s/%s answered %q of %s/%s", q.TypeFilter[0], q.ScopeFilter[0], rec.GetId(), rec.GetType(), rec.GetScope()))
				}
				if rec.GetStatus() == memoryv1.RecordStatus_RECORD_STATUS_PENDING {
					v.SetOnce("MM-23", fmt.Sprintf("Recall without include_pending answered pending record %q", rec.GetId()))
				}
			}
			if filtered {
				v.SetOnce("MM-24", "")
			}
			v.SetOnce("MM-25", cond(sum > b, fmt.Sprintf("Recall with token_budget %d answered %d records holding %d tokens", b, len(resp.GetRecords()), sum)))
		}
	}
	for _, id := range []string{"MM-23", "MM-24", "MM-25", "MM-26", "MM-27", "MM-28"} {
		if msg, ok := v[id]; ok {
			s.Check("Recall answers keep "+id, msg, id)
		}
	}
	if answered == 0 {
		s.NotReached("Recall answers records", "every Recall failed", "MM-24")
	}
}

// checkRecency records two project records of the same size, the older
// first, and recalls with a budget for one: the newer should be kept
// (MM-31, SHOULD).
func (r *run) checkRecency(ctx context.Context) {
	s := r.c.Scenario("memory/recency", "project records under budget pressure", "MM-31")
	defer r.c.Add(s)
	if !slices.Contains(r.caps.GetSupportedTypes(), memoryv1.MemoryType_MEMORY_TYPE_PROJECT) {
		s.NotReached("the newer project record is kept", "the plugin does not support type project", "MM-31")
		return
	}
	scope := r.caps.GetSupportedScopes()[0]
	texts := []string{"conform recency older decision about the release train", "conform recency newer decision about the release plan"}
	var ids []string
	for i, t := range texts {
		resp, err := r.record(ctx, &memoryv1.RecordRequest{Type: memoryv1.MemoryType_MEMORY_TYPE_PROJECT, Scope: scope, Title: fmt.Sprintf("conform recency %d", i), Content: []*contentv1.ContentBlock{textBlock(t)}})
		if err != nil {
			s.Errorf("Record failed: %s", r.host.Problem("Record", err))
			return
		}
		ids = append(ids, resp.GetResult().GetId())
		if resp.GetResult().GetStatus() == memoryv1.RecordStatus_RECORD_STATUS_PENDING && r.caps.GetRatificationSupported() {
			if _, err := r.approve(ctx, ids[i]); err != nil {
				s.Errorf("ApproveRecord failed: %s", r.host.Problem("ApproveRecord", err))
				return
			}
		}
	}
	defer func() {
		for _, id := range ids {
			r.forget(ctx, id)
		}
	}()
	budget := callback.ExactCount(texts[1]) + 5
	resp, err := r.recall(ctx, &memoryv1.RecallRequest{SessionId: "conform-session-recency", TurnId: turnID(200), TokenBudget: budget, ModelTarget: target, TypeFilter: []memoryv1.MemoryType{memoryv1.MemoryType_MEMORY_TYPE_PROJECT}, ScopeFilter: []memoryv1.MemoryScope{scope}})
	if err != nil {
		s.NotReached("the newer project record is kept", "Recall failed: "+r.host.Problem("Recall", err), "MM-31")
		return
	}
	has := map[string]bool{}
	for _, rec := range resp.GetRecords() {
		has[rec.GetId()] = true
	}
	switch {
	case has[ids[1]] && !has[ids[0]]:
		s.Pass("of two project records with room for one, Recall keeps the newer", "MM-31")
	case has[ids[0]] && !has[ids[1]]:
		s.Fail("of two project records with room for one, Recall keeps the newer", "Recall kept the older project record and left out the newer one", "MM-31")
	default:
		s.NotReached("the newer project record is kept", fmt.Sprintf("Recall with room for one answered %d of the two", btoi(has[ids[0]])+btoi(has[ids[1]])), "MM-31")
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
