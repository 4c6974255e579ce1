#!/bin/sh
# run.sh - `make check`'s proof that the checks of message arguments have
# teeth (bot/i18n.h, bot/gen/msgfmt.c). Usage: run.sh DIR CC CFLAGS...
#
# 1. tests/msgcheck/calls.c compiles with CASE=0 (every call right) and is
#    refused with CASE=1..5 by a -Wformat diagnostic, with CASE=6 by any
#    error.
# 2. The generator linked with tests/msgcheck/bad_ne.c fails, naming each
#    of its three faulty keys and not its right one.
# DIR holds the scratch files (logs, the generator built on the bad catalogue).
dir=$1
shift
src=tests/msgcheck/calls.c
fail() {
	echo "check: $*"
	exit 1
}

"$@" -fsyntax-only -DCASE=0 "$src" || fail "$src: the right calls (CASE=0) must compile"
for n in 1 2 3 4 5 6; do
	log=$dir/calls.$n.log
	if "$@" -fsyntax-only -DCASE=$n "$src" >"$log" 2>&1; then
		fail "$src: the wrong call of CASE=$n compiled: the message check lets it through"
	fi
	if [ "$n" -le 5 ] && ! grep -qE 'Werror(=|,-W)format' "$log"; then
		cat "$log"
		fail "$src: CASE=$n was refused, but not by the format check"
	fi
done

"$@" -DGB_MSG_GEN -o "$dir/msgfmt-bad" bot/gen/msgfmt.c bot/msg_en.c tests/msgcheck/bad_ne.c ||
	fail "the generator does not build on tests/msgcheck/bad_ne.c"
if "$dir/msgfmt-bad" >/dev/null 2>"$dir/msgfmt-bad.log"; then
	fail "the generator accepted tests/msgcheck/bad_ne.c"
fi
for key in M_JOINED M_CONSOLE_NAME M_WINNER; do
	grep -q "bot/msg_ne.c: $key" "$dir/msgfmt-bad.log" || fail "the generator did not name $key of tests/msgcheck/bad_ne.c"
done
! grep -q "M_LEFT" "$dir/msgfmt-bad.log" || fail "the generator refused the right M_LEFT of tests/msgcheck/bad_ne.c"
exit 0
