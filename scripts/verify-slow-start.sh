#!/usr/bin/env bash
# make verify-slow-start: proves that a busy machine does not turn a slow
# start into `error` verdicts. The legal variant examples/slow-start (the
# reference kernel, answering initialize SLOW_START seconds late after
# SLOW_START_WORK iterations of CPU work) is checked under default flags
# (no -j, no --init-timeout) while two busy loops hold both cores: FULL runs
# of the whole suite, then RUNS runs of the TAGS selection. Every run must
# end with no requirement failing or in error (--require all, exit 0).
# The load is started and stopped here, by PID, whatever happens.
set -euo pipefail
BIN=${BIN:-bin/conform}
FULL=${FULL:-3}
RUNS=${RUNS:-20}
TAGS=${TAGS:-@TA-01,@TA-02,@TA-10,@ER-01,@HD-01}
OUT=${OUT:-reports/tmp/slow-start}
export SLOW_START=${SLOW_START:-5} SLOW_START_WORK=${SLOW_START_WORK:-0}
mkdir -p "$OUT"
kernel="examples/slow-start/slow-start.sh $(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") kernel"

load=()
stop_load() {
	for pid in "${load[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${load[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_load EXIT
for _ in 1 2; do
	sh -c 'while :; do :; done' &
	load+=($!)
done
echo "verify-slow-start: load processes ${load[*]}; start-up ${SLOW_START}s + ${SLOW_START_WORK} iterations; $FULL full runs, $RUNS runs of $TAGS"

failed=0
one() { # name, conform run arguments...
	local name=$1 status=0 t0 t1
	shift
	t0=$(date +%s)
	"$BIN" run --env SLOW_START --env SLOW_START_WORK --kernel "$kernel" --require all --report-json "$OUT/$name.json" "$@" >"$OUT/$name.txt" 2>"$OUT/$name.err" || status=$?
	t1=$(date +%s)
	errors=$(grep -c '"status": "error"' "$OUT/$name.json" || true)
	echo "$name: exit $status, $errors error entries, $((t1 - t0)) s; $(head -1 "$OUT/$name.err")"
	if [ "$status" != 0 ] || [ "$errors" != 0 ]; then failed=$((failed + 1)); fi
}
for i in $(seq 1 "$FULL"); do one "full-$i"; done
for i in $(seq 1 "$RUNS"); do one "tags-$i" --tags "$TAGS"; done
echo "verify-slow-start: $((FULL + RUNS)) runs, $failed with a failure or an error"
[ "$failed" = 0 ]
