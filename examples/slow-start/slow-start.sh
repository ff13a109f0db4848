#!/bin/sh
# A legal variant for conform: the kernel given as arguments, started
# SLOW_START seconds late (default 5), as a kernel that loads a large
# framework before it reads its input does. It answers initialize that much
# later and is otherwise the same kernel, so it must get the same verdicts:
# conform measures a kernel's start-up before it widens the run, and starts
# kernels a few at a time, each with its own initialize clock.
#
#   conform run --kernel "examples/slow-start/slow-start.sh conform kernel"
#
# scripts/verify-slow-start.sh runs it under default flags with both cores
# busy, repeatedly (make verify-slow-start).
sleep "${SLOW_START:-5}"
exec "$@"
