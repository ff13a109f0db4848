package contextprov

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"

	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	"github.com/agentconform/conform/pluginconform/provkit"
)

// codeOf is the gRPC code each category travels on.
var codeOf = map[contextv1.ContextErrorCategory]codes.Code{
	contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_SOURCE_UNAVAILABLE: codes.Unavailable,
	contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_BUDGET_EXCEEDED:    codes.FailedPrecondition,
	contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_SCOPE_VIOLATION:    codes.PermissionDenied,
	contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_INVALID_REQUEST:    codes.InvalidArgument,
	contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN:            codes.Internal,
}

// checkTaxonomy judges every error the plugin answered: a ContextError
// with a category and a message, not retryable when invalid_request
// (CP-24), on its category's code (CP-25),
// unknown with its raw message (CP-26). Unimplemented is not judged: it
// says an optional method is not served.
func (r *run) checkTaxonomy() {
	s := r.c.Scenario("context/errors", "the error taxonomy", "CP-24", "CP-25", "CP-26")
	defer r.c.Add(s)
	fails := map[string][]string{}
	held := map[string]int{}
	for _, e := range r.errs {
		ce, st := provkit.Detail[*contextv1.ContextError](e.err)
		if st.Code() == codes.Unimplemented {
			continue
		}
		switch {
		case ce == nil:
			fails["CP-24"] = append(fails["CP-24"], fmt.Sprintf("%s answered %s with no ContextError detail", e.where, provkit.StatusText(e.err)))
		case ce.GetCategory() == contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNSPECIFIED:
			fails["CP-24"] = append(fails["CP-24"], e.where+" answered a ContextError of category unspecified")
		case ce.GetCategory() != contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN && strings.TrimSpace(ce.GetMessage()) == "":
			fails["CP-24"] = append(fails["CP-24"], fmt.Sprintf("%s answered a ContextError of category %s with no message", e.where, ce.GetCategory()))
		case ce.GetCategory() == contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_INVALID_REQUEST && ce.GetRetryable():
			// retryable says the kernel may retry the call; a malformed
			// request MUST NOT be retried as-is.
			fails["CP-24"] = append(fails["CP-24"], e.where+" answered an invalid_request ContextError marked retryable, though a malformed request must not be retried as-is")
		default:
			held["CP-24"]++
		}
		want, mapped := codeOf[ce.GetCategory()]
		switch {
		case st.Code() == codes.Unknown:
			fails["CP-25"] = append(fails["CP-25"], fmt.Sprintf("%s answered gRPC code Unknown, which no category travels on", e.where))
		case ce != nil && mapped && st.Code() != want:
			fails["CP-25"] = append(fails["CP-25"], fmt.Sprintf("%s answered category %s on gRPC code %s, not %s", e.where, ce.GetCategory(), st.Code(), want))
		case ce != nil && mapped:
			held["CP-25"]++
		}
		if ce.GetCategory() == contextv1.ContextErrorCategory_CONTEXT_ERROR_CATEGORY_UNKNOWN {
			if strings.TrimSpace(ce.GetMessage()) == "" {
				fails["CP-26"] = append(fails["CP-26"], e.where+" answered a ContextError of category unknown with no message")
			} else {
				held["CP-26"]++
			}
		}
	}
	for _, id := range []string{"CP-24", "CP-25", "CP-26"} {
		step := map[string]string{"CP-24": "every error carries a classified ContextError", "CP-25": "every category travels on its gRPC code", "CP-26": "an unknown error carries the raw message"}[id]
		for i, f := range fails[id] {
			if i == 3 {
				s.Fail(step, fmt.Sprintf("and %d more", len(fails[id])-3), id)
				break
			}
			s.Fail(step, f, id)
		}
		if len(fails[id]) == 0 && held[id] > 0 {
			s.Pass(fmt.Sprintf("%s (%d %s)", step, held[id], plural(held[id], "error", "errors")), id)
		}
	}
}
