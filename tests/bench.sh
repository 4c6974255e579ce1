#!/bin/sh
# make bench: the computer players' target rows through `gamebot arena`,
# with a summary table (win share of the first seat entry, or in a head to
# head row of every entry of its level, with its 95% Wilson interval,
# against the target; the slowest level's decision p99
# against its limit). BENCH_SCALE=0.1 runs a tenth of the games for a
# quick look. BENCH_OUT=dir keeps each row's JSON there and reuses what is
# already there, so that a long run can be resumed or its rows run apart
# (`gamebot arena` gives the same numbers whatever --threads).
# BENCH_ROWS=arena, BENCH_ROWS=parts (what each part of the Call Break hard
# level adds) or BENCH_ROWS=service runs only those rows; the service
# rows are the programs of tests/bench/ (commit latency under load, ...,
# one SQLite instance against 1, 2 and 3 on PostgreSQL, a flood of junk
# connections, a typical command's transaction in the store).
set -eu
BIN=${1:-bin/gamebot}
SCALE=${BENCH_SCALE:-1}
THREADS=${BENCH_THREADS:-2}
if [ -n "${BENCH_OUT:-}" ]; then
	OUT=$BENCH_OUT
	mkdir -p "$OUT"
else
	OUT=$(mktemp -d)
	trap 'rm -rf "$OUT"' EXIT
fi

games() { awk -v n="$1" -v s="$SCALE" 'BEGIN { g = int(n * s); if (g < 10) g = 10; print g }'; }

# One arena run, its JSON kept in $OUT under the game, seats and games.
arena() { # game seats games
	f="$OUT/$1-$(printf '%s' "$2" | tr , -)-$3.json"
	if [ ! -s "$f" ]; then
		"$BIN" arena "$1" --seats "$2" --games "$3" --seed 1 --threads "$THREADS" >"$f.tmp" 2>/dev/null || return 1
		mv "$f.tmp" "$f"
	fi
	cat "$f"
}

printf '%s\n' "machine: $(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//')"
printf '%-10s %-30s %6s %-22s %-16s %-34s %s\n' game seats games "measured seat wins (95% CI)" target "ms/move p99 by level (limit)" extra

