#!/bin/sh
# Runs every cmocka suite given on the command line, keeps going after a
# failure, and ends with one summary line: "N passed, N failed".
#
# TEST_JOBS suites run at once (default 2). Most suites spend their time
# waiting on the service they start, its fake platform servers or its
# clocks, not on a core, so two at a time roughly halves the run. The
# suites known to take longest start first, so the run does not end on
# one of them alone; the few that measure time run alone at the end. A line is printed as each suite ends; each suite's
# own output follows in full, in the order given, once all have ended.
# TEST_JOBS=1 runs them one after another.
jobs=${TEST_JOBS:-2}
case $jobs in '' | *[!0-9]* | 0) jobs=1 ;; esac

# the suites that measure the pace of the platform's limits on the wall
# clock (a group's longest wait between boards): run by themselves once
# the others have ended, so that no other suite shares the cores then
alone="test_pace"
# the suites that take longest, longest first
slow="test_callbreak_ai test_store test_plans test_arena test_console test_callbreak_search test_callbreak test_telegram test_hidden_hands test_fifth_game test_discord test_ludo test_render test_serve test_forum test_scaleout"

if [ "${1:-}" = "--one" ]; then
	# one suite (called by the run below): its output and exit status
	# into $dir, one line when it ends
	name=$(basename "$2")
	start=$(date +%s)
	"$2" >"$dir/$name.out" 2>&1
	rc=$?
	echo "$rc" >"$dir/$name.rc"
	if [ "$rc" -eq 0 ]; then word=ok; else word=FAILED; fi
	echo "suite $name: $word ($(($(date +%s) - start)) s)"
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
	dir="$dir" sh "$0" --one "$t"
done

passed=0
failed=0
bad=""
for t in "$@"; do
	name=$(basename "$t")
	out=$(cat "$dir/$name.out" 2>/dev/null)
	rc=$(cat "$dir/$name.rc" 2>/dev/null || echo 1)
	printf '%s\n' "$out"
	# a suite may run several groups: each ends with its own PASSED/FAILED line
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s += $1} END {if (NR) print s}')
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s += $1} END {if (NR) print s}')
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$rc" -ne 0 ]; then
		[ -n "$f" ] || failed=$((failed + 1))
		bad="$bad $name"
	fi
done
echo
[ -z "$bad" ] || echo "failing suites:$bad"
echo "$passed passed, $failed failed"
[ -z "$bad" ]
