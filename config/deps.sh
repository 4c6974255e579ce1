#!/bin/sh
# Installs the build and test dependencies of gamebot from Debian packages
# when pkg-config cannot find them. Called by the Makefile before every build;
# a no-op (and silent) when everything is present. With --test it also
# installs the PostgreSQL server the test suites start (tests/pg.sh calls
# it so when initdb is missing; CI calls it so up front). Works as root without
# sudo, and through sudo otherwise.
set -eu

need=""
for pc in libcurl:libcurl4-openssl-dev jansson:libjansson-dev \
          libmicrohttpd:libmicrohttpd-dev sqlite3:libsqlite3-dev \
          cmocka:libcmocka-dev libsodium:libsodium-dev libpq:libpq-dev; do
	mod=${pc%%:*}
	pkg=${pc#*:}
	if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$mod"; then
		need="$need $pkg"
	fi
done
for tool in cc:build-essential make:make pkg-config:pkg-config; do
	bin=${tool%%:*}
	pkg=${tool#*:}
	command -v "$bin" >/dev/null 2>&1 || need="$need $pkg"
done
# the tests' throwaway server (tests/pg.sh): Debian's postgresql-NN
if [ "${1:-}" = --test ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
	need="$need postgresql"
fi
[ -n "$need" ] || exit 0
if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "gamebot: missing packages:$need (run as root or install sudo)" >&2
	exit 1
fi
echo "gamebot: installing$need" >&2
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need pkg-config >&2
