#!/bin/sh
# Screenshots of the HTML reports in a real browser (headless Chromium), at
# desktop and phone width, into reports/screenshots/; fails on a console
# message of level warning or error (a blocked load, a CSP violation, a
# parse error) and when a passing row comes before the first failing one
# (the page must open on what failed). Skips, saying so, where no Chromium
# is installed (Debian: apt-get install chromium).
#
#   scripts/screenshots.sh [PAGE.html ...]   (default: the reference and
#                                             naive Python kernel reports)
set -eu
browser=""
for b in chromium chromium-browser google-chrome-stable google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
	echo "no Chromium found: skipping the report screenshots (Debian: apt-get install chromium)"
	exit 0
fi
out=${OUT:-reports/screenshots}
mkdir -p "$out" reports/tmp
[ $# -gt 0 ] || set -- reports/reference.html reports/naive-kernel-python.html
# No network, no profile left behind: a throwaway profile folder, and the
# page is a file.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
# The browser gets no network at all: a namespace holding only loopback
# where one can be made (root: unshare --net; else a user namespace), and in
# any case every host name resolved to nothing and every request sent to a
# closed loopback proxy, so its update, metrics and safe-browsing calls
# cannot leave the machine.
isolate=""
if command -v unshare >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null; then
		isolate="unshare --net --"
	elif unshare -rn true 2>/dev/null; then
		isolate="unshare -rn --"
	fi
fi
run() {
	# shellcheck disable=SC2086
	$isolate "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$profile" --disable-extensions --disable-background-networking \
		--disable-component-update --disable-sync --no-pings --disable-domain-reliability \
		--proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND" \
		--enable-logging=stderr --v=0 "$@"
}
status=0
for page in "$@"; do
	name=$(basename "$page" .html)
	url="file://$(cd "$(dirname "$page")" && pwd)/$(basename "$page")"
	for w in 1400 420; do
		log=reports/tmp/screenshot-$name-$w.log
		run --window-size="$w,1000" --screenshot="$(cd "$out" && pwd)/$name-$w.png" "$url" >"$log" 2>&1 || {
			echo "$page at $w px: $browser failed (see $log)"; status=1; continue; }
		# Chromium logs each console message as CONSOLE(line)] "text", and a
		# blocked load or CSP violation as one too.
		if grep -E 'CONSOLE|Refused to|Content Security Policy' "$log" >/dev/null; then
			echo "$page at $w px: console messages:"; grep -E 'CONSOLE|Refused to|Content Security Policy' "$log"; status=1
		fi
		echo "$out/$name-$w.png"
	done
	dom=reports/tmp/screenshot-$name.dom.html
	run --dump-dom "$url" >"$dom" 2>/dev/null
	# The first failing or erring row must come before the first passing one.
	first_bad=$(grep -n -m1 -E '<tr[^>]* class="st-(fail|error)' "$dom" | cut -d: -f1)
	first_pass=$(grep -n -m1 -E '<tr[^>]* class="st-pass' "$dom" | cut -d: -f1)
	if [ -n "$first_bad" ] && [ -n "$first_pass" ] && [ "$first_bad" -gt "$first_pass" ]; then
		echo "$page: a passing row (line $first_pass of the DOM) comes before the first failing one (line $first_bad)"; status=1
	fi
done
exit $status
