#!/bin/sh
# Runs each libFuzzer target named on the command line for FUZZ_SECONDS,
# starting from its checked-in seeds (tests/fuzz/NAME/) and the inputs of
# the suites' corpus files (tests/data/NAME/*.json, by FUZZ_BUILD/corpus-seeds)
# copied into a scratch corpus (FUZZ_BUILD/run/NAME/corpus), and prints one line per target:
# its executions, speed and coverage. Stops at the first target that finds
# a crash, a leak, a sanitizer report or a timeout (the input is kept in
# FUZZ_BUILD/run/NAME/ and its name printed), and exits non-zero.
# FUZZ_JOBS targets run at once (default 1; each takes one core): after a
# failure no further target starts.
set -u
secs=${FUZZ_SECONDS:-300}
dir=${FUZZ_BUILD:-build/fuzz}
jobs=${FUZZ_JOBS:-1}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac

if [ "${1:-}" = "--one" ]; then
	# one target (called by the run below): its line into run/NAME/line,
	# its status into run/NAME/status
	t=$2
	work="$dir/run/$t"
	rm -rf "$work/corpus" "$work/line" "$work/status"
	[ ! -e "$dir/run/stop" ] || exit 0
	mkdir -p "$work/corpus"
	cp tests/fuzz/"$t"/* "$work/corpus/"
	if ls tests/data/"$t"/*.json >/dev/null 2>&1; then
		"$dir/corpus-seeds" "$work/corpus" tests/data/"$t"/*.json || { echo 1 >"$work/status"; exit 0; }
	fi
	log="$work/log"
	echo "fuzz $t: ${secs}s"
	"$dir/$t" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$work/" \
		"$work/corpus" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	line="fuzz $t: ${secs}s, ${execs:-?} executions (${speed:-?}/s), ${cov:-cov: ?}"
	if [ "$rc" -ne 0 ]; then
		: >"$dir/run/stop"
		line="$line: FAILED (rc $rc), input kept: $(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null | head -n 1)"
	fi
	echo "$line" >"$work/line"
	echo "$rc" >"$work/status"
	exit 0
fi

mkdir -p "$dir/run"
rm -f "$dir/run/stop"
printf '%s\n' "$@" | xargs -P "$jobs" -n 1 env FUZZ_SECONDS="$secs" FUZZ_BUILD="$dir" sh "$0" --one
summary=""
for t in "$@"; do
	work="$dir/run/$t"
	[ -e "$work/status" ] || continue
	if [ "$(cat "$work/status")" -ne 0 ]; then
		tail -n 60 "$work/log"
		cat "$work/line" 2>/dev/null || echo "fuzz $t: FAILED"
		exit 1
	fi
	summary="$summary$(cat "$work/line")
"
done
printf '\n%s' "$summary"
