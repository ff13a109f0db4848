package memoryprov

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	memoryv1 "github.com/agentconform/conform/api/gen/pluggableharness/memory/v1"
	"github.com/agentconform/conform/pluginconform/provkit"
)

// call makes one unary call with the call timeout, scanning the answer
// for secrets and recording an error for the taxonomy.
func call[Q, A proto.Message](r *run, ctx context.Context, method string, fn func(context.Context, Q, ...grpc.CallOption) (A, error), req Q) (A, error) {
	c, cancel := r.host.Call(ctx)
	defer cancel()
	resp, err := fn(c, req)
	if err == nil {
		r.secrets.SeeMsg("a "+method+" answer", resp)
	}
	r.seen(method, err)
	return resp, err
}

func (r *run) record(ctx context.Context, q *memoryv1.RecordRequest) (*memoryv1.RecordResponse, error) {
	return call(r, ctx, "Record", r.client().Record, q)
}

func (r *run) get(ctx context.Context, id string) (*memoryv1.GetRecordResponse, error) {
	return call(r, ctx, "GetRecord", r.client().GetRecord, &memoryv1.GetRecordRequest{Id: id})
}

func (r *run) update(ctx context.Context, q *memoryv1.UpdateRecordRequest) (*memoryv1.UpdateRecordResponse, error) {
	return call(r, ctx, "UpdateRecord", r.client().UpdateRecord, q)
}

func (r *run) del(ctx context.Context, id string) (*memoryv1.DeleteRecordResponse, error) {
	return call(r, ctx, "DeleteRecord", r.client().DeleteRecord, &memoryv1.DeleteRecordRequest{Id: id})
}

func (r *run) approve(ctx context.Context, id string) (*memoryv1.ApproveRecordResponse, error) {
	return call(r, ctx, "ApproveRecord", r.client().ApproveRecord, &memoryv1.ApproveRecordRequest{Id: id})
}

func (r *run) reject(ctx context.Context, id string) (*memoryv1.RejectRecordResponse, error) {
	return call(r, ctx, "RejectRecord", r.client().RejectRecord, &memoryv1.RejectRecordRequest{Id: id})
}

func (r *run) list(ctx context.Context, q *memoryv1.ListRecordsRequest) (*memoryv1.ListRecordsResponse, error) {
	return call(r, ctx, "ListRecords", r.client().ListRecords, q)
}

func (r *run) recall(ctx context.Context, q *memoryv1.RecallRequest) (*memoryv1.RecallResponse, error) {
	return call(r, ctx, "Recall", r.client().Recall, q)
}

// category is the MemoryError category of an answered error, with "" for
// none.
func errCategory(err error) (memoryv1.MemoryErrorCategory, bool) {
	me, _ := provkit.Detail[*memoryv1.MemoryError](err)
	if me == nil {
		return 0, false
	}
	return me.GetCategory(), true
}

// isCategory says whether err is an error of category want: by its
// MemoryError, or, when it carries none (MM-38 judges that), by the gRPC
// code the category travels on.
func isCategory(err error, want memoryv1.MemoryErrorCategory) bool {
	if c, ok := errCategory(err); ok {
		return c == want
	}
	return err != nil && codeOf(err) == codeOfCat[want]
}

// notFound says whether err is a not_found answer; a NotFound code with no
// detail counts here (the taxonomy check judges the detail).
func notFound(err error) bool {
	return isCategory(err, memoryv1.MemoryErrorCategory_MEMORY_ERROR_CATEGORY_NOT_FOUND)
}

func codeOf(err error) codes.Code {
	_, st := provkit.Detail[*memoryv1.MemoryError](err)
	return st.Code()
}

func textOf(blocks []*contentv1.ContentBlock) []string {
	var out []string
	for _, b := range blocks {
		if t := b.GetText(); t != nil {
			out = append(out, t.GetText())
		}
	}
	return out
}

func joined(blocks []*contentv1.ContentBlock) string { return strings.Join(textOf(blocks), "") }

func textBlock(s string) *contentv1.ContentBlock {
	return &contentv1.ContentBlock{Block: &contentv1.ContentBlock_Text{Text: &contentv1.TextBlock{Text: s}}}
}
