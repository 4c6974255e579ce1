#!/bin/sh
# Runs every cmocka suite given on the command line, keeps going after a
# failure, and ends with one summary line: "N passed, N failed".
passed=0
failed=0
bad=""
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	# a suite may run several groups: each ends with its own PASSED/FAILED line
	p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s += $1} END {if (NR) print s}')
	f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s += $1} END {if (NR) print s}')
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$rc" -ne 0 ]; then
		[ -n "$f" ] || failed=$((failed + 1))
		bad="$bad $(basename "$t")"
	fi
done
echo
[ -z "$bad" ] || echo "failing suites:$bad"
echo "$passed passed, $failed failed"
[ -z "$bad" ]