row() { # game seats games op target [entry: 1-based seat entry measured, default 1]
	game=$1 seats=$2 n=$(games "$3") op=$4 target=$5 entry=${6:-1}
	if ! json=$(arena "$game" "$seats" "$n"); then
		printf '%-10s %-30s %6d arena failed\n' "$game" "$seats" "$n"
		return 0
	fi
	printf '%s\n' "$json" | awk -v game="$game" -v seats="$seats" -v op="$op" -v target="$target" -v e="$entry" '
	function arr(name,   s, i) {
		s = $0; i = index(s, "\"" name "\":[");
		if (!i) return "";
		s = substr(s, i + length(name) + 4); return substr(s, 1, index(s, "]") - 1);
	}
	function num(name,   s, i) {
		s = $0; i = index(s, "\"" name "\":");
		if (!i) return "";
		s = substr(s, i + length(name) + 3); sub(/[,}].*/, "", s); return s;
	}
	{
		m = split(arr("wins"), w, ","); n = num("games"); draws = num("draws");
		if (op == "draw") { k = draws } else { k = w[e] }
		mine = 0; theirs = 0;  # entries of the measured level against the others
		for (i = 1; i <= m; i++) if (i % 2 == e % 2) mine += w[i]; else theirs += w[i];
		if (op == "beats") k = mine;  # head to head: the wins of every entry of the level
		p = k / n; z = 1.96;
		c = (p + z*z/(2*n)) / (1 + z*z/n); h = z * sqrt(p*(1-p)/n + z*z/(4*n*n)) / (1 + z*z/n);
		ms = $0; sub(/.*"ms_per_move":\{/, "", ms); sub(/\},"seconds".*/, "", ms);
		gsub(/"p50":[0-9.e-]*,/, "", ms); gsub(/,"max":[0-9.e-]*/, "", ms); gsub(/[{}"]/, "", ms); gsub(/:p99:/, "=", ms);
		# decision time limits: hard 50 ms in Ludo, 500 ms in Call Break, 1 s
		# elsewhere; easy and medium 10 ms; the ismcts yardstick has none
		speed = "met"; nl = split(ms, lv, ",");
		for (i = 1; i <= nl; i++) {
			split(lv[i], kv, "="); lim = 0;
			if (kv[1] == "hard") lim = (game == "ludo") ? 50 : (game == "callbreak") ? 500 : 1000;
			else if (kv[1] == "easy" || kv[1] == "medium") lim = 10;
			if (lim && kv[2] + 0 > lim) speed = "NOT MET";
		}
		ms = ms " " speed;
		if (op == ">=") ok = (p >= target) ? "met" : "NOT MET";
		else if (op == "draw") ok = (p >= target) ? "met" : "NOT MET";
		else if (op == "noloss") ok = (theirs == 0) ? "met" : "NOT MET";
		else if (op == "beats") ok = (mine > theirs) ? "met" : "NOT MET";
		else if (op == "report") ok = "reported";
		else ok = "";
		extra = "";
		if (game == "callbreak") {
			split(arr("bids_made"), b, ","); split(seats, sl, ",");
			extra = sprintf("bid made %.1f%%", 100 * b[e]);
			# bids made: the hard level against three players of one level (the target rows)
			if (sl[e] == "hard" && sl[2] == sl[3] && sl[3] == sl[4])
				extra = extra ((b[e] >= 0.9) ? " (>= 90% met)" : " (>= 90% NOT MET)");
		}
		if (game == "baghchal") extra = sprintf("wins %s draws %s", arr("wins"), draws);
		printf "%-10s %-30s %6d %5.1f%% [%4.1f, %4.1f] %-16s %-34s %s\n", game, seats, n, 100*p, 100*(c-h), 100*(c+h), op " " target " " ok, ms, extra;
	}'
}

rows() {
	row ludo hard,random,random,random 2000 ">=" 0.85
	row ludo hard,medium,medium,medium 2000 ">=" 0.40
	row ludo medium,random,random,random 2000 ">=" 0.75
	row ludo easy,random,random,random 2000 ">=" 0.40
	row ludo easy,random 2000 beats 0
	row ludo medium,easy 2000 beats 0
	row ludo hard,medium 2000 beats 0
	row callbreak hard,random,random,random 2000 ">=" 0.85
	row callbreak hard,medium,medium,medium 2000 ">=" 0.55
	# the ismcts yardstick (1,000 iterations a decision): first as strong as
	# medium against three mediums, then hard and medium against three of it
	row callbreak ismcts,medium,medium,medium 2000 ">=" 0.25
	row callbreak hard,ismcts,ismcts,ismcts 2000 ">=" 0.40
	row callbreak medium,ismcts,ismcts,ismcts 2000 report 0
	margin callbreak hard,ismcts,ismcts,ismcts medium,ismcts,ismcts,ismcts 2000 0.10
	row callbreak medium,random,random,random 2000 ">=" 0.60
	row callbreak easy,random,easy,random 2000 beats 0
	row callbreak medium,easy,medium,easy 2000 beats 0
	row callbreak hard,medium,hard,medium 2000 beats 0
	# baghchal seats are GOAT,TIGER: each level is measured on both sides
	row baghchal hard,random 200 ">=" 0.99 1
	row baghchal random,hard 200 ">=" 0.99 2
	row baghchal hard,medium 200 noloss 0 1
	row baghchal medium,hard 200 noloss 0 2
	row baghchal hard,hard 200 draw 0.9
	row baghchal easy,random 200 beats 0 1
	row baghchal random,easy 200 beats 0 2
	row baghchal medium,easy 200 beats 0 1
	row baghchal easy,medium 200 beats 0 2
	row baghchal hard,medium 200 beats 0 1
	row baghchal medium,hard 200 beats 0 2
}

# hard's share minus another level's share in the same seat against the
# same field: at least the target (a fraction).
margin() { # game seats_a seats_b games target
	n=$(games "$4")
	a=$(arena "$1" "$2" "$n" | sed 's/.*"wins":\[\([0-9]*\),.*/\1/') || return 0
	b=$(arena "$1" "$3" "$n" | sed 's/.*"wins":\[\([0-9]*\),.*/\1/') || return 0
	awk -v a="$a" -v b="$b" -v n="$n" -v t="$5" -v sa="$2" -v sb="$3" -v g="$1" 'BEGIN {
		d = (a - b) / n; h = 1.96 * sqrt(a / n * (1 - a / n) / n + b / n * (1 - b / n) / n);
		printf "%-10s %-30s %6d %+5.1f pts [%+.1f, %+.1f] %-16s over %s\n", g, sa, n, 100 * d, 100 * (d - h),
			100 * (d + h), "margin " t " " ((d >= t) ? "met" : "NOT MET"), sb }'
}

