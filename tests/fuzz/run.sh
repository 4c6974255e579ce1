#!/bin/sh
# Runs each libFuzzer target named on the command line for FUZZ_SECONDS,
# starting from its checked-in seeds (tests/fuzz/NAME/) and the inputs of
# the suites' corpus files (tests/data/NAME/*.json, by FUZZ_BUILD/corpus-seeds)
# copied into a scratch corpus (FUZZ_BUILD/run/NAME/corpus), and prints one line per target:
# its executions, speed and coverage. Stops at the first target that finds
# a crash, a leak, a sanitizer report or a timeout (the input is kept in
# FUZZ_BUILD/run/NAME/ and its name printed), and exits non-zero.
set -u
secs=${FUZZ_SECONDS:-300}
dir=${FUZZ_BUILD:-build/fuzz}
summary=""
for t in "$@"; do
	work="$dir/run/$t"
	rm -rf "$work/corpus"
	mkdir -p "$work/corpus"
	cp tests/fuzz/"$t"/* "$work/corpus/"
	if ls tests/data/"$t"/*.json >/dev/null 2>&1; then
		"$dir/corpus-seeds" "$work/corpus" tests/data/"$t"/*.json || exit 1
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
		tail -n 60 "$log"
		echo "$line: FAILED (rc $rc), input kept: $(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* 2>/dev/null | head -n 1)"
		exit 1
	fi
	echo "$line"
	summary="$summary$line
"
done
printf '\n%s' "$summary"
