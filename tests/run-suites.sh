#!/bin/sh
# Runs every cmocka suite given on the command line, keeps going after a
# failure, and ends with one summary line: "N passed, N failed".
#
# TEST_JOBS suites run at once (default 2). Most suites spend their time
# waiting on the service they start, its fake platform servers or its
# clocks, not on a core (a whole run keeps about a third of one core
# busy), so two at a time roughly halves the run and more halve it again
# (CI runs four). The suites known to take longest start first, so the
# run does not end on one of them alone; the few that measure time run
# alone at the end (a test of theirs that waits on the wall clock beside
# the others runs in a process of its own, at the same time). A line is
# printed as each suite ends, with its wall time and the processor time
# it and its children took. Then each suite's own output follows in the
# order given, the failing ones last, so the end of the output is the
# end of a failing suite's.
# TEST_JOBS=1 runs them one after another.
#
# TEST_OUTPUT=summary shows only cmocka's summary lines of a suite that
# passed (a failing one is always shown in full). TEST_FAIL_FAST=1 starts
# no further suite once one has failed (those not run are named).
jobs=${TEST_JOBS:-2}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac

# the suites that measure the pace of the platform's limits on the wall
# clock (a group's longest wait between boards): run by themselves once
# the others have ended, so that no other suite shares the cores then
alone="test_pace"
# tests of those suites that run in a process of their own, at the same
# time as the suite's others (SUITE:PATTERN, a cmocka pattern passed as
# TEST_FILTER to one process and TEST_SKIP to the other): they take next
# to no processor time, wait on the wall clock, and would only add up
apart="test_pace:people_pace_two_topics"
# the suites that take longest, longest first
slow="test_telegram test_outage test_discord test_hidden_hands test_fifth_game test_store test_plans test_callbreak_ai test_faults test_serve test_online_serve test_forum test_console test_arena test_callbreak_search test_callbreak test_ludo test_render test_scaleout"

if [ "${1:-}" = "--one" ]; then
	# one suite (called by the run below): its output and exit status
	# into $dir, one line when it ends; none once a suite has failed
	# under TEST_FAIL_FAST. A third argument names a part of the suite
	# (its tests chosen by TEST_FILTER or TEST_SKIP), kept as NAME.PART.
	name=$(basename "$2")${3:+.$3}
	[ ! -e "$dir/stop" ] || exit 0
	start=$(date +%s)
	"$2" >"$dir/$name.out" 2>&1
	rc=$?
	echo "$rc" >"$dir/$name.rc"
	# the processor time of the suite and the services it started
	# (times itself, not in a pipe or a subshell, whose children these are not)
	times >"$dir/$name.times"
	cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); n += a[1] * 60 + a[2] } printf "%.1f", n }' "$dir/$name.times")
	if [ "$rc" -eq 0 ]; then word=ok; else word=FAILED; fi
	[ "$rc" -eq 0 ] || [ "${TEST_FAIL_FAST:-0}" = 0 ] || : >"$dir/stop"
	echo "suite $(basename "$2")${3:+ (${4:-$3})}: $word ($(($(date +%s) - start)) s, cpu ${cpu} s)"
	exit 0
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/gamebot-suites-XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM

# the order to start them in: the slow ones given, then the others as
# given; the ones to run alone apart
order=""
last=""
for s in $slow; do
	for t in "$@"; do
		case " $alone " in *" $s "*) continue ;; esac
		[ "$(basename "$t")" = "$s" ] && order="$order $t"
	done
done
for t in "$@"; do
	case " $alone " in *" $(basename "$t") "*) last="$last $t"; continue ;; esac
	case " $slow " in *" $(basename "$t") "*) ;; *) order="$order $t" ;; esac
done

# xargs runs the suites jobs at a time, each through --one above
[ -z "$order" ] || printf '%s\n' $order | xargs -P "$jobs" -n 1 env dir="$dir" sh "$0" --one
for t in $last; do
	name=$(basename "$t")
	pat=""
	for a in $apart; do
		[ "${a%%:*}" != "$name" ] || pat=${a#*:}
	done
	if [ -z "$pat" ]; then
		dir="$dir" sh "$0" --one "$t"
		continue
	fi
	# its two parts at once, then one output and status as for any suite
	env -u TEST_SKIP dir="$dir" TEST_FILTER="$pat" sh "$0" --one "$t" 1 "$pat" &
	env -u TEST_FILTER dir="$dir" TEST_SKIP="$pat" sh "$0" --one "$t" 2 "the others" &
	wait
	[ -e "$dir/$name.1.rc" ] || [ -e "$dir/$name.2.rc" ] || continue
	cat "$dir/$name.1.out" "$dir/$name.2.out" >"$dir/$name.out" 2>/dev/null
	rc=0
	for part in 1 2; do
		[ "$(cat "$dir/$name.$part.rc" 2>/dev/null || echo 1)" -eq 0 ] || rc=1
	done
	echo "$rc" >"$dir/$name.rc"
done

passed=0
failed=0
bad=""
skipped=""
for t in "$@"; do
	name=$(basename "$t")
	if [ -e "$dir/stop" ] && [ ! -e "$dir/$name.rc" ]; then
		skipped="$skipped $name"
		continue
	fi
	out=$(cat "$dir/$name.out" 2>/dev/null)
	rc=$(cat "$dir/$name.rc" 2>/dev/null || echo 1)
	# a suite may run several groups: each ends with its own PASSED/FAILED line
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s += $1} END {if (NR) print s}')
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s += $1} END {if (NR) print s}')
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$rc" -ne 0 ]; then
		[ -n "$f" ] || failed=$((failed + 1))
		bad="$bad $name"
		continue
	fi
	if [ "${TEST_OUTPUT:-all}" = summary ]; then
		printf '%s\n' "$out" | grep -E '^\[(==========|  PASSED  )\] [0-9]+ test'
	else
		printf '%s\n' "$out"
	fi
done
# the failing suites' output last, each in full
for name in $bad; do
	echo
	echo "--- $name (exit status $(cat "$dir/$name.rc" 2>/dev/null || echo '?')):"
	cat "$dir/$name.out" 2>/dev/null
done
echo
[ -z "$skipped" ] || echo "not run (a suite had failed):$skipped"
[ -z "$bad" ] || echo "failing suites:$bad"
echo "$passed passed, $failed failed"
[ -z "$bad" ]