# What each part of the Call Break hard level adds: hard with that part
# turned off, against three mediums and the same deals (tests/bench/cbparts.c).
parts_rows() {
	dir=${BENCH_BIN_DIR:-build/bench}
	n=$(games 2000)
	for v in full no-exact count-bid uniform points small; do
		"$dir/cbparts" "$v" medium "$n" 1 || true
	done
	# what reading the unseen cards perfectly would add: the true hands
	# for the cards played, then for the bids as well
	for o in 2 3; do
		"$dir/cbparts" full medium "$n" 1 oracle=$o || true
	done
}

# The Telegram rows at 200, 2,000 and 20,000 chats, and at 200 and 20,000
# on a database a year of play left (200,000 games, 5,000,000 update ids,
# pruned as the service prunes), then the memory of gamebot serve at
# 20,000 chats. Each program prints its own target lines; here the
# comparisons across runs: ingest at N chats at least 80% of the 200-chat
# figure (actions a second, each the median of five rounds), and a
# year-old database within 10% of a new one (CPU time per action, which
# the machine's other work moves least).
scale_rows() { # dir
	d=$1 t=$OUT/telegram
	for n in 200 2000 20000; do
		"$d/telegram" --chats $n --rounds 5 | tee "$t-$n.txt" || true
	done
	for n in 200 20000; do
		"$d/telegram" --chats $n --rounds 5 --aged 200000 | tee "$t-$n-aged.txt" || true
	done
	GAMEBOT_BIN=$BIN "$d/chats" --chats 20000 || true
	rate() { sed -n 's/.* handler threads): \([0-9]*\) actions\/s (median.*/\1/p' "$1"; }
	cpu() { sed -n 's/.*(target >= 50%) [A-Z ]*met; \([0-9]*\) us of CPU each.*/\1/p' "$1"; }
	for n in 2000 20000; do
		awk -v a="$(rate "$t-200.txt")" -v b="$(rate "$t-$n.txt")" -v n=$n 'BEGIN { if (a > 0 && b > 0)
			printf "telegram   %d chats: ingest %d actions/s against %d at 200 chats = %.0f%%" \
			" (target >= 80%%) %s\n", n, b, a, 100 * b / a, b >= 0.8 * a ? "met" : "NOT MET" }'
	done
	for n in 200 20000; do
		awk -v a="$(cpu "$t-$n.txt")" -v b="$(cpu "$t-$n-aged.txt")" -v n=$n 'BEGIN { if (a > 0 && b > 0)
			printf "telegram   %d chats on a year-old database: %d us of CPU an action against %d us" \
			" on a new one = %+.0f%% (target within 10%%) %s\n", n, b, a, 100 * (b - a) / a,
			(b <= 1.1 * a) ? "met" : "NOT MET" }'
	done
}

# The service rows: programs in tests/bench/, each printing lines that end
# in "met" or "NOT MET" on its target line.
service_rows() {
	dir=${BENCH_BIN_DIR:-build/bench}
	"$dir/load" || true
	scale_rows "$dir"
	GAMEBOT_BIN=$BIN BENCH_SCALE=$SCALE "$dir/pace" || true
	# one SQLite instance, then 1, 2 and 3 sharing a PostgreSQL server started for the row
	GAMEBOT_BIN=$BIN GAMEBOT_TEST_PG_FSYNC=on sh tests/pg.sh "$dir/scaleout" || true
	# signed Discord interactions while 2,000 connections post junk
	GAMEBOT_BIN=$BIN "$dir/flood" || true
	# one typical command's transaction in the store, on SQLite and on PostgreSQL
	GAMEBOT_TEST_PG_FSYNC=on sh tests/pg.sh "$dir/command" || true
}

case ${BENCH_ROWS:-all} in
arena) rows | tee "$OUT/table.txt" ;;
parts) parts_rows | tee "$OUT/table.txt" ;;
service) service_rows | tee "$OUT/table.txt" ;;
*) { rows; parts_rows; service_rows; } | tee "$OUT/table.txt" ;;
esac
total=$(grep -c -e '^[a-z]*  *[a-z]*,' -e 'target' "$OUT/table.txt" || true)
short=$(grep -c -e 'NOT MET' -e 'arena failed' "$OUT/table.txt" || true)
printf '%s of %s rows meet every target\n' $((total - short)) "$total"
