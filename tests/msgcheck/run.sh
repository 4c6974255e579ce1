#!/bin/sh
# run.sh - `make check`'s checks of message arguments beyond the compiler's,
# and its proof that the compiler's have teeth (bot/lang/i18n.h,
# bot/gen/msgfmt.c). Usage: run.sh DIR CC CFLAGS...
#
# 1. tests/msgcheck/calls.c compiles with CASE=0 (every call right) and is
#    refused with CASE=1..5 by a -Wformat diagnostic, with CASE=6 by any
#    error.
# 2. The generator linked with tests/msgcheck/bad_ne.c fails, naming each
#    of its three faulty keys and not its right one.
# 3. A key written in tr() - its text used as it is, every formatted use
#    being one of the checked forms - takes no arguments: its "%s" would
#    reach the chat as written. Shown first to find tests/msgcheck/plain.txt's.
# DIR holds msg_fmt.h and the scratch files (logs, the generator built on
# the bad catalogue).
dir=$1
shift
src=tests/msgcheck/calls.c
fail() {
	echo "check: $*"
	exit 1
}

# The keys written in tr(KEY) or tr(lang, ...KEY...) in the files given
# that take arguments, one a line.
plain_keys_with_args() {
	grep -hoE '\btr\(([^()]|\([^()]*\))*\)' "$@" | grep -oE '\bM_[A-Z0-9_]+' | sort -u |
		while read -r key; do
			grep -qE "^#define MSG_FMT_$key \"$key\"\$" "$dir/msg_fmt.h" || echo "$key"
		done
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

"$@" -DGB_MSG_GEN -o "$dir/msgfmt-bad" bot/gen/msgfmt.c bot/lang/msg_en.c tests/msgcheck/bad_ne.c ||
	fail "the generator does not build on tests/msgcheck/bad_ne.c"
if "$dir/msgfmt-bad" >/dev/null 2>"$dir/msgfmt-bad.log"; then
	fail "the generator accepted tests/msgcheck/bad_ne.c"
fi
for key in M_JOINED M_CONSOLE_NAME M_WINNER; do
	grep -q "bot/lang/msg_ne.c: $key" "$dir/msgfmt-bad.log" || fail "the generator did not name $key of tests/msgcheck/bad_ne.c"
done
! grep -q "M_LEFT" "$dir/msgfmt-bad.log" || fail "the generator refused the right M_LEFT of tests/msgcheck/bad_ne.c"

[ "$(plain_keys_with_args tests/msgcheck/plain.txt)" = "M_JOINED" ] ||
	fail "tests/msgcheck/plain.txt: its M_JOINED, text with arguments used as it is, went unseen"
bad=$(plain_keys_with_args $(find bot adapters -name '*.[ch]'))
[ -z "$bad" ] || fail "used as text as it is, but takes arguments (format it with a checked form of bot/lang/i18n.h):" $bad
exit 0
