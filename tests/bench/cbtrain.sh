#!/bin/sh
# cbtrain.sh - `make train-callbreak`: the learned Call Break networks
# (games/ai/callbreak_net.h) trained again from a fixed seed.
#
#   sh tests/bench/cbtrain.sh CBDATA OUT.h
#
# Self-play data first: CB_TRAIN_JOBS processes at once (default 2, one a
# core), each playing CB_TRAIN_CHUNKS chunks of 200 games with
# build/bench/cbdata, chunk i of job j from seed
# (j + 1) * 1000 * CB_TRAIN_SEED + i; then tests/bench/cbtrain.py trains
# the three networks on it from seed CB_TRAIN_SEED and writes OUT.h. The
# data goes to CB_TRAIN_DIR (default build/cbtrain) and is kept, so a
# second run on the same data skips the games. Says how long each step
# took.
# Needs Debian's python3-torch and python3-numpy (installed when missing
# and run as root). A developer's tool: the service never runs it.
set -eu
CBDATA=$1
OUT=$2
JOBS=${CB_TRAIN_JOBS:-2}
CHUNKS=${CB_TRAIN_CHUNKS:-4}
SEED=${CB_TRAIN_SEED:-1}
DIR=${CB_TRAIN_DIR:-build/cbtrain}
PY=/usr/bin/python3

if ! $PY -c 'import torch, numpy' 2>/dev/null; then
	if [ "$(id -u)" = 0 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-torch python3-numpy
	else
		echo "train-callbreak: needs Debian's python3-torch and python3-numpy (apt-get install python3-torch)" >&2
		exit 1
	fi
fi
mkdir -p "$DIR"
start=$(date +%s)
j=0
prefixes=
pids=
while [ "$j" -lt "$JOBS" ]; do
	(
		i=0
		while [ "$i" -lt "$CHUNKS" ]; do
			s=$(( (j + 1) * 1000 * SEED + i ))
			# a chunk is done once its log says how long it took
			grep -q '^cbdata:' "$DIR/g_$s.log" 2>/dev/null ||
				nice -n 19 "$CBDATA" 200 "$s" "$DIR/g_$s" >"$DIR/g_$s.log"
			i=$((i + 1))
		done
	) &
	pids="$pids $!"
	i=0
	while [ "$i" -lt "$CHUNKS" ]; do
		prefixes="$prefixes $DIR/g_$(( (j + 1) * 1000 * SEED + i ))"
		i=$((i + 1))
	done
	j=$((j + 1))
done
for p in $pids; do
	wait "$p" || { echo "train-callbreak: a data job failed (see $DIR/g_*.log)" >&2; exit 1; }
done
mid=$(date +%s)
echo "train-callbreak: $((JOBS * CHUNKS * 200)) games of data in $((mid - start)) s"
# shellcheck disable=SC2086
nice -n 19 $PY tests/bench/cbtrain.py "$OUT" "$SEED" $prefixes
echo "train-callbreak: trained in $(( $(date +%s) - mid )) s, $(( $(date +%s) - start )) s in all"
