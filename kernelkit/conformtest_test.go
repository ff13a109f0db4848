package kernelkit_test

import (
	"testing"

	"github.com/agentconform/conform/harness/conformtest"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/kernelkit"
)

// The kit's in-process launcher with conformtest.TestKernel, as a Go
// kernel's own test uses it: the toy of the package example passes the
// rows of a text-only reply (TA-10), of the session points, cancellation
// included (TA-18), and of output_schema enforcement through RunTools
// (ER-12: the kit's Invoke once handed a refused output to the model as a
// success), and everything it sends meanwhile fits its schema.
func TestToyWithConformtest(t *testing.T) {
	check := kernelkit.CheckOutgoing(func(err error) { t.Error(err) })
	l := kernelkit.Launcher("toy", func() kernelkit.Kernel { return toyKernel{} }, check)
	r := conformtest.TestKernel(t, l, conformtest.Options{Tags: "@TA-10,@TA-18,@ER-12", Require: "all"})
	passed := map[string]bool{}
	for _, q := range r.Requirements {
		passed[q.ID] = q.Status == report.Pass
	}
	for _, id := range []string{"TA-10", "TA-18", "ER-12"} {
		if !passed[id] {
			t.Errorf("%s did not pass", id)
		}
	}
}
