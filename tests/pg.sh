#!/bin/sh
# tests/pg.sh COMMAND...: run COMMAND with GAMEBOT_TEST_PG naming a
# PostgreSQL database the suites may use as they like (each makes its own
# schemas in it). When GAMEBOT_TEST_PG is already set, that server is used
# and nothing is started. Otherwise a throwaway server is made for the run:
# initdb into a temporary folder (as the unprivileged user nobody when run
# as root, since PostgreSQL refuses to run as root), listening only on a
# unix socket in that folder, stopped and removed when COMMAND ends.
# If no server can be started, COMMAND still runs (the other suites are
# worth their answer) with GAMEBOT_TEST_PG unset, so every PostgreSQL
# suite fails loudly, and the exit status is non-zero whatever COMMAND says.
set -u
if [ -n "${GAMEBOT_TEST_PG:-}" ]; then
	exec "$@"
fi
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
	[ -n "$bindir" ] && [ -x "$bindir/initdb" ] || { echo "tests/pg.sh: no PostgreSQL server installed (sh config/deps.sh)" >&2; return 1; }
	if [ "$(id -u)" -eq 0 ]; then
		chown nobody "$dir" || return 1
		as="runuser -u nobody --"
	fi
	$as "$bindir/initdb" -D "$dir/data" -U gamebot -A trust --no-sync -E UTF8 --locale=C.UTF-8 \
		>"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 1; }
	# fsync off: a throwaway database that never needs to survive a crash
	$as "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-k $dir -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
		start >/dev/null 2>&1 || { cat "$dir/server.log" >&2; return 1; }
	started=1
}
if start; then
	GAMEBOT_TEST_PG="postgresql://gamebot@/postgres?host=$dir"
	export GAMEBOT_TEST_PG
	"$@"
	exit $?
fi
echo "tests/pg.sh: COULD NOT START POSTGRESQL: the PostgreSQL suites will fail" >&2
"$@"
exit 1
