/*
 * arena.c - plays many games between computer players and prints one JSON
 * summary. Each game gets its own seed derived from --seed and its index;
 * the seat order is rotated game by game (except in a game of fixed sides,
 * Bagh Chal) and results are added up in game order, so the numbers are
 * the same whatever --threads is. Timings are per decision, by level (an
 * arena seat of the game, struct gb_ai_seat, counting as a level of its
 * own).
 */
#include "arena.h"

#include <assert.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games/ai/ai.h"
#include "games/game.h"
#include "games/strbuf.h"

#define MAX_ACTIONS 200000  /* a game longer than this is stopped and counted a draw */
/*
 * Seat levels beyond the ones people play against (ai.h): the game's
 * arena seats (struct gb_ai's `seats`: Call Break's `ismcts`, Ludo's and
 * Call Break's `hard-classic`) exist only here, as yardsticks for the
 * others; LEVEL_SEATS + i is the game's seats[i]. LEVEL_FOREIGN is another
 * game's seat, named in --seats only to be refused.
 */
#define LEVEL_SEATS GB_LEVEL_COUNT
#define ARENA_LEVELS (GB_LEVEL_COUNT + GB_AI_SEATS_MAX)
#define LEVEL_FOREIGN ARENA_LEVELS

struct arena {
	const struct gb_game *game;
	struct gb_rules rules;
	int nseats;
	int levels[GB_MAX_SEATS];
	long games;
	uint64_t seed;
	int threads;
	int budget;                  /* a budgeted arena seat's budget a decision, 0: its default */
	const char *foreign;         /* another game's arena seat named in --seats, or NULL */
	bool rotate;
	/* per game results, filled by the workers */
	int *winner_entry;           /* entry index, -1 none */
	unsigned char *draw;
	int *turns;
	int (*points)[GB_MAX_SEATS]; /* by entry, tenths */
	int (*bids)[2][GB_MAX_SEATS]; /* a game of points, by entry: rounds bid, rounds made */
	atomic_long next;
	atomic_long done;
	/* decision timings by level (ms) */
	pthread_mutex_t lock;
	double *times[ARENA_LEVELS];
	size_t ntimes[ARENA_LEVELS], captimes[ARENA_LEVELS];
	int failed;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Arena seat i of game g (struct gb_ai's `seats`), or NULL past its last. */
static const struct gb_ai_seat *seat_at(const struct gb_game *g, int i)
{
	const struct gb_ai_seat *s = g && g->ai && g->ai->seats && i < GB_AI_SEATS_MAX ? &g->ai->seats[i] : NULL;

	return s && s->name && s->choose ? s : NULL;
}

/* The arena seat that level stands for in a's game (level >= LEVEL_SEATS). */
static const struct gb_ai_seat *seat_of(const struct arena *a, int level)
{
	const struct gb_ai_seat *s = seat_at(a->game, level - LEVEL_SEATS);

	assert(s);
	return s;
}

/*
 * A level's name, one of the game's arena seats (LEVEL_SEATS + its
 * index), or another game's (LEVEL_FOREIGN, its name kept in a->foreign);
 * -1 when none.
 */
static int level_parse(struct arena *a, const char *name)
{
	int level = gb_level_parse(name);

	for (int i = 0; level < 0 && seat_at(a->game, i); i++)
		if (strcmp(name, seat_at(a->game, i)->name) == 0)
			level = LEVEL_SEATS + i;
	for (int g = 0; level < 0 && gb_games[g]; g++)
		for (int i = 0; level < 0 && seat_at(gb_games[g], i); i++)
			if (strcmp(name, seat_at(gb_games[g], i)->name) == 0) {
				a->foreign = seat_at(gb_games[g], i)->name;
				level = LEVEL_FOREIGN;
			}
	return level;
}

static const char *level_name(const struct arena *a, int level)
{
	return level >= LEVEL_SEATS ? seat_of(a, level)->name : gb_level_name(level);
}

/* One decision of a seat of `level`; only a seat that takes a budget is given --budget. */
static int choose(const struct arena *a, const void *st, int level, uint64_t seed, struct gb_action *act)
{
	const struct gb_ai_seat *s;
	int budget;

	if (level < LEVEL_SEATS)
		return gb_ai_choose(a->game, st, level, seed, 0, act);
	s = seat_of(a, level);
	budget = a->budget < s->budget_max ? a->budget : s->budget_max;
	return gb_ai_seat_choose(a->game, s, st, budget, seed, act);
}

/* "; ismcts, hard-classic in callbreak": each game's arena seats, for the usage lines. */
static void seats_hint(struct strbuf *sb)
{
	for (int g = 0; gb_games[g]; g++) {
		for (int i = 0; seat_at(gb_games[g], i); i++)
			sb_addf(sb, "%s%s", i ? ", " : "; ", seat_at(gb_games[g], i)->name);
		if (seat_at(gb_games[g], 0))
			sb_addf(sb, " in %s", gb_games[g]->name);
	}
}

static void add_times(struct arena *a, const double *t, const int *lv, size_t n)
{
	pthread_mutex_lock(&a->lock);
	for (size_t i = 0; i < n; i++) {
		int l = lv[i];

		if (a->ntimes[l] == a->captimes[l]) {
			size_t cap = a->captimes[l] ? a->captimes[l] * 2 : 4096;
			double *p = realloc(a->times[l], cap * sizeof(double));

			if (!p) {
				a->failed = 1;
				break;
			}
			a->times[l] = p;
			a->captimes[l] = cap;
		}
		a->times[l][a->ntimes[l]++] = t[i];
	}
	pthread_mutex_unlock(&a->lock);
}

/* Play game number g; returns GB_OK or an error (a computer player failed). */
static int play_one(struct arena *a, long g, void *st, double *t, int *lv, size_t cap)
{
	uint64_t gseed = gb_seed_derive(a->seed, (uint64_t)g);
	struct gb_setup su;
	struct gb_outcome oc;
	int rot = a->rotate ? (int)((gseed >> 33) % (uint64_t)a->nseats) : 0;
	size_t nt = 0;
	int rc;

	gb_setup_init(&su, a->game);
	su.players = a->nseats;
	su.rules = a->rules;
	su.seed = gseed;
	su.dealer = (int)(gseed % 4);
	rc = a->game->init(st, &su);
	if (rc)
		return rc;
	for (long k = 0; k < MAX_ACTIONS; k++) {
		struct gb_action act;
		int turn = a->game->turn(st), entry, level;
		double t0;

		a->game->outcome(st, &oc);
		if (oc.over)
			break;
		/* between Call Break rounds nobody's turn: the next round starts */
		entry = turn < 0 ? -1 : (turn + rot) % a->nseats;
		level = entry < 0 ? GB_LEVEL_RANDOM : a->levels[entry];
		t0 = now_s();
		rc = choose(a, st, level, gb_seed_derive(gseed ^ 0x5eed, (uint64_t)k), &act);
		if (!rc && entry >= 0 && nt < cap) {
			t[nt] = (now_s() - t0) * 1000.0;
			lv[nt] = level;
			nt++;
		}
		if (!rc)
			rc = a->game->apply(st, &act, NULL);
		if (rc)
			return rc;
		if (nt == cap) {
			add_times(a, t, lv, nt);
			nt = 0;
		}
	}
	add_times(a, t, lv, nt);
	a->game->outcome(st, &oc);
	a->turns[g] = oc.turns;
	a->draw[g] = oc.draw || !oc.over;
	a->winner_entry[g] = (!oc.over || oc.draw || oc.winner < 0) ? -1 : (oc.winner + rot) % a->nseats;
	for (int s = 0; s < a->nseats; s++)
		a->points[g][(s + rot) % a->nseats] = oc.score[s];
	if (a->bids) {
		/* history: per round, four [bid, tricks, points] */
		json_t *j = a->game->to_json(st), *round;
		size_t r;

		json_array_foreach(json_object_get(j, "history"), r, round) {
			for (int s = 0; s < a->nseats; s++) {
				json_t *line = json_array_get(round, (size_t)s);
				int bid = (int)json_integer_value(json_array_get(line, 0));
				int won = (int)json_integer_value(json_array_get(line, 1));

				a->bids[g][0][(s + rot) % a->nseats]++;
				a->bids[g][1][(s + rot) % a->nseats] += won >= bid;
			}
		}
		json_decref(j);
	}
	return GB_OK;
}

static void *worker(void *arg)
{
	struct arena *a = arg;
	void *st = malloc(a->game->state_size);
	size_t cap = 4096;
	double *t = malloc(cap * sizeof(double));
	int *lv = malloc(cap * sizeof(int));

	if (!st || !t || !lv) {
		a->failed = 1;
		goto out;
	}
	for (;;) {
		long g = atomic_fetch_add(&a->next, 1);

		if (g >= a->games || a->failed)
			break;
		if (play_one(a, g, st, t, lv, cap))
			a->failed = 1;
		atomic_fetch_add(&a->done, 1);
	}
out:
	free(st);
	free(t);
	free(lv);
	return NULL;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static json_t *round4(double v)
{
	return json_real((double)llround(v * 10000.0) / 10000.0);
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* "unknown game 'chess' (games: snakes, ludo, baghchal, callbreak)" */
static void print_unknown_game(const char *name, FILE *err)
{
	struct strbuf names = { 0 };

	for (int i = 0; gb_games[i]; i++)
		sb_addf(&names, "%s%s", i ? ", " : "", gb_games[i]->name);
	fprintf(err, "unknown game '%s' (games: %s)\n", name, sb_str(&names));
	sb_release(&names);
}

/* "ismcts seats play callbreak only": the games that have an arena seat called name. */
static void print_seat_games(const char *name, FILE *err)
{
	struct strbuf names = { 0 };

	for (int g = 0; gb_games[g]; g++)
		if (gb_ai_seat_find(gb_games[g], name))
			sb_addf(&names, "%s%s", names.len ? ", " : "", gb_games[g]->name);
	fprintf(err, "%s seats play %s only\n", name, sb_str(&names));
	sb_release(&names);
}

/* The largest budget --budget takes: the largest any arena seat takes. */
static int budget_max(void)
{
	int max = 1;

	for (int g = 0; gb_games[g]; g++)
		for (int i = 0; seat_at(gb_games[g], i); i++)
			if (seat_at(gb_games[g], i)->budget_max > max)
				max = seat_at(gb_games[g], i)->budget_max;
	return max;
}

static int parse_seats(struct arena *a, const char *list, FILE *err)
{
	const char *p = list;

	a->nseats = 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		char word[16];
		int l = -1;

		if (n > 0 && n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = '\0';
			l = level_parse(a, word);
		}
		if (l < 0 || a->nseats >= GB_MAX_SEATS) {
			struct strbuf refs = { 0 };

			seats_hint(&refs);
			fprintf(err, "bad seat list '%s' (levels: random, easy, medium, hard%s)\n", list,
				sb_str(&refs));
			sb_release(&refs);
			return -1;
		}
		a->levels[a->nseats++] = l;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* One option and its value into a; 0, or 2 after saying what is wrong. */
static int parse_option(struct arena *a, const char *opt, const char *val, const char **seats, FILE *err)
{
	long v;

	if (strcmp(opt, "--seats") == 0) {
		*seats = val;
	} else if (strcmp(opt, "--games") == 0) {
		if (parse_long(val, 1, 100000000, &a->games)) {
			fprintf(err, "--games takes a whole number from 1, not '%s'\n", val);
			return 2;
		}
	} else if (strcmp(opt, "--seed") == 0) {
		char *end;

		errno = 0;
		a->seed = strtoull(val, &end, 10);
		if (errno || *end || *val == '-' || !*val) {
			fprintf(err, "--seed takes a whole number, not '%s'\n", val);
			return 2;
		}
	} else if (strcmp(opt, "--threads") == 0) {
		if (parse_long(val, 1, 64, &v)) {
			fprintf(err, "--threads takes 1..64, not '%s'\n", val);
			return 2;
		}
		a->threads = (int)v;
	} else if (strcmp(opt, "--budget") == 0) {
		if (parse_long(val, 1, budget_max(), &v)) {
			fprintf(err, "--budget takes 1..%d iterations, not '%s'\n", budget_max(), val);
			return 2;
		}
		a->budget = (int)v;
	} else {
		int rc = gb_rules_set_kv(a->game, &a->rules, val);

		if (rc) {
			fprintf(err, "%s for %s: '%s'\n", rc == GB_EPARSE ? "house rules are written KEY=VALUE" : gb_strerror(rc),
				a->game->name, val);
			return 2;
		}
	}
	return 0;
}

/* The command line into a (its game already found); 0, or 2 after saying what is wrong. */
static int parse_options(struct arena *a, int argc, char **argv, const char **seats, FILE *err)
{
	static const char *const known[] = { "--seats", "--games", "--seed", "--threads", "--rule", "--budget" };

	for (int i = 2; i < argc; i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool ok = false;

		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			ok = ok || strcmp(opt, known[k]) == 0;
		if (!ok) {
			fprintf(err, "unknown option '%s'\n", opt);
			return 2;
		}
		if (!val) {
			fprintf(err, "option '%s' needs a value\n", opt);
			return 2;
		}
		i++;
		if (parse_option(a, opt, val, seats, err))
			return 2;
	}
	return 0;
}

/* Do the seats suit the game (how many; random only where there is nothing to choose; its own arena seats)? */
static int check_seats(struct arena *a, FILE *err)
{
	/* a game of chance also runs one seat alone, for analysis (the arena contract) */
	int min_seats = (a->game->flags & GB_NO_CHOICES) ? 1 : a->game->min_players;

	if (a->nseats < min_seats || a->nseats > a->game->max_players) {
		fprintf(err, "%s takes %d to %d seats, not %d\n", a->game->name, min_seats, a->game->max_players,
			a->nseats);
		return 2;
	}
	for (int i = 0; (a->game->flags & GB_NO_CHOICES) && i < a->nseats; i++)
		if (a->levels[i] != GB_LEVEL_RANDOM) {
			fprintf(err, "%s has no choices to make: use random seats\n", a->game->name);
			return 2;
		}
	for (int i = 0; i < a->nseats; i++)
		if (a->levels[i] == LEVEL_FOREIGN) {
			print_seat_games(a->foreign, err);
			return 2;
		}
	return 0;
}

/* Room for every game's results; false when out of memory. */
static bool alloc_results(struct arena *a)
{
	a->winner_entry = calloc((size_t)a->games, sizeof(int));
	a->draw = calloc((size_t)a->games, 1);
	a->turns = calloc((size_t)a->games, sizeof(int));
	a->points = calloc((size_t)a->games, sizeof(*a->points));
	if (a->game->flags & GB_POINTS)
		a->bids = calloc((size_t)a->games, sizeof(*a->bids));
	return a->winner_entry && a->draw && a->turns && a->points && (!(a->game->flags & GB_POINTS) || a->bids);
}

/* Play every game on a->threads workers, saying how far it is every 1.5 s; false when one failed. */
static bool play_all(struct arena *a, double t0, FILE *err)
{
	pthread_t th[64];
	double last = t0;

	for (int i = 0; i < a->threads; i++) {
		if (pthread_create(&th[i], NULL, worker, a)) {
			a->threads = i;
			a->failed = 1;
			break;
		}
	}
	while (atomic_load(&a->done) < a->games && !a->failed) {
		struct timespec ts = { 0, 100 * 1000000L };

		nanosleep(&ts, NULL);
		if (now_s() - last >= 1.5) {
			last = now_s();
			fprintf(err, "arena: %ld/%ld games, %.0f s\n", (long)atomic_load(&a->done), a->games, last - t0);
		}
	}
	for (int i = 0; i < a->threads; i++)
		pthread_join(th[i], NULL);
	return !a->failed;
}

/* Wins, draws, turns and points of every seat, added up in game order, into res. */
static void report_results(const struct arena *a, json_t *res)
{
	long wincount[GB_MAX_SEATS] = { 0 }, draws = 0;
	double turns = 0, ptsum[GB_MAX_SEATS] = { 0 };
	json_t *wins = json_array(), *pts = json_array(), *sl = json_array();

	for (long g = 0; g < a->games; g++) {
		if (a->winner_entry[g] >= 0)
			wincount[a->winner_entry[g]]++;
		draws += a->draw[g];
		turns += a->turns[g];
		for (int s = 0; s < a->nseats; s++)
			ptsum[s] += a->points[g][s];
	}
	for (int s = 0; s < a->nseats; s++) {
		json_array_append_new(sl, json_string(level_name(a, a->levels[s])));
		json_array_append_new(wins, json_integer(wincount[s]));
		json_array_append_new(pts, round4(ptsum[s] / 10.0 / (double)a->games));
	}
	json_object_set_new(res, "seats", sl);
	json_object_set_new(res, "wins", wins);
	json_object_set_new(res, "draws", json_integer(draws));
	json_object_set_new(res, "mean_turns", round4(turns / (double)a->games));
	if (!a->bids) {
		json_decref(pts);
		return;
	}
	{
		json_t *made = json_array();

		for (int s = 0; s < a->nseats; s++) {
			long bid = 0, ok = 0;

			for (long g = 0; g < a->games; g++) {
				bid += a->bids[g][0][s];
				ok += a->bids[g][1][s];
			}
			json_array_append_new(made, round4(bid ? (double)ok / (double)bid : 0.0));
		}
		json_object_set_new(res, "mean_points", pts);
		json_object_set_new(res, "bids_made", made); /* share of rounds where tricks >= bid */
	}
}

/* The decisions' times by level: median, 99th percentile and longest (ms). */
static json_t *report_times(struct arena *a)
{
	json_t *ms = json_object();

	for (int l = 0; l < ARENA_LEVELS; l++) {
		size_t n = a->ntimes[l];
		double *t = a->times[l];

		if (!n)
			continue;
		qsort(t, n, sizeof(double), cmp_double);
		json_object_set_new(ms, level_name(a, l),
				    json_pack("{s:o,s:o,s:o}", "p50", round4(t[n / 2]), "p99",
					      round4(t[(size_t)((double)(n - 1) * 0.99)]), "max", round4(t[n - 1])));
	}
	return ms;
}

/* The one JSON line of the summary on out. */
static void report(struct arena *a, double t0, FILE *out)
{
	json_t *res = json_object();
	char *s;

	json_object_set_new(res, "game", json_string(a->game->name));
	json_object_set_new(res, "games", json_integer(a->games));
	report_results(a, res);
	json_object_set_new(res, "ms_per_move", report_times(a));
	json_object_set_new(res, "seconds", round4(now_s() - t0));
	s = json_dumps(res, JSON_COMPACT | JSON_REAL_PRECISION(10));
	if (s) {
		fprintf(out, "%s\n", s);
		free(s);
	}
	json_decref(res);
}

static void arena_free(struct arena *a)
{
	free(a->winner_entry);
	free(a->draw);
	free(a->turns);
	free(a->points);
	free(a->bids);
	for (int l = 0; l < ARENA_LEVELS; l++)
		free(a->times[l]);
	pthread_mutex_destroy(&a->lock);
}

int arena_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct arena a;
	const char *seats = NULL;
	int status = 0;
	double t0 = now_s();

	memset(&a, 0, sizeof(a));
	a.games = 1000;
	a.seed = 1;
	a.threads = 1;
	pthread_mutex_init(&a.lock, NULL);
	if (argc < 2 || !(a.game = gb_game_find(argv[1]))) {
		if (argc >= 2)
			print_unknown_game(argv[1], err);
		fprintf(err, "usage: gamebot arena GAME --seats LEVEL,LEVEL[,...] [--games N] [--seed S] "
			     "[--rule KEY=VALUE]... [--threads T] [--budget N]\n");
		status = 2;
	} else if (parse_options(&a, argc, argv, &seats, err)) {
		status = 2;
	} else if (!seats || parse_seats(&a, seats, err)) {
		if (!seats)
			fprintf(err, "--seats is required\n");
		status = 2;
	} else if (check_seats(&a, err)) {
		status = 2;
	} else {
		a.rotate = !(a.game->flags & GB_FIXED_SIDES);
		if (!alloc_results(&a)) {
			fprintf(err, "out of memory\n");
			status = 1;
		} else if (!play_all(&a, t0, err)) {
			fprintf(err, "arena: a computer player or the rules failed\n");
			status = 1;
		} else {
			report(&a, t0, out);
		}
	}
	arena_free(&a);
	return status;
}
