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
# the three networks on it from seed CB_TRAIN_SEED and writes OUT.h.
# With CB_TRAIN_GEN2=K (default 0), a second generation comes between:
# the networks trained on the first data play K chunks of 50 games (chunk
# k from seed 5000 * CB_TRAIN_SEED + k, cbdata HARD=net), and the
# networks are trained again on both. With CB_TRAIN_SOFT=K (default 0),
# the networks trained on the first data play K chunks of 50 games as the
# hard level plays (chunk k from seed 6000 * CB_TRAIN_SEED + k, cbdata
# HARD=level), whose records carry the search's value of every card, and
# the networks are trained again on all the data, `own` learning those
# values as soft targets (a card's chance grows by e for each CB_TRAIN_TAU
# of value, default 5: half a hundredth of a game won). The data goes to
# CB_TRAIN_DIR
# (default build/cbtrain) and is kept, so a second run on the same data
# skips the games. Says how long each step took.
# Needs Debian's python3-torch and python3-numpy (installed when missing
# and run as root). A developer's tool: the service never runs it.
set -eu
CBDATA=$1
OUT=$2
JOBS=${CB_TRAIN_JOBS:-2}
CHUNKS=${CB_TRAIN_CHUNKS:-4}
GEN2=${CB_TRAIN_GEN2:-0}
SOFT=${CB_TRAIN_SOFT:-0}
TAU=${CB_TRAIN_TAU:-5}
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
prefixes=

# chunk KIND GAMES SEED [ARGS...]: one chunk of GAMES games from SEED,
# written to $DIR/KIND_SEED; skipped once its log says how long it took
chunk() {
	kind=$1 games=$2 s=$3
	shift 3
	grep -q '^cbdata:' "$DIR/${kind}_$s.log" 2>/dev/null ||
		nice -n 19 "$CBDATA" "$games" "$s" "$DIR/${kind}_$s" "$@" >"$DIR/${kind}_$s.log"
}

# wait for the jobs in $pids
wait_all() {
	for p in $pids; do
		wait "$p" || { echo "train-callbreak: a data job failed (see $DIR/*.log)" >&2; exit 1; }
	done
}

# first generation: the hard level without its learned parts; chunk i of
# job j from seed (j + 1) * 1000 * SEED + i
j=0
pids=
while [ "$j" -lt "$JOBS" ]; do
	(
		i=0
		while [ "$i" -lt "$CHUNKS" ]; do
			chunk g 200 $(( (j + 1) * 1000 * SEED + i ))
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
wait_all
mid=$(date +%s)
echo "train-callbreak: $((JOBS * CHUNKS * 200)) games of data in $((mid - start)) s"
if [ "$GEN2" -gt 0 ] || [ "$SOFT" -gt 0 ]; then
	# the networks of the first data, to play the next games
	# shellcheck disable=SC2086
	CB_TRAIN_BLOB="$DIR/gen1.bin" CB_TRAIN_TAU=0 nice -n 19 $PY tests/bench/cbtrain.py "$DIR/gen1.h" "$SEED" $prefixes
	t=$(date +%s)
	echo "train-callbreak: first generation trained in $((t - mid)) s"
	mid=$t
fi
# more KIND COUNT BASE HARD: COUNT chunks of 50 games played by the first
# networks (hard seats as cbdata HARD=HARD), chunk k from seed BASE + k,
# job j playing k = j, j + JOBS, ...; their prefixes added to the training
more() {
	kind=$1 count=$2 base=$3 hard=$4
	j=0
	pids=
	while [ "$j" -lt "$JOBS" ]; do
		(
			k=$j
			while [ "$k" -lt "$count" ]; do
				chunk "$kind" 50 $((base + k)) "HARD=$hard" "NET=$DIR/gen1.bin"
				k=$((k + JOBS))
			done
		) &
		pids="$pids $!"
		j=$((j + 1))
	done
	wait_all
	k=0
	while [ "$k" -lt "$count" ]; do
		prefixes="$prefixes $DIR/${kind}_$((base + k))"
		k=$((k + 1))
	done
}

if [ "$GEN2" -gt 0 ]; then
	# second generation: the networks just trained search with `own` and bid by the bid network
	t=$(date +%s)
	more n "$GEN2" $((5000 * SEED)) net
	mid=$(date +%s)
	echo "train-callbreak: $((GEN2 * 50)) games of the second generation in $((mid - t)) s"
fi
if [ "$SOFT" -gt 0 ]; then
	# the hard level as it plays, with the first networks: the search's values of every card
	t=$(date +%s)
	more q "$SOFT" $((6000 * SEED)) level
	mid=$(date +%s)
	echo "train-callbreak: $((SOFT * 50)) games with the search's values in $((mid - t)) s"
else
	TAU=0
fi
# shellcheck disable=SC2086
CB_TRAIN_TAU=$TAU nice -n 19 $PY tests/bench/cbtrain.py "$OUT" "$SEED" $prefixes
echo "train-callbreak: trained in $(( $(date +%s) - mid )) s, $(( $(date +%s) - start )) s in all"
