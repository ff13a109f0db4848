package adapter

import (
	"fmt"
	"os"
	"sync/atomic"
)

var markerSeq atomic.Int64

// newMarker is unique among the kernels of every conform process on the
// machine: conform's pid, then a counter.
func newMarker() string { return fmt.Sprintf("%d-%d", os.Getpid(), markerSeq.Add(1)) }
