package doomloop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/agentconform/conform/refkernel/internal/canon"
	"github.com/agentconform/conform/spec/wire"
)

// DefaultThreshold is used when the config sets none; the spec wants a
// default in [3, 5].
const DefaultThreshold = 3

// Status is the session status a doom-loop ending reports by default. The
// spec has no subtype for it; a kernel declares its choice as the
// reading doom_loop.status.
const Status = wire.StatusErrorMaxTurns

// Trip describes a fired detector, as carried by the doom_loop event.
type Trip struct {
	Hash      string
	Count     int // length of the run of identical trailing hashes
	Threshold int
}

// Detector is the swappable doom-loop part. It is stateless: the loop keeps
// the sequence of hashes.
type Detector interface {
	Hash(tool string, input json.RawMessage) string
	Check(history []string, threshold int) (Trip, bool)
	// Status is the status a doom-loop ending reports.
	Status() string
}

// Standard is the reference detector. EndStatus, when set, replaces Status
// as the status of a doom-loop ending: a kernel with another reading of
// A-06 (the legal variants use it).
type Standard struct{ EndStatus string }

// Status implements Detector.
func (d Standard) Status() string {
	if d.EndStatus != "" {
		return d.EndStatus
	}
	return Status
}

// Hash implements Detector. Input that is not JSON is hashed as raw bytes,
// so two identical malformed inputs still collide.
func (Standard) Hash(tool string, input json.RawMessage) string {
	body, err := canon.JSON(input)
	if err != nil {
		body = input
	}
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0}) // keeps ("ab", "c") apart from ("a", "bc")
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Check implements Detector.
func (Standard) Check(history []string, threshold int) (Trip, bool) {
	if threshold < 1 || len(history) < threshold {
		return Trip{}, false
	}
	last := history[len(history)-1]
	run := 0
	for i := len(history) - 1; i >= 0 && history[i] == last; i-- {
		run++
	}
	if run < threshold {
		return Trip{}, false
	}
	return Trip{Hash: last, Count: run, Threshold: threshold}, true
}

// Threshold is the configured threshold or the default.
func Threshold(c *wire.DoomLoop) int {
	if c == nil || c.Threshold == nil {
		return DefaultThreshold
	}
	return *c.Threshold
}

// Window is how many hashes the loop keeps: window_size, never fewer than
// the threshold.
func Window(c *wire.DoomLoop) int {
	w := Threshold(c)
	if c != nil && c.WindowSize != nil && *c.WindowSize > w {
		w = *c.WindowSize
	}
	return w
}

// Validate refuses settings the detector cannot honour.
func Validate(c *wire.DoomLoop) error {
	if c == nil {
		return nil
	}
	switch {
	case c.Threshold != nil && *c.Threshold < 2:
		return errors.New("doom_loop.threshold must be at least 2")
	case c.WindowSize != nil && *c.WindowSize < Threshold(c):
		return errors.New("doom_loop.window_size must not be smaller than the threshold")
	case c.ModelCheckWindow < 0:
		return errors.New("doom_loop.model_check_window must not be negative")
	}
	return nil
}
