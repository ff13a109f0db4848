//go:build !linux

package bridge

import (
	"errors"
	"time"
)

var errNoNetns = errors.New("network namespaces exist only on Linux")

// LoopbackUp is Linux only.
func LoopbackUp() error { return errNoNetns }

// Interfaces is Linux only.
func Interfaces() ([]string, error) { return nil, errNoNetns }

// Isolation is Linux only.
func Isolation() (string, error) { return "", errNoNetns }

// CanUnshareNet is Linux only.
func CanUnshareNet() error { return errNoNetns }

// UseResolver is Linux only.
func UseResolver(dir, ip string) error { return errNoNetns }

// AnyIP is Linux only.
func AnyIP() error { return errNoNetns }

// ConnWatch is Linux only.
type ConnWatch struct{ OnAttempt func(proto, addr string) }

// Start is Linux only.
func (w *ConnWatch) Start() error { return errNoNetns }

// Close is Linux only.
func (w *ConnWatch) Close() {}

// Sync is Linux only.
func (w *ConnWatch) Sync(time.Duration) {}
