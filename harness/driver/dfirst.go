package driver

import (
	"context"

	"github.com/agentconform/conform/spec/wire"
)

// WriteMemory sends memory/write: a fake tool of the deterministic-first
// profile writes session memory while its tool/invoke is in flight
// (PROTOCOL.md §17.5). It makes the kernel a fakes.MemoryWriter.
func (k *Kernel) WriteMemory(ctx context.Context, p wire.MemoryWriteParams) error {
	return k.rpc.Call(ctx, wire.MethodMemoryWrite, p, nil)
}
