package adapter

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// CPUWait reads real run-queue waits: with more busy threads than CPUs, a
// busy kernel (and the harness) wait for a CPU, and the clock shows it.
// Only that it grows is asserted, never by how much.
func TestCPUWaitGrowsWhenTheMachineIsBusy(t *testing.T) {
	if _, ok := runQueueWait("/proc/self/schedstat"); !ok {
		t.Skip("this kernel has no /proc/PID/schedstat (CONFIG_SCHED_INFO): run-queue waits are not measured here")
	}
	ep, err := Subprocess{Argv: []string{"sh", "-c", "while :; do :; done"}}.Launch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	before := ep.CPUWait()
	spinUntil(runtime.NumCPU()+1, func() bool { return ep.CPUWait() > before })
	if after := ep.CPUWait(); after <= before {
		t.Errorf("CPUWait stayed at %v with %d busy threads beside a busy kernel on %d CPUs", after, runtime.NumCPU()+1, runtime.NumCPU())
	}
}

// In-process, the retry ceilings get no credit (CPUWait stays 0) but a
// watchdog does: the process's own waits grow with busy threads beside it.
func TestWatchdogWaitInProcessIsTheProcesssOwn(t *testing.T) {
	if _, ok := runQueueWait("/proc/self/schedstat"); !ok {
		t.Skip("this kernel has no /proc/PID/schedstat (CONFIG_SCHED_INFO): run-queue waits are not measured here")
	}
	ep := &Endpoint{}
	before := ep.WatchdogWait()
	// More threads running Go code than CPUs, or the Go scheduler, not
	// the machine's, would queue them.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2*runtime.NumCPU() + 2))
	spinUntil(2*runtime.NumCPU()+1, func() bool { return ep.WatchdogWait() > before })
	if after := ep.WatchdogWait(); after <= before {
		t.Errorf("WatchdogWait stayed at %v in a process with %d busy threads on %d CPUs", after, 2*runtime.NumCPU()+1, runtime.NumCPU())
	}
	if w := ep.CPUWait(); w != 0 {
		t.Errorf("CPUWait in-process = %v, want 0 (the ceilings take no credit there)", w)
	}
}

// spinUntil keeps n goroutines busy until done holds, or five seconds.
func spinUntil(n int, done func() bool) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	deadline := time.Now().Add(5 * time.Second)
	for !done() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
}
