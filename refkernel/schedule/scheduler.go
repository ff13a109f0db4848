package schedule

import (
	"context"
	"sync"
)

// Job is one call to run.
type Job struct {
	Key Key
	Run func(ctx context.Context)
}

// Scheduler is the swappable scheduling part. Run returns when every job
// has returned.
type Scheduler interface {
	Run(ctx context.Context, jobs []Job, parallel bool)
}

// Standard is the reference scheduler. Each job waits for every earlier job
// whose key conflicts with its own, so same-key calls keep message order
// (a mutex would not promise that) and the wait graph cannot cycle.
type Standard struct{}

// Run implements Scheduler.
func (Standard) Run(ctx context.Context, jobs []Job, parallel bool) {
	if !parallel || len(jobs) < 2 {
		for _, j := range jobs {
			j.Run(ctx)
		}
		return
	}
	done := make([]chan struct{}, len(jobs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	var wg sync.WaitGroup
	for i, j := range jobs {
		var before []chan struct{}
		for k := range i {
			if jobs[k].Key.Conflicts(j.Key) {
				before = append(before, done[k])
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			for _, ch := range before {
				<-ch
			}
			j.Run(ctx)
		}()
	}
	wg.Wait()
}
