#!/bin/sh
# make agents: install each profile's pinned npm package into .agents/
# (ignored) and run the suite against it through the bridge, inside a
# network namespace of its own (conform agent refuses without one). An
# agent whose package cannot be installed, or a machine without node, npm
# or a namespace, is skipped with the reason. Reports: reports/agents/NAME.*.
set -u
CONFORM=${CONFORM:-bin/conform}
DIR=${AGENTS_DIR:-.agents}
OUT=${AGENTS_OUT:-reports/agents}
# --timeout-multiplier: a real agent is a Node (or native) program that
# takes seconds to start under load; the suite's time limits are sized for
# a wire kernel (TA-22's "runs for at most 5 seconds" cancelled Claude Code
# before it had started its first turn on the shared 2-core machine). The
# published reports ran with -j 3 and 6, opencode (10-90 s to its first
# model request under load) with 8, Kilo Code (an opencode fork) with 10.
FLAGS=${AGENTS_FLAGS:--q -j 3}
ONLY=${AGENTS_ONLY:-}
# Profiles that cannot be driven through the suite yet, each for the reason
# reports/agents/BLOCKED.md gives (none today: every profile here has a
# published, judged run). AGENTS_BLOCKED="NAME ..." skips them.
BLOCKED=${AGENTS_BLOCKED-}
mkdir -p "$OUT"
status=0
# conform agent refuses to run an agent without a network namespace; say
# so once and skip, as the header promises, instead of failing per agent.
case " $FLAGS " in *" --no-isolation "*) isolated=no ;; *) isolated=yes ;; esac
if [ $isolated = yes ] && { [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1 || ! unshare --net true 2>/dev/null; }; then
	echo "skip every agent: no network namespace can be made here (needs root and unshare --net)"
	exit 0
fi
for profile in profiles/agents/*.json; do
	name=$(basename "$profile" .json)
	case " $ONLY " in "  ") ;; *" $name "*) ;; *) continue ;; esac
	case " $BLOCKED " in *" $name "*) echo "skip $name: blocked, see reports/agents/BLOCKED.md"; continue ;; esac
	spec=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["package"]; print(p["npm"]+"@"+p["version"], p["bin"])' "$profile" 2>/dev/null) || { echo "skip $name: no package in its profile"; continue; }
	pkg=${spec% *}; bin=${spec#* }
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "skip $name: node or npm is not installed"; continue
	fi
	if [ ! -x "$DIR/node_modules/.bin/$bin" ] || ! grep -q "\"version\": \"${pkg##*@}\"" "$DIR/node_modules/${pkg%@*}/package.json" 2>/dev/null; then
		echo "install $pkg into $DIR"
		if ! npm install --silent --no-audit --no-fund --prefix "$DIR" "$pkg" >"$OUT/$name.install.log" 2>&1; then
			echo "skip $name: npm install $pkg failed (see $OUT/$name.install.log)"; continue
		fi
	fi
	echo "run $name"
	start=$(date +%s)
	# The reports in every format, each naming the conform commit and suite
	# digest it was made with (make build stamps the commit), beside the
	# agent's judgements (reports/agents/NAME.judgements.json).
	# shellcheck disable=SC2086
	case $name in opencode) mult=8 ;; kilo-code) mult=10 ;; *) mult=6 ;; esac
	"$CONFORM" agent "$name" --bin-dir "$DIR/node_modules/.bin" --timeout-multiplier "$mult" $FLAGS \
		--report-json "$OUT/$name.json" --markdown "$OUT/$name.md" --html "$OUT/$name.html"
	rc=$?
	echo "$name: exit $rc, $(( $(date +%s) - start )) s"
	[ $rc -le 1 ] || status=$rc
done
exit $status
