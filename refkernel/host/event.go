package host

import "github.com/agentconform/conform/spec/wire"

// KernelProducer is the producer of every event the kernel reports on its
// own behalf. Hook errors are the exception: they name the subscriber
// (HD-14).
const KernelProducer = "kernel"

// Emit sends one state-backend event row.
func Emit(n Notifier, sessionID, turnID, kind, producer string, payload map[string]any) {
	n.Notify(wire.NotifyEvent, wire.Event{
		SessionID: sessionID,
		TurnID:    turnID,
		Kind:      kind,
		Producer:  producer,
		Payload:   payload,
	})
}
