/*
 * pace.c - `make bench` rows: boards at the pace Telegram allows, tables
 * played by people against the real service with its pacing on and the
 * fake Bot API enforcing Telegram's limits (tests/people.c).
 *
 *   fast      one Ludo table, two people pressing 0.8 s after a board of
 *             their turn and two computers, 5 minutes: the longest gap
 *             between two boards at most 4 s, answer p99 under 300 ms, no
 *             answer refused as too old, no 429;
 *   game      the same table played to its end: it ends, at that pace;
 *   tables N  N Ludo tables in N groups, one press per table every 2 s,
 *             10 minutes: no 429, a press shown on its table's board
 *             within 6 s at p99 and 10 s at worst (100 tables: what 30
 *             messages a second can show at that pace), the outbox never
 *             more than a few rows a table; with 300 tables (three times
 *             that) every table still brought up to date at least every
 *             15 s, answers under 300 ms at p99, memory flat;
 *   topicsN   N Snakes tables in N topics of one forum group, two people
 *             at each pressing 0.8 s after a board of their turn, 3
 *             minutes: the group's twenty a minute shared in turn, so
 *             after the opening minute the longest gap between two
 *             boards of a table is at most N steps of 3.6 s and a little
 *             (2 tables: 8 s, the opening minute included; 4 tables:
 *             15.2 s), and no 429;
 *   discord   50 Ludo tables in 50 Discord channels, the same presses,
 *             against the fake Discord API in strict mode (its buckets
 *             and global limit): no 429, answers under 300 ms at p99 and
 *             none past Discord's 3 s, a press shown within 6 s at p99.
 *
 * BENCH_SCALE (default 1) scales every row's minutes, as tests/bench.sh
 * does the arena's games: BENCH_SCALE=0.1 is a quick look.
 *
 *   pace [--row fast|game|100|300|topics2|topics4|discord] [--seconds N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/people.h"

static int seconds_of(int full, int forced)
{
	const char *sc = getenv("BENCH_SCALE");
	double scale = sc ? strtod(sc, NULL) : 1.0;
	int s = (int)(full * (scale > 0 ? scale : 1.0));

	if (forced > 0)
		return forced;
	return s < 30 ? 30 : s;
}

static const char *verdict(int ok)
{
	return ok ? "met" : "NOT MET";
}

static void report(const char *row, const struct people_opts *o, const struct people_result *r)
{
	printf("pace %s: %d table(s) of %s, %.0f s: %d boards, %d presses (%d answered, %d too old), "
	       "%d 429s, %d game(s) over\n", row, o->tables, o->game, r->seconds, r->boards, r->presses,
	       r->answered, r->too_old, r->refused_429, r->over);
	printf("pace %s: gap between boards p99 %lld ms, longest %lld ms; answer p50 %lld ms, p99 %lld ms, "
	       "max %lld ms; press shown p99 %lld ms, max %lld ms; outbox at most %d rows; service "
	       "memory %ld -> %ld kB\n", row, r->gap_p99_ms, r->max_gap_ms, r->answer_p50_ms,
	       r->answer_p99_ms, r->answer_max_ms, r->shown_p99_ms, r->shown_max_ms, r->max_pending,
	       r->rss_first_kb, r->rss_last_kb);
	if (r->seconds > 60)
		printf("pace %s: after the first minute: gap between boards p99 %lld ms, longest %lld ms\n",
		       row, r->steady_gap_p99_ms, r->steady_max_gap_ms);
}

static int fast(bool to_end, int forced)
{
	struct people_opts o;
	struct people_result r;
	int ok;

	people_opts_init(&o);
	o.game = "ludo";
	o.seconds = to_end ? (forced > 0 ? forced : 3600) : seconds_of(300, forced);
	if (people_play(&o, &r))
		return 1;
	report(to_end ? "game" : "fast", &o, &r);
	ok = r.max_gap_ms <= 4000 && r.answer_p99_ms < 300 && !r.too_old && !r.refused_429;
	if (to_end)
		printf("pace game: target the game ends, at most 4 s between boards, no 429, none too old: %s\n",
		       verdict(ok && r.over == 1));
	else
		printf("pace fast: target longest gap <= 4 s, answer p99 < 300 ms, 0 too old, 0 429s: %s\n",
		       verdict(ok));
	return ok && (!to_end || r.over == 1) ? 0 : 2;
}

static int tables(int n, int forced)
{
	struct people_opts o;
	struct people_result r;
	int ok;

	people_opts_init(&o);
	o.game = "ludo";
	o.tables = n;
	o.every_ms = 2000;
	o.seconds = seconds_of(600, forced);
	o.verbose = getenv("BENCH_VERBOSE") != NULL;
	if (people_play(&o, &r))
		return 1;
	report(n <= 100 ? "100" : "300", &o, &r);
	if (n <= 100) {
		ok = !r.refused_429 && r.shown_p99_ms <= 6000 && r.shown_max_ms <= 10000 &&
		     r.max_pending <= 4 * n;
		printf("pace %d tables: target 0 429s, shown p99 <= 6 s and max <= 10 s, outbox <= 4 rows a "
		       "table: %s\n", n, verdict(ok));
	} else {
		ok = !r.refused_429 && r.steady_max_gap_ms <= 15000 && r.answer_p99_ms < 300 &&
		     r.rss_last_kb <= r.rss_first_kb + r.rss_first_kb / 5;
		printf("pace %d tables: target 0 429s, every board at most 15 s old after the opening "
		       "minute, answer p99 < 300 ms, memory flat: %s\n", n, verdict(ok));
	}
	return ok ? 0 : 2;
}

/* n Snakes tables in n topics of one forum group, people pressing 0.8 s after a board of their turn. */
static int topics(int n, int forced)
{
	struct people_opts o;
	struct people_result r;
	char row[16];
	long long target = n * 3600LL + 800;
	int ok;

	people_opts_init(&o);
	o.game = "snakes";
	o.tables = n;
	o.one_group = true;
	o.seconds = seconds_of(180, forced);
	o.verbose = getenv("BENCH_VERBOSE") != NULL;
	if (people_play(&o, &r))
		return 1;
	snprintf(row, sizeof(row), "topics%d", n);
	report(row, &o, &r);
	/* two tables fit the group's minute from the start; four share it with their openings first */
	ok = !r.refused_429 && r.steady_max_gap_ms <= target && (n > 2 || r.max_gap_ms <= target);
	printf("pace %s: most boards of one table in a row %d; target longest gap <= %.1f s%s, 0 429s: %s\n",
	       row, r.max_run, (double)target / 1000, n > 2 ? " after the first minute" : "", verdict(ok));
	return ok ? 0 : 2;
}

