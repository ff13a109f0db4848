#!/bin/sh
# A legal variant for conform: the kernel given as arguments, started late,
# as a kernel that loads a large framework before it reads its input is:
# SLOW_START_WORK iterations of CPU work (default 0; 2000000 is about two
# seconds of one core), then a sleep of SLOW_START seconds (default 5). It
# answers initialize that much later and is otherwise the same kernel, so it
# must get the same verdicts: conform measures a kernel's first start-up
# before it widens the run, starts kernels a few at a time, and times each
# initialize from its own launch, not counting time spent waiting for a CPU.
#
#   conform run --kernel "examples/slow-start/slow-start.sh conform kernel"
#
# scripts/verify-slow-start.sh runs it under default flags with both cores
# busy, repeatedly (make verify-slow-start).
i=0
while [ "$i" -lt "${SLOW_START_WORK:-0}" ]; do i=$((i + 1)); done
sleep "${SLOW_START:-5}"
exec "$@"
