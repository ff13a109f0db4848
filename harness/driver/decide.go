package driver

import (
	"context"

	"github.com/agentconform/conform/spec/wire"
)

// Decide sends frontend/decide: a second frontend connection, played by the
// harness, decides pending plan items (PA-16). It makes Kernel a
// fakes.Decider. An error answer (method not found from a kernel that does
// not serve it) is returned as it is, for the scenario to judge.
func (k *Kernel) Decide(ctx context.Context, p wire.FrontendDecideParams) (wire.FrontendDecideResult, error) {
	var res wire.FrontendDecideResult
	err := k.rpc.Call(ctx, wire.MethodFrontendDecide, p, &res)
	return res, err
}
