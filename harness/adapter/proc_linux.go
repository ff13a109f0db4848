package adapter

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// proc is one process as /proc/<pid>/stat shows it.
type proc struct {
	pid, ppid, pgid int
	state           byte
	start           uint64 // clock ticks after boot
}

// ident names one process across pid reuse: a reused pid has a later start.
type ident struct {
	pid   int
	start uint64
}

func (p proc) ident() ident { return ident{p.pid, p.start} }

func (p proc) dead() bool { return p.state == 'Z' || p.state == 'X' }

// scanProcs reads every process's stat. Processes that end while it reads
// are simply missing.
func scanProcs() (map[int]proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make(map[int]proc, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid <= 0 {
			continue
		}
		if p, ok := readStat(pid); ok {
			out[pid] = p
		}
	}
	return out, nil
}

func readStat(pid int) (proc, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, false
	}
	p, err := parseStat(pid, b)
	return p, err == nil
}

// parseStat reads state, ppid, pgrp and starttime; the command name before
// them is in parentheses and may itself hold blanks and parentheses, so the
// fields are counted from the last ')'.
func parseStat(pid int, b []byte) (proc, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, fmt.Errorf("stat of %d: no command name", pid)
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state) of proc(5); starttime is field 22.
	if len(f) < 20 || len(f[0]) != 1 {
		return proc{}, fmt.Errorf("stat of %d: %d fields", pid, len(f))
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgid, err2 := strconv.Atoi(string(f[2]))
	start, err3 := strconv.ParseUint(string(f[19]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return proc{}, fmt.Errorf("stat of %d: bad numbers", pid)
	}
	return proc{pid: pid, ppid: ppid, pgid: pgid, state: f[0][0], start: start}, nil
}

// hasMarker reports whether the process's initial environment holds
// name=value. A process it cannot read (another user's, or gone) has none.
func hasMarker(pid int, kv string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	for _, e := range bytes.Split(b, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}
