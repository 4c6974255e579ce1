#!/bin/sh
# tests/pg.sh COMMAND...: run COMMAND with GAMEBOT_TEST_PG naming a
# PostgreSQL database the suites may use as they like (each makes its own
# schemas in it). When GAMEBOT_TEST_PG is already set, that server is used
# and nothing is started. Otherwise a throwaway server is made for the run:
# initdb into a temporary folder (as the unprivileged user nobody when run
# as root, since PostgreSQL refuses to run as root), listening only on a
# unix socket in that folder, stopped and removed when COMMAND ends.
# The server commits without waiting for the disk (synchronous_commit=off:
# a commit survives the process, as SQLite's WAL with synchronous=NORMAL
# does) and, for the tests, never syncs at all (fsync=off);
# GAMEBOT_TEST_PG_FSYNC=on keeps its syncs (the benchmark does).
# If no server can be started, COMMAND still runs (the other suites are
# worth their answer) with GAMEBOT_TEST_PG unset, so every PostgreSQL
# suite fails loudly, and the exit status is non-zero whatever COMMAND says.
set -u
if [ -n "${GAMEBOT_TEST_PG:-}" ]; then
	exec "$@"
fi
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || sh "$(dirname "$0")/../config/deps.sh" --test
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
dir=$(mktemp -d /tmp/gamebot-pg-XXXXXX)
as=""
started=0
cleanup() {
	if [ "$started" -eq 1 ]; then
		$as "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
start() {
	[ -n "$bindir" ] && [ -x "$bindir/initdb" ] || { echo "tests/pg.sh: no PostgreSQL server installed (sh config/deps.sh --test)" >&2; return 1; }
	if [ "$(id -u)" -eq 0 ]; then
		chown nobody "$dir" || return 1
		as="runuser -u nobody --"
	fi
	$as "$bindir/initdb" -D "$dir/data" -U gamebot -A trust --no-sync -E UTF8 --locale=C.UTF-8 \
		>"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 1; }
	sync="-c fsync=off -c full_page_writes=off"
	[ "${GAMEBOT_TEST_PG_FSYNC:-off}" = on ] && sync=""
	$as "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-k $dir -c listen_addresses= -c synchronous_commit=off $sync -c max_connections=200" \
		start >/dev/null 2>&1 || { cat "$dir/server.log" >&2; return 1; }
	started=1
}
if start; then
	GAMEBOT_TEST_PG="postgresql://gamebot@/postgres?host=$dir"
	export GAMEBOT_TEST_PG
	"$@"
	rc=$?
	# a failed run shows what the server said of it (refused clients among them)
	if [ "$rc" -ne 0 ] && grep -qE 'FATAL|PANIC' "$dir/server.log" 2>/dev/null; then
		echo "tests/pg.sh: the server's complaints during the run:" >&2
		grep -E 'FATAL|PANIC' "$dir/server.log" | sort | uniq -c | sort -rn | head -n 20 >&2
	fi
	exit $rc
fi
echo "tests/pg.sh: COULD NOT START POSTGRESQL: the PostgreSQL suites will fail" >&2
"$@"
exit 1