/* n Discord tables against the strict fake Discord API, one press per table every 2 s. */
static int discord(int n, int forced)
{
	struct people_opts o;
	struct people_result r;
	int ok;

	people_opts_init(&o);
	o.game = "ludo";
	o.tables = n;
	o.every_ms = 2000;
	o.seconds = seconds_of(600, forced);
	o.verbose = getenv("BENCH_VERBOSE") != NULL;
	if (people_discord_play(&o, &r))
		return 1;
	report("discord", &o, &r);
	ok = !r.refused_429 && !r.too_old && r.answer_p99_ms < 300 && r.shown_p99_ms <= 6000 &&
	     r.shown_max_ms <= 10000 && r.max_pending <= 4 * n;
	printf("pace discord %d tables: target 0 429s, answers p99 < 300 ms and none past 3 s, shown "
	       "p99 <= 6 s and max <= 10 s, outbox <= 4 rows a table: %s\n", n, verdict(ok));
	return ok ? 0 : 2;
}

int main(int argc, char **argv)
{
	const char *row = NULL;
	int forced = 0, rc = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--row"))
			row = argv[i + 1];
		else if (!strcmp(argv[i], "--seconds"))
			forced = (int)strtol(argv[i + 1], NULL, 10);
	}
	if (!row || !strcmp(row, "fast"))
		rc |= fast(false, forced);
	if (!row || !strcmp(row, "game"))
		rc |= fast(true, forced);
	if (!row || !strcmp(row, "100"))
		rc |= tables(100, forced);
	if (!row || !strcmp(row, "300"))
		rc |= tables(300, forced);
	if (!row || !strcmp(row, "topics2"))
		rc |= topics(2, forced);
	if (!row || !strcmp(row, "topics4"))
		rc |= topics(4, forced);
	if (!row || !strcmp(row, "discord"))
		rc |= discord(50, forced);
	return rc;
}
