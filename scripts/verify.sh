#!/usr/bin/env bash
# make verify: proves that no verdict depends on machine speed. The full
# suite runs REPEAT times against the reference kernel as a subprocess at
# -j JOBS while two busy processes hold both cores; conform run --repeat
# exits 1 on any outcome that varied between runs. The load is started and
# stopped here, by PID, whatever happens to the run.
set -euo pipefail
BIN=${BIN:-bin/conform}
REPEAT=${REPEAT:-20}
JOBS=${JOBS:-12}
OUT=${OUT:-reports/tmp}
mkdir -p "$OUT"

load=()
stop_load() {
	for pid in "${load[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${load[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_load EXIT
for _ in 1 2; do
	yes >/dev/null &
	load+=($!)
done
echo "verify: load processes ${load[*]}; $REPEAT runs at -j $JOBS"

start=$(date +%s)
status=0
"$BIN" run --kernel "$BIN kernel" --require all -q -j "$JOBS" --repeat "$REPEAT" \
	--report-json "$OUT/verify.json" >"$OUT/verify.txt" 2>&1 || status=$?
end=$(date +%s)
sed -n '/^Stability/,/^$/p' "$OUT/verify.txt" | head -40
tail -1 "$OUT/verify.txt"
echo "verify: $REPEAT runs in $((end - start)) s, exit status $status"
exit "$status"
