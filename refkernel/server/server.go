package server

import (
	"context"
	"errors"
	"io"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/dfirst"
	"github.com/agentconform/conform/spec/wire"
)

// Serve runs the reference kernel's wire server until the input ends,
// shutdown has been answered, or ctx is done (kernelkit.Serve). Sessions
// still running then are cancelled and Serve waits for them to finish. A
// clean end (EOF, shutdown) returns nil.
func Serve(ctx context.Context, k *refkernel.Kernel, in io.Reader, out io.Writer) error {
	return kernelkit.Serve(ctx, Kernel{k}, in, out)
}

// Kernel is the reference kernel as a kernelkit.Kernel, with every
// optional part: its errors become the protocol's codes here, and
// everything else is the kit's.
type Kernel struct{ K *refkernel.Kernel }

// Info implements kernelkit.Kernel.
func (a Kernel) Info() kernelkit.Info {
	i := a.K.Info()
	return kernelkit.Info{Name: i.Kernel.Name, Version: i.Kernel.Version, Capabilities: i.Capabilities, Readings: i.Readings}
}

// Run implements kernelkit.Kernel: a refused config is CodeConfigRejected
// (HD-16, TA-25, ER-05), sent before anything is dispatched.
func (a Kernel) Run(ctx context.Context, h *kernelkit.Host, p wire.RunParams) (wire.RunSessionResult, error) {
	res, err := a.K.Run(ctx, h, p)
	var ce *refkernel.ConfigError
	switch {
	case errors.As(err, &ce):
		return res, kernelkit.RejectConfig("%s", ce.Error())
	case errors.Is(err, refkernel.ErrSessionRunning):
		return res, kernelkit.ErrSessionRunning
	}
	return res, err
}

// Cancel implements kernelkit.Canceller: the session and its descendants
// (SA-08).
func (a Kernel) Cancel(id string) error {
	if err := a.K.Cancel(id); err != nil {
		return kernelkit.Errorf(wire.CodeUnknownSession, "unknown session %s", id)
	}
	return nil
}

// Continue implements kernelkit.Continuer: a soft limit's pause ends with
// the user's message (TA-09).
func (a Kernel) Continue(id, message string) error {
	switch err := a.K.Continue(id, message); {
	case errors.Is(err, refkernel.ErrUnknownSession):
		return kernelkit.Errorf(wire.CodeUnknownSession, "unknown session %s", id)
	case err != nil:
		return kernelkit.Errorf(wire.CodeInvalidParams, "session %s is not paused by a soft limit", id)
	}
	return nil
}

// Spawn implements kernelkit.Spawner: the child runs on this connection
// like any session and the answer is its result (SA-04, SA-11).
func (a Kernel) Spawn(ctx context.Context, h *kernelkit.Host, p wire.SpawnParams) (wire.RunSessionResult, error) {
	res, err := a.K.Spawn(ctx, h, p)
	var se *refkernel.SpawnError
	var ce *refkernel.ConfigError
	switch {
	case err == nil:
		return res, nil
	case errors.Is(err, refkernel.ErrUnknownSession):
		return res, kernelkit.Errorf(wire.CodeUnknownSession, "unknown parent session %s", p.ParentSessionID)
	case errors.As(err, &se):
		return res, kernelkit.Errorf(wire.CodeInvalidParams, "%s", se.Error())
	case errors.Is(err, refkernel.ErrSpawnCancelled):
		return res, kernelkit.Errorf(wire.CodeCancelled, "%s", err.Error())
	case errors.As(err, &ce):
		return res, kernelkit.RejectConfig("%s", ce.Error())
	}
	return res, err
}

// Decide implements kernelkit.Decider: another frontend connection's
// decisions (PA-16, PROTOCOL.md §6.7).
func (a Kernel) Decide(p wire.FrontendDecideParams) (wire.FrontendDecideResult, error) {
	res, err := a.K.Decide(p)
	if errors.Is(err, refkernel.ErrUnknownSession) {
		return res, kernelkit.Errorf(wire.CodeUnknownSession, "no running session %s", p.SessionID)
	}
	return res, err
}

// WriteMemory implements kernelkit.MemoryWriter: a running tool's write to
// session memory, applied before the answer (§17.5).
func (a Kernel) WriteMemory(p wire.MemoryWriteParams) error {
	switch err := a.K.WriteMemory(p); {
	case errors.Is(err, refkernel.ErrUnknownSession):
		return kernelkit.Errorf(wire.CodeUnknownSession, "unknown session %s", p.SessionID)
	case err != nil:
		return kernelkit.Errorf(wire.CodeInvalidParams, "%s", err.Error())
	}
	return nil
}

// The deterministic-first profile asks the user through frontend/confirm,
// which the kit's Host serves.
var _ dfirst.Confirmer = (*kernelkit.Host)(nil)
