/*
 * test_fuzz_bot.c - randomized end-to-end robustness of the bot layer.
 *
 * Drives bot_handle() and bot_run_timers() in-process on a real SQLite file
 * with seeded random command sequences, the way adapters would: several
 * chats on two platforms, 1-6 people per chat (some admins, some with odd
 * names and ids: Devanagari, emoji, combining marks, bytes that are not
 * UTF-8), verbs from the real command table and garbage (unknown verbs,
 * huge, empty, binary, UTF-8 and Devanagari arguments, wrong arity), all
 * four games, computer seats, /leave mid-game, /stop, settings valid and
 * not, language and speed changes, repeated deliveries, restarts (the
 * store closed and opened again), and timers fired at an advancing virtual
 * clock (computer turns, idle autoplay, Call Break's next round).
 *
 * The tests:
 *   random sessions     everything at once in four chats
 *   games to the end    people play legal moves from the stored state (with
 *                       noise, a /leave, autoplay, Nepali) until each game ends
 *   broken states       injected faults: saved states, chat settings and
 *                       language damaged behind the bot's back
 *   console lines       random lines through the console adapter
 *
 * After every command (and every timer batch) the invariants are checked:
 *   - bot_handle answers GB_OK, or GB_EDUP exactly for a repeated id (which
 *     then changes nothing and sends nothing); every command gets an answer;
 *     other codes, and the "went wrong" alert, only while a fault is injected
 *   - at most one open table per chat; a lobby has a person in it; a playing
 *     table's game is not over; no timer outlives its game
 *   - an open table's saved state is a JSON wrapper whose "game" loads with
 *     the game's from_json and passes check(); its "seq" is the move count;
 *     seats are numbered 0..n-1 within the game's player range, one seat a
 *     person; a damaged state is never overwritten except by a new game
 *   - every table's move log is 1..N contiguous and, replayed from the seed,
 *     gives exactly the saved state (checked when a table closes, every
 *     REPLAY_EVERY steps for open tables, and for all tables at the end)
 *   - every outbox payload is a JSON object with a known kind and non-empty
 *     text under 4,096 bytes; table messages under 2,000 code points;
 *     private replies and alerts name their user, and a private view goes
 *     only to a person seated at its table; every button is a command that
 *     parses, fits Telegram's 64-byte callback data and, for a move, is a
 *     legal action of the stored state
 *   - the coin ledger passes store_coins_audit(): every chat's accounts add
 *     up to 0, every movement is a pair of rows, grants come from the bank,
 *     only the pot of a table being played holds coins
 *   - at the end, the leaderboard holds exactly the finished games
 *   - nothing trips ASan or UBSan (run with SANITIZE=address,undefined)
 *
 * Deterministic: GAMEBOT_FUZZ_SEED (default 1) picks the sequences and
 * GAMEBOT_FUZZ_STEPS (default 900) the steps of the random sessions, so a
 * longer hunt is `GAMEBOT_FUZZ_SEED=7 GAMEBOT_FUZZ_STEPS=50000
 * build/tests/test_fuzz_bot`. A failure names the seed, the step and the
 * command (or timers) after which the invariant broke.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "adapters/console.h"
#include "bot/bot.h"
#include "bot/lang/i18n.h"
#include "games/ai/ai.h"
#include "games/game.h"
#include "tests/fixture.h"

#define MAX_CHATS 5
#define MAX_USERS 6
#define MAX_OPEN 16
#define REPLAY_EVERY 50
#define MAX_UPDATE_IDS 200000

static const char *const platforms[] = { "telegram", "discord" };
#define NPLATFORMS 2

struct user {
	char id[STORE_ID_LEN];
	char name[STORE_NAME_LEN];
	bool admin;
};

struct chat {
	int platform;                  /* index into platforms[] */
	char id[STORE_ID_LEN];
	struct user users[MAX_USERS];
	int nusers;
	bool broken;                   /* a fault was injected into its open table */
};

struct fuzz {
	char dir[64];
	char db[128];
	struct bot b;
	sqlite3 *ro;                   /* a second, read-only connection for the checks */
	uint64_t seed, rng;
	int64_t now;
	long step;
	char last[1200];               /* the last command, printable, for failure messages */
	struct chat chats[MAX_CHATS];
	int nchats;
	unsigned char *delivered[NPLATFORMS]; /* update ids already handled, per platform */
	long next_update;
	int64_t open[MAX_OPEN];        /* open tables at the last check */
	int nopen;
	int64_t broken_tables[64];     /* tables a fault was injected into */
	char *broken_states[64];       /* ... and the state text injected (owned) */
	int nbroken;
	bool expect_internal;          /* a "went wrong" alert is allowed now */
	bool scripted;                 /* say(): a fresh update id, so the command surely runs */
	bool no_stop;                  /* random_command(): never /stop (games must reach their end) */
	int64_t view_table;            /* the table whose state view_st holds (buttons are checked on it) */
	const struct gb_game *view_game;
	void *view_st;
	int internal_alerts;
	/* tallies for the summary */
	long commands, dups, refused_parse, timers_fired, payloads, replays, restarts, move_buttons;
	int max_table_cp, max_text_bytes, max_buttons;
};

/* ---- failure reports ---- */

static void failf(struct fuzz *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void failf(struct fuzz *f, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* the environment's seed reproduces it (each test derives its own from it) */
	fail_msg("GAMEBOT_FUZZ_SEED=%s, step %ld, after %s\n    %s",
		 getenv("GAMEBOT_FUZZ_SEED") ? getenv("GAMEBOT_FUZZ_SEED") : "1", f->step, f->last, msg);
}

#define CHECK(f, cond, ...)                  \
	do {                                 \
		if (!(cond))                 \
			failf(f, __VA_ARGS__); \
	} while (0)

/* s with bytes outside printable ASCII and UTF-8 as \xNN, cut to fit out. */
static void printable(const char *s, char *out, size_t n)
{
	size_t len = 0;

	for (; *s && len + 5 < n; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch >= 0x20 && ch != 0x7f)
			out[len++] = (char)ch;
		else
			len += (size_t)snprintf(out + len, n - len, "\\x%02x", ch);
	}
	out[len] = '\0';
}

/* ---- seeded randomness (splitmix64) ---- */

static uint64_t rnd(struct fuzz *f)
{
	uint64_t z = (f->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int below(struct fuzz *f, int n)
{
	return n > 0 ? (int)(rnd(f) % (uint64_t)n) : 0;
}

static bool chance(struct fuzz *f, int percent)
{
	return below(f, 100) < percent;
}

static const char *pick(struct fuzz *f, const char *const *list, size_t n)
{
	return list[below(f, (int)n)];
}

#define PICK(f, arr) pick(f, arr, sizeof(arr) / sizeof(arr[0]))

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return def;
	n = strtoull(v, &end, 10);
	return *end ? def : (uint64_t)n;
}

/* ---- fixture ---- */

static int setup(void **state)
{
	struct fuzz *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	if (FIXTURE_BOT_OPEN(f, "fuzz", 42))
		return -1;
	if (sqlite3_open_v2(f->db, &f->ro, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		return -1;
	for (int p = 0; p < NPLATFORMS; p++) {
		f->delivered[p] = calloc(MAX_UPDATE_IDS / 8 + 1, 1);
		if (!f->delivered[p])
			return -1;
	}
	f->now = INT64_C(1700000000000);
	f->next_update = 1000;
	snprintf(f->last, sizeof(f->last), "(start)");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fuzz *f = *state;
	int rc;

	sqlite3_close(f->ro);
	rc = FIXTURE_BOT_CLOSE(f, FIXTURE_AUDIT);
	free(f->view_st);
	for (int i = 0; i < f->nbroken; i++)
		free(f->broken_states[i]);
	for (int p = 0; p < NPLATFORMS; p++)
		free(f->delivered[p]);
	free(f);
	return rc;
}

static sqlite3_stmt *prep(struct fuzz *f, const char *sql)
{
	sqlite3_stmt *st = NULL;

	CHECK(f, sqlite3_prepare_v2(f->ro, sql, -1, &st, NULL) == SQLITE_OK, "prepare %s: %s", sql,
	      sqlite3_errmsg(f->ro));
	return st;
}

static const char *col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? (const char *)t : NULL;
}

static bool is_broken_table(struct fuzz *f, int64_t id)
{
	for (int i = 0; i < f->nbroken; i++)
		if (f->broken_tables[i] == id)
			return true;
	return false;
}

static const char *broken_state(struct fuzz *f, int64_t id)
{
	for (int i = 0; i < f->nbroken; i++)
		if (f->broken_tables[i] == id)
			return f->broken_states[i];
	return NULL;
}

/* ---- the outbox ---- */

static int code_points(const char *s)
{
	int n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static bool known_verb(const char *verb);

/*
 * A button must be a command someone can type: it parses, names a real
 * verb, and - on the table whose state is known - a move button is a legal
 * action of that state.
 */
static void check_button(struct fuzz *f, int64_t table, const char *cmd, const char *shown)
{
	struct command c;
	char text[CMD_ARGS_LEN + 32];
	struct gb_action act;

	memset(&c, 0, sizeof(c));
	CHECK(f, command_parse_text(&c, cmd) == GB_OK && known_verb(c.verb), "button %s is no command: %s", cmd,
	      shown);
	if (!f->view_st || table != f->view_table || !strcmp(c.verb, "hand") || !strcmp(c.verb, "join") ||
	    !strcmp(c.verb, "addbot") || !strcmp(c.verb, "start"))
		return;
	snprintf(text, sizeof(text), "%s %s", c.verb, c.args);
	CHECK(f, f->view_game->parse(f->view_st, text, &act) == GB_OK, "button %s unreadable: %s", cmd, shown);
	CHECK(f, gb_action_is_legal(f->view_game, f->view_st, &act), "button %s is not a legal move: %s", cmd,
	      shown);
	f->move_buttons++;
}

/* Is user a person seated at table? */
static bool seated(struct fuzz *f, int64_t table, const char *user);

static void check_payload(struct fuzz *f, const char *payload)
{
	json_error_t err;
	json_t *r = json_loads(payload, 0, &err), *buttons, *row, *btn;
	const char *kind, *text, *user, *lang;
	char shown[200];
	size_t i, j;
	int nbuttons = 0;

	printable(payload, shown, sizeof(shown));
	CHECK(f, json_is_object(r), "outbox payload is not a JSON object (%s): %s", err.text, shown);
	kind = json_string_value(json_object_get(r, "kind"));
	text = json_string_value(json_object_get(r, "text"));
	user = json_string_value(json_object_get(r, "user"));
	lang = json_string_value(json_object_get(r, "lang"));
	CHECK(f, kind && (!strcmp(kind, "table") || !strcmp(kind, "public") || !strcmp(kind, "private") ||
			  !strcmp(kind, "alert")),
	      "payload without a known kind: %s", shown);
	CHECK(f, text != NULL, "payload without text: %s", shown);
	CHECK(f, text[0] != '\0', "payload with empty text: %s", shown);
	CHECK(f, strlen(text) < 4096, "text of %zu bytes: %s", strlen(text), shown);
	CHECK(f, lang && (!strcmp(lang, "en") || !strcmp(lang, "ne")), "payload without lang: %s", shown);
	if (!strcmp(kind, "table")) {
		int cp = code_points(text);

		CHECK(f, cp < 2000, "table message of %d characters: %s", cp, shown);
		if (cp > f->max_table_cp)
			f->max_table_cp = cp;
	}
	if (!strcmp(kind, "private") || !strcmp(kind, "alert"))
		CHECK(f, user && user[0], "%s reply for nobody: %s", kind, shown);
	/* a private view (a hand) goes only to a person at that table; a finished table's move log to anyone */
	if (!strcmp(kind, "private") && !json_object_get(r, "movelog"))
		CHECK(f, json_is_integer(json_object_get(r, "table")) &&
			 seated(f, json_integer_value(json_object_get(r, "table")), user),
		      "a private view for someone not at the table: %s", shown);
	if ((int)strlen(text) > f->max_text_bytes)
		f->max_text_bytes = (int)strlen(text);
	if (!strcmp(text, tr(LANG_EN, M_INTERNAL)) || !strcmp(text, tr(LANG_NE, M_INTERNAL))) {
		CHECK(f, f->expect_internal, "an internal error was reported: %s", shown);
		f->internal_alerts++;
	}
	buttons = json_object_get(r, "buttons");
	CHECK(f, !buttons || json_is_array(buttons), "buttons not an array: %s", shown);
	json_array_foreach(buttons, i, row) {
		CHECK(f, json_is_array(row), "button row not an array: %s", shown);
		json_array_foreach(row, j, btn) {
			const char *label = json_string_value(json_object_get(btn, "label"));
			const char *cmd = json_string_value(json_object_get(btn, "cmd"));

			CHECK(f, label && label[0], "button without a label: %s", shown);
			CHECK(f, cmd && cmd[0] == '/' && strlen(cmd) <= 64, "bad button command: %s", shown);
			check_button(f, json_integer_value(json_object_get(r, "table")), cmd, shown);
			nbuttons++;
		}
	}
	if (nbuttons > f->max_buttons)
		f->max_buttons = nbuttons;
	f->payloads++;
	json_decref(r);
}

static bool seated(struct fuzz *f, int64_t table, const char *user)
{
	sqlite3_stmt *q = prep(f, "SELECT 1 FROM seats WHERE table_id = ? AND user_id = ? AND level < 0");
	bool yes;

	sqlite3_bind_int64(q, 1, table);
	sqlite3_bind_text(q, 2, user, -1, SQLITE_TRANSIENT);
	yes = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return yes;
}

/* Check and retire everything queued; returns how many there were. */
static int drain(struct fuzz *f)
{
	struct store_out rows[64];
	int n = 0, total = 0;

	for (int p = 0; p < NPLATFORMS; p++) {
		do {
			CHECK(f, store_out_due(f->b.store, platforms[p], INT64_MAX, rows, 64, &n) == GB_OK,
			      "store_out_due failed");
			for (int i = 0; i < n; i++) {
				check_payload(f, rows[i].payload);
				CHECK(f, store_out_done(f->b.store, rows[i].id) == GB_OK, "store_out_done");
				store_out_release(&rows[i]);
				total++;
			}
		} while (n == 64);
	}
	return total;
}

/* ---- the store ---- */

struct seatrow {
	char user[STORE_ID_LEN];
	int level;
};

/* Replay table id's move log from its seed; the result must be its saved game. */
static void check_replay(struct fuzz *f, int64_t id, const struct gb_game *g, uint64_t seed,
			 const char *rules_text, int nseats, const json_t *saved)
{
	struct gb_setup su;
	json_error_t err;
	json_t *rules = json_loads(rules_text ? rules_text : "{}", 0, &err), *replayed;
	void *st = calloc(1, g->state_size);
	sqlite3_stmt *q;
	int n = 0;

	CHECK(f, st && rules, "table %lld: rules unreadable", (long long)id);
	gb_setup_init(&su, g);
	su.players = nseats;
	su.seed = seed;
	su.dealer = (int)(seed % 4);
	CHECK(f, gb_rules_from_json(g, &su.rules, rules) == GB_OK, "table %lld: rules", (long long)id);
	CHECK(f, g->init(st, &su) == GB_OK, "table %lld: init for replay", (long long)id);
	q = prep(f, "SELECT seq, action FROM moves WHERE table_id = ? ORDER BY seq");
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct gb_action act;
		const char *text = col_text(q, 1);

		n++;
		CHECK(f, g->parse(st, text ? text : "", &act) == GB_OK, "table %lld move %d '%s' unreadable",
		      (long long)id, n, text ? text : "");
		CHECK(f, g->apply(st, &act, NULL) == GB_OK, "table %lld move %d '%s' does not replay",
		      (long long)id, n, text);
		CHECK(f, g->check(st) == GB_OK, "table %lld move %d breaks the game", (long long)id, n);
	}
	sqlite3_finalize(q);
	replayed = gb_state_json(g, st);
	CHECK(f, json_equal(replayed, saved), "table %lld: the log (%d moves) does not replay to the state",
	      (long long)id, n);
	json_decref(replayed);
	json_decref(rules);
	free(st);
	f->replays++;
}

/* Everything that must hold of one table; replay too when full. */
static void check_table(struct fuzz *f, int64_t id, bool full)
{
	sqlite3_stmt *q = prep(f, "SELECT game, status, seed, rules, state FROM tables WHERE id = ?");
	struct seatrow seats[GB_MAX_SEATS + 4];
	const struct gb_game *g;
	int status, nseats = 0, count, minseq, maxseq, humans = 0, sat = 0, free_seat = -1;
	uint64_t seed;
	char *rules = NULL, *state = NULL;
	bool broken = is_broken_table(f, id);

	sqlite3_bind_int64(q, 1, id);
	CHECK(f, sqlite3_step(q) == SQLITE_ROW, "table %lld vanished", (long long)id);
	g = gb_game_find(col_text(q, 0));
	status = sqlite3_column_int(q, 1);
	seed = (uint64_t)sqlite3_column_int64(q, 2);
	if (col_text(q, 3))
		rules = strdup(col_text(q, 3));
	if (col_text(q, 4))
		state = strdup(col_text(q, 4));
	sqlite3_finalize(q);
	CHECK(f, g != NULL, "table %lld of an unknown game", (long long)id);

	/* seats: 0..n-1, people named and distinct, computers at a real level */
	q = prep(f, "SELECT seat, user_id, level FROM seats WHERE table_id = ? ORDER BY seat");
	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		CHECK(f, nseats < GB_MAX_SEATS + 4, "table %lld: too many seat rows", (long long)id);
		CHECK(f, sqlite3_column_int(q, 0) == nseats, "table %lld: seat %d numbered %d", (long long)id,
		      nseats, sqlite3_column_int(q, 0));
		snprintf(seats[nseats].user, sizeof(seats[0].user), "%s", col_text(q, 1) ? col_text(q, 1) : "");
		seats[nseats].level = sqlite3_column_int(q, 2);
		if (seats[nseats].level < 0 && !seats[nseats].user[0]) {
			/* a free seat: in the lobby (or a lobby stopped) only, before a seat taken */
			CHECK(f, status != STORE_PLAYING, "table %lld: a person without an id", (long long)id);
			free_seat = nseats;
		} else if (seats[nseats].level < 0) {
			for (int k = 0; k < nseats; k++)
				CHECK(f, strcmp(seats[k].user, seats[nseats].user) != 0,
				      "table %lld: one person in two seats", (long long)id);
			humans++;
		} else {
			/* a computer seat keeps the id of a person who left, past the lobby only */
			CHECK(f, seats[nseats].level < GB_LEVEL_COUNT && (!seats[nseats].user[0] || status != STORE_LOBBY),
			      "table %lld: computer seat %d level %d", (long long)id, nseats, seats[nseats].level);
			sat += seats[nseats].user[0] != '\0';
		}
		nseats++;
	}
	sqlite3_finalize(q);
	CHECK(f, free_seat < 0 || free_seat < nseats - 1, "table %lld: the last seat is free", (long long)id);
	CHECK(f, nseats <= g->max_players, "table %lld: %d seats at %s", (long long)id, nseats, g->name);
	if (status == STORE_LOBBY)
		CHECK(f, humans >= 1, "table %lld: a lobby with nobody in it stays open", (long long)id);
	if (status == STORE_PLAYING)
		CHECK(f, nseats >= g->min_players, "table %lld: playing with %d seats", (long long)id, nseats);
	/* people played here and all have left: the table stops, it does not play on alone */
	if (status == STORE_PLAYING && sat)
		CHECK(f, humans >= 1, "table %lld: playing on after every person left", (long long)id);

	/* the move log: 1..N */
	q = prep(f, "SELECT count(*), coalesce(min(seq), 1), coalesce(max(seq), 0) FROM moves WHERE table_id = ?");
	sqlite3_bind_int64(q, 1, id);
	CHECK(f, sqlite3_step(q) == SQLITE_ROW, "move count");
	count = sqlite3_column_int(q, 0);
	minseq = sqlite3_column_int(q, 1);
	maxseq = sqlite3_column_int(q, 2);
	sqlite3_finalize(q);
	CHECK(f, minseq == 1 && maxseq == count, "table %lld: move log %d rows, seq %d..%d", (long long)id,
	      count, minseq, maxseq);
	if (status == STORE_LOBBY)
		CHECK(f, count == 0, "table %lld: moves logged in the lobby", (long long)id);

	/*
	 * A state injected as damage stays exactly as it was, unless a game
	 * started afresh replaced it with one that reads.
	 */
	if (broken && broken_state(f, id) && (!state || strcmp(state, broken_state(f, id)))) {
		json_error_t err;
		json_t *w = state ? json_loads(state, 0, &err) : NULL;
		void *st = calloc(1, g->state_size);

		CHECK(f, st && json_object_get(w, "game") &&
			 g->from_json(st, json_object_get(w, "game")) == GB_OK && g->check(st) == GB_OK,
		      "table %lld: a damaged state was overwritten by one that does not read either", (long long)id);
		free(st);
		json_decref(w);
	}
	/* the saved state */
	if (!broken) {
		json_error_t err;
		json_t *w = state ? json_loads(state, 0, &err) : NULL, *gj;

		CHECK(f, status == STORE_LOBBY || state, "table %lld: no saved state", (long long)id);
		CHECK(f, !state || json_is_object(w), "table %lld: state is not a JSON object", (long long)id);
		gj = json_object_get(w, "game");
		CHECK(f, status != STORE_PLAYING || gj, "table %lld: playing without a game", (long long)id);
		if (w)
			CHECK(f, json_integer_value(json_object_get(w, "seq")) == count,
			      "table %lld: state seq %lld, %d moves logged", (long long)id,
			      (long long)json_integer_value(json_object_get(w, "seq")), count);
		if (gj) {
			void *st = calloc(1, g->state_size);
			struct gb_outcome oc;
			int turn;

			CHECK(f, st && g->from_json(st, gj) == GB_OK, "table %lld: from_json refuses the state",
			      (long long)id);
			CHECK(f, g->check(st) == GB_OK, "table %lld: the saved state breaks the game", (long long)id);
			g->outcome(st, &oc);
			turn = g->turn(st);
			if (status == STORE_PLAYING) {
				CHECK(f, !oc.over, "table %lld: game over but the table still plays", (long long)id);
				CHECK(f, turn < nseats, "table %lld: turn %d of %d seats", (long long)id, turn, nseats);
			}
			free(st);
			if (full)
				check_replay(f, id, g, seed, rules, nseats, gj);
		}
		json_decref(w);
	}
	free(rules);
	free(state);
}

/*
 * The store-wide invariants; tables that closed since the last check get
 * the full check (with replay), and so do open ones when replay is set.
 */
static void check_store(struct fuzz *f, bool replay)
{
	sqlite3_stmt *q;
	int64_t open[MAX_OPEN];
	int nopen = 0;

	q = prep(f, "SELECT chat_id, count(*) FROM tables WHERE status < 2 GROUP BY chat_id HAVING count(*) > 1");
	CHECK(f, sqlite3_step(q) == SQLITE_DONE, "chat %lld has %d open tables",
	      (long long)sqlite3_column_int64(q, 0), sqlite3_column_int(q, 1));
	sqlite3_finalize(q);
	q = prep(f, "SELECT count(*) FROM timers JOIN tables ON tables.id = timers.table_id WHERE status != 1");
	CHECK(f, sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 0,
	      "%d timers of tables not playing", sqlite3_column_int(q, 0));
	sqlite3_finalize(q);
	q = prep(f, "SELECT count(*) FROM timers WHERE kind NOT IN ('bot', 'idle', 'next')");
	CHECK(f, sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 0, "timers of unknown kinds");
	sqlite3_finalize(q);

	q = prep(f, "SELECT id FROM tables WHERE status < 2 ORDER BY id");
	while (sqlite3_step(q) == SQLITE_ROW) {
		CHECK(f, nopen < MAX_OPEN, "more open tables than chats");
		open[nopen++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_finalize(q);
	for (int i = 0; i < nopen; i++)
		check_table(f, open[i], replay);
	for (int i = 0; i < f->nopen; i++) {
		bool still = false;

		for (int k = 0; k < nopen; k++)
			still = still || open[k] == f->open[i];
		if (!still)
			check_table(f, f->open[i], true);
	}
	memcpy(f->open, open, sizeof(open));
	f->nopen = nopen;
	{
		/* coins: every chat's total 0, every movement a pair, pots only while playing */
		char why[256];

		CHECK(f, store_coins_audit(f->b.store, 0, why, sizeof(why)) == GB_OK, "ledger: %s", why);
	}
}

/* One leaderboard row as the finished games say it should be. */
struct tally {
	int64_t chat;
	char user[STORE_ID_LEN];
	char game[16];
	int games, wins;
};

/* Count a finished game of table id (chat, game g) for its people into t[]. */
static void tally_game(struct fuzz *f, int64_t id, int64_t chat, const struct gb_game *g,
		       const struct gb_outcome *oc, struct tally *t, int *nt, int max)
{
	/* every person who sat, those who left included (a game each, never a win) */
	sqlite3_stmt *q = prep(f, "SELECT seat, user_id, level FROM seats WHERE table_id = ? AND user_id <> ''");

	sqlite3_bind_int64(q, 1, id);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *user = col_text(q, 1);
		int seat = sqlite3_column_int(q, 0), k;

		for (k = 0; k < *nt; k++)
			if (t[k].chat == chat && !strcmp(t[k].user, user) && !strcmp(t[k].game, g->name))
				break;
		if (k == *nt) {
			CHECK(f, *nt < max, "too many leaderboard rows to follow");
			memset(&t[k], 0, sizeof(t[k]));
			t[k].chat = chat;
			snprintf(t[k].user, sizeof(t[k].user), "%s", user);
			snprintf(t[k].game, sizeof(t[k].game), "%s", g->name);
			(*nt)++;
		}
		t[k].games++;
		t[k].wins += sqlite3_column_int(q, 2) < 0 && !oc->draw && oc->winner == seat;
	}
	sqlite3_finalize(q);
}

/* Every table ever opened: full checks, and how many games reached their end. */
static int check_all_tables(struct fuzz *f)
{
	sqlite3_stmt *q = prep(f, "SELECT id, game, state, chat_id FROM tables ORDER BY id");
	int finished = 0, nt = 0, rows = 0;
	int64_t ids[4096];
	int n = 0;
	static struct tally t[2048];

	while (sqlite3_step(q) == SQLITE_ROW) {
		const struct gb_game *g = gb_game_find(col_text(q, 1));
		json_error_t err;
		json_t *w = col_text(q, 2) ? json_loads(col_text(q, 2), 0, &err) : NULL;

		if (n < 4096)
			ids[n++] = sqlite3_column_int64(q, 0);
		if (g && json_object_get(w, "game") && !is_broken_table(f, sqlite3_column_int64(q, 0))) {
			void *st = calloc(1, g->state_size);
			struct gb_outcome oc = { 0 };

			if (st && g->from_json(st, json_object_get(w, "game")) == GB_OK)
				g->outcome(st, &oc);
			finished += oc.over;
			if (oc.over)
				tally_game(f, sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 3), g, &oc, t, &nt,
					   (int)(sizeof(t) / sizeof(t[0])));
			free(st);
		}
		json_decref(w);
	}
	sqlite3_finalize(q);
	for (int i = 0; i < n; i++)
		check_table(f, ids[i], true);
	/* the leaderboard holds every finished game of every person, nothing else */
	q = prep(f, "SELECT chat_id, user_id, game, games, wins FROM stats");
	while (sqlite3_step(q) == SQLITE_ROW) {
		int k;

		for (k = 0; k < nt; k++)
			if (t[k].chat == sqlite3_column_int64(q, 0) && !strcmp(t[k].user, col_text(q, 1)) &&
			    !strcmp(t[k].game, col_text(q, 2)))
				break;
		CHECK(f, k < nt, "a leaderboard row for %s without a finished game", col_text(q, 1));
		CHECK(f, t[k].games == sqlite3_column_int(q, 3) && t[k].wins == sqlite3_column_int(q, 4),
		      "leaderboard of %s at %s: %d games %d wins, finished games say %d and %d", col_text(q, 1),
		      t[k].game, sqlite3_column_int(q, 3), sqlite3_column_int(q, 4), t[k].games, t[k].wins);
		rows++;
	}
	sqlite3_finalize(q);
	CHECK(f, rows == nt, "%d leaderboard rows for %d people with finished games", rows, nt);
	return finished;
}

/* ---- commands ---- */

static int chat_store_id(struct fuzz *f, const struct chat *ch, int64_t *id)
{
	sqlite3_stmt *q = prep(f, "SELECT id FROM chats WHERE platform = ? AND chat = ?");
	int found;

	sqlite3_bind_text(q, 1, platforms[ch->platform], -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(q, 2, ch->id, -1, SQLITE_TRANSIENT);
	found = sqlite3_step(q) == SQLITE_ROW;
	if (found)
		*id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return found;
}

/* The chat's open table, or 0. */
static int64_t open_table_of(struct fuzz *f, const struct chat *ch)
{
	int64_t chat, id = 0;
	sqlite3_stmt *q;

	if (!chat_store_id(f, ch, &chat))
		return 0;
	q = prep(f, "SELECT id FROM tables WHERE chat_id = ? AND status < 2");
	sqlite3_bind_int64(q, 1, chat);
	if (sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return id;
}

static int64_t table_version(struct fuzz *f, int64_t id)
{
	sqlite3_stmt *q = prep(f, "SELECT version FROM tables WHERE id = ?");
	int64_t v = -1;

	sqlite3_bind_int64(q, 1, id);
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

static bool was_delivered(struct fuzz *f, int platform, long id)
{
	return id < MAX_UPDATE_IDS && (f->delivered[platform][id / 8] >> (id % 8) & 1);
}

static void mark_delivered(struct fuzz *f, int platform, long id)
{
	if (id < MAX_UPDATE_IDS)
		f->delivered[platform][id / 8] |= (unsigned char)(1u << (id % 8));
}

/* Load ch's open game (if playing and intact) so drain() can check its buttons. */
static void load_view(struct fuzz *f, const struct chat *ch)
{
	int64_t table = ch->broken ? 0 : open_table_of(f, ch);
	sqlite3_stmt *q;

	f->view_table = 0;
	if (!table)
		return;
	q = prep(f, "SELECT game, state FROM tables WHERE id = ? AND status = 1");
	sqlite3_bind_int64(q, 1, table);
	if (sqlite3_step(q) == SQLITE_ROW && col_text(q, 1)) {
		json_error_t err;
		json_t *w = json_loads(col_text(q, 1), 0, &err);

		f->view_game = gb_game_find(col_text(q, 0));
		free(f->view_st);
		f->view_st = f->view_game ? calloc(1, f->view_game->state_size) : NULL;
		if (f->view_st && f->view_game->from_json(f->view_st, json_object_get(w, "game")) == GB_OK)
			f->view_table = table;
		json_decref(w);
	}
	sqlite3_finalize(q);
}

/* May this verb answer GB_ESTATE while the chat's table is broken? */
static bool needs_game(const char *verb)
{
	static const char *const v[] = { "roll", "move", "place", "bid", "play", "next", "hand" };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!strcmp(v[i], verb))
			return true;
	return false;
}

/*
 * Deliver one command as an adapter would and check everything after it.
 * via_text: the line goes through command_parse_text() (what is not a
 * command is dropped, as adapters drop ordinary chat); otherwise verb and
 * args are written into the struct as they are, cut to the fields (an
 * adapter that fills them from platform JSON). Update ids: mostly fresh,
 * sometimes none, sometimes one already delivered (must be GB_EDUP and
 * change nothing) or one delivered on the other platform (must not).
 */
static void say(struct fuzz *f, struct chat *ch, const struct user *u, const char *verb, const char *args,
		bool via_text)
{
	struct command cmd;
	char line[CMD_ARGS_LEN * 2 + 64], shown[400], who[300], verbshown[120];
	long upd = -1;
	bool dup = false;
	int rc, sent, roll = below(f, 100);
	int64_t table = open_table_of(f, ch), version = table ? table_version(f, table) : 0;

	memset(&cmd, 0, sizeof(cmd));
	if (via_text) {
		snprintf(line, sizeof(line), "/%s%s%s", verb, args[0] ? " " : "", args);
		if (command_parse_text(&cmd, line) != GB_OK) {
			f->refused_parse++;
			return;
		}
	} else {
		snprintf(cmd.verb, sizeof(cmd.verb), "%s", verb);
		snprintf(cmd.args, sizeof(cmd.args), "%s", args);
	}
	snprintf(cmd.platform, sizeof(cmd.platform), "%s", platforms[ch->platform]);
	snprintf(cmd.chat, sizeof(cmd.chat), "%s", ch->id);
	snprintf(cmd.user, sizeof(cmd.user), "%s", u->id);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "%s", u->name);
	cmd.is_admin = u->admin;
	f->now += below(f, 4000);
	cmd.now_ms = f->now;
	if (roll < 70 || f->scripted) {
		upd = f->next_update++;
	} else if (roll < 76 && f->next_update > 1000) {
		/* a repeated delivery of something this platform already had */
		for (int tries = 0; tries < 20 && !dup; tries++) {
			upd = 1000 + below(f, (int)(f->next_update - 1000));
			dup = was_delivered(f, ch->platform, upd);
		}
		if (!dup)
			upd = f->next_update++;
	} else if (roll < 79 && f->next_update > 1000) {
		/* the other platform's id: a different update altogether */
		upd = 1000 + below(f, (int)(f->next_update - 1000));
		if (was_delivered(f, ch->platform, upd))
			upd = f->next_update++;
	}
	if (upd >= 0)
		snprintf(cmd.update_id, sizeof(cmd.update_id), "%ld", upd);
	printable(cmd.args, shown, sizeof(shown));
	printable(u->name, who, sizeof(who));
	printable(cmd.verb, verbshown, sizeof(verbshown));
	snprintf(f->last, sizeof(f->last), "%s/%s %s (%s%s): /%s %s [update %s]", platforms[ch->platform],
		 ch->id, u->id, who, u->admin ? ", admin" : "", verbshown, shown,
		 cmd.update_id[0] ? cmd.update_id : "-");
	f->expect_internal = ch->broken;
	rc = bot_handle(&f->b, &cmd);
	f->commands++;
	if (dup) {
		CHECK(f, rc == GB_EDUP, "a repeated delivery answered %d (%s)", rc, gb_strerror(rc));
		f->dups++;
	} else if (ch->broken && rc == GB_ESTATE) {
		CHECK(f, needs_game(cmd.verb), "/%s refused for a broken state: it needs no game", cmd.verb);
	} else {
		CHECK(f, rc == GB_OK, "bot_handle answered %d (%s)", rc, gb_strerror(rc));
	}
	if (rc == GB_OK && upd >= 0)
		mark_delivered(f, ch->platform, upd);
	load_view(f, ch);
	sent = drain(f);
	f->view_table = 0;
	if (dup) {
		CHECK(f, sent == 0, "a repeated delivery sent %d messages", sent);
		CHECK(f, !table || table_version(f, table) == version, "a repeated delivery changed the table");
	} else {
		CHECK(f, sent >= 1, "no answer at all (rc %d)", rc);
	}
	f->expect_internal = false;
	f->step++;
	check_store(f, f->step % REPLAY_EVERY == 0);
}

/* A command that must run as written (no repeated or missing update id). */
static void tell(struct fuzz *f, struct chat *ch, const struct user *u, const char *verb, const char *args)
{
	f->scripted = true;
	say(f, ch, u, verb, args, true);
	f->scripted = false;
}

/* Fire what is due at the virtual clock, checking after every batch. */
static void run_timers(struct fuzz *f)
{
	int fired = 1;

	for (int guard = 0; fired > 0; guard++) {
		CHECK(f, guard < 200, "timers keep firing at one instant");
		f->expect_internal = false;
		for (int i = 0; i < f->nchats; i++)
			f->expect_internal = f->expect_internal || f->chats[i].broken;
		{
			/* name what is about to fire, for a failure message */
			struct store_timer due[16];
			int n = 0, len;

			store_timer_due(f->b.store, f->now, due, 16, &n);
			len = snprintf(f->last, sizeof(f->last), "timers at +%lld ms:",
				       (long long)(f->now - INT64_C(1700000000000)));
			for (int i = 0; i < n && len < (int)sizeof(f->last) - 40; i++)
				len += snprintf(f->last + len, sizeof(f->last) - (size_t)len, " %s@%lld(v%lld)",
						due[i].kind, (long long)due[i].table, (long long)due[i].version);
		}
		fired = bot_run_timers(&f->b, f->now, BOT_TIMER_ALL);
		CHECK(f, fired >= 0, "bot_run_timers answered %d", fired);
		f->timers_fired += fired;
		drain(f);
		f->expect_internal = false;
		check_store(f, false);
	}
}

/* Jump the clock to each due timer in turn (like the console), up to max firings. */
static void settle(struct fuzz *f, int max)
{
	for (int i = 0; i < max; i++) {
		struct store_timer t;

		if (store_timer_next(f->b.store, &t) != GB_OK)
			return;
		if (t.due_ms > f->now)
			f->now = t.due_ms;
		run_timers(f);
	}
}

/* ---- what people type ---- */

static const char *const games_typed[] = {
	"snakes", "ludo", "baghchal", "callbreak", "snake", "bagh", "call-break", "LUDO", "bagh-chal",
	"chess", "", "snakesandladders", "लुडो", "call",
};

static const char *const levels_typed[] = { "", "easy", "medium", "hard", "random", "HARD", "expert",
					    "-1", "मध्यम" };

static const char *const odd_texts[] = {
	"%s%s%s%n%x%p",
	"   \t  ",
	"a\nb",
	"\r\n",
	"<b>bold</b> &amp; \"quotes\"",
	"👍🏽👨‍👩‍👧‍👦🇳🇵",
	"a\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81",
	"\xe2\x80\xae\xe2\x80\x8bright-to-left\xe2\x80\x8d",
	"हुकुमको एक्का",
	"१०",
	"३",
	"०",
	"९९९९९९९९९९९९९९९९९९९९",
	"99999999999999999999",
	"-1",
	"0x10",
	"1e9",
	"a b c d e f g h i j k l m n o p",
	"\xff\xfe\xfd",
	"\xe0\xa4",
	"\xc0\x80",
	"\xed\xa0\x80",
	"null",
	"{\"json\": true}",
	"'; DROP TABLE tables; --",
};

/* Random argument text in buf: garbage of every kind. */
static void garbage(struct fuzz *f, char *buf, size_t n)
{
	int kind = below(f, 7);
	size_t len = 0;

	buf[0] = '\0';
	switch (kind) {
	case 0:
		break;
	case 1: /* huge ASCII */
		len = (size_t)(CMD_ARGS_LEN - 8 + below(f, 300));
		len = len < n ? len : n - 1;
		memset(buf, 'x', len);
		buf[len] = '\0';
		break;
	case 2: /* huge Devanagari, cut anywhere by the field */
		while (len < (size_t)(CMD_ARGS_LEN + 100)) {
			static const char *const w[] = { "हुकुमको", "एक्का", " ", "१०", "पान", "ि", "्" };
			const char *s = w[below(f, 7)];

			if (len + strlen(s) >= n)
				break;
			memcpy(buf + len, s, strlen(s));
			len += strlen(s);
		}
		buf[len] = '\0';
		break;
	case 3: /* binary */
		len = (size_t)(1 + below(f, 300));
		len = len < n ? len : n - 1;
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)(1 + below(f, 255));
		buf[len] = '\0';
		break;
	default:
		snprintf(buf, n, "%s", PICK(f, odd_texts));
		break;
	}
}

static void point(struct fuzz *f, char *buf, size_t n)
{
	snprintf(buf, n, "%c%d", 'a' + below(f, 6), below(f, 7));
}

static void card(struct fuzz *f, char *buf, size_t n)
{
	static const char *const ranks[] = { "2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "J", "Q", "K", "A", "1" };
	static const char *const suits[] = { "S", "H", "D", "C", "s", "X", "♠", "♥" };
	static const char *const ne[] = { "हुकुमको एक्का", "बेगम पान", "इट्टाको १०", "चिडी दुक्की",
					  "पान ११", "हुकुम" };

	if (chance(f, 15))
		snprintf(buf, n, "%s", PICK(f, ne));
	else
		snprintf(buf, n, "%s%s", PICK(f, ranks), PICK(f, suits));
}

/* A /settings argument line: views, chat keys, game rules; valid and not. */
static void settings_args(struct fuzz *f, char *buf, size_t n)
{
	static const char *const chat_keys[] = { "autoplay_after", "speed", "digits", "lang", "colour", "starting_coins" };
	static const char *const chat_values[] = { "off", "0", "10", "45s", "3600", "5", "9", "3601", "abc",
						   "१०", "३०s", "slow", "fast", "normal", "ascii", "devanagari",
						   "-5", "s", "" };
	const struct gb_game *g = gb_games[below(f, 4)];
	int k;

	switch (below(f, 6)) {
	case 0:
		buf[0] = '\0';
		break;
	case 1:
		snprintf(buf, n, "%s", g->name);
		break;
	case 2:
		snprintf(buf, n, "%s %s", PICK(f, chat_keys), PICK(f, chat_values));
		break;
	case 3: /* a real rule, a real or a wrong value */
		k = below(f, g->nrules ? g->nrules : 1);
		if (!g->nrules) {
			snprintf(buf, n, "%s six_bonus off", g->name);
			break;
		}
		if (chance(f, 70)) {
			int nv = 0;

			while (g->rules[k].values[nv])
				nv++;
			snprintf(buf, n, "%s %s %s", g->name, g->rules[k].key, g->rules[k].values[below(f, nv)]);
		} else {
			snprintf(buf, n, "%s %s %s", g->name, g->rules[k].key, PICK(f, chat_values));
		}
		break;
	case 4:
		snprintf(buf, n, "%s %s", g->name, g->nrules ? g->rules[0].key : "x");
		break;
	default: {
		char junk[64];

		garbage(f, junk, sizeof(junk));
		snprintf(buf, n, "%s %s", chance(f, 50) ? g->name : "autoplay_after", junk);
		break;
	}
	}
}

static const char *const all_verbs[] = {
	"new", "join", "leave", "addbot", "start", "stop", "watch", "roll", "move", "place", "bid", "play",
	"next", "board", "hand", "settings", "speed", "lang", "rules", "help", "stats",
	"wallet", "top", "grant", "stake", "verify",
};

static bool known_verb(const char *verb)
{
	for (size_t i = 0; i < sizeof(all_verbs) / sizeof(all_verbs[0]); i++)
		if (!strcmp(all_verbs[i], verb))
			return true;
	return false;
}

static const char *const junk_verbs[] = {
	"teleport", "_timer", "", "averyveryverylongcommandname", "NEW", "new@gamebot", "r0ll",
	"\xff\xfe", "नयाँ", "timer", "start ", "x",
};

/* One random command in ch by a random person. */
static void random_command(struct fuzz *f, struct chat *ch)
{
	const struct user *u = &ch->users[below(f, ch->nusers)];
	char args[CMD_ARGS_LEN + 400] = "";
	const char *verb;
	bool via_text = chance(f, 75);
	int roll = below(f, 100);

	if (roll < 8) {
		verb = PICK(f, junk_verbs);
		garbage(f, args, sizeof(args));
		via_text = chance(f, 50);
	} else {
		verb = PICK(f, all_verbs);
		if (f->no_stop && !strcmp(verb, "stop"))
			verb = "board";
		if (roll < 20) {
			garbage(f, args, sizeof(args));
		} else if (!strcmp(verb, "new") || !strcmp(verb, "watch") || !strcmp(verb, "rules") ||
			   !strcmp(verb, "stats")) {
			/* watch less often: all-computer games are long */
			if (!strcmp(verb, "watch") && chance(f, 70))
				verb = "new";
			snprintf(args, sizeof(args), "%s", PICK(f, games_typed));
		} else if (!strcmp(verb, "addbot")) {
			snprintf(args, sizeof(args), "%s", PICK(f, levels_typed));
		} else if (!strcmp(verb, "move")) {
			if (chance(f, 50)) {
				snprintf(args, sizeof(args), "%d", below(f, 6));
			} else {
				char a[8], b[8];

				point(f, a, sizeof(a));
				point(f, b, sizeof(b));
				snprintf(args, sizeof(args), "%s %s", a, b);
			}
		} else if (!strcmp(verb, "place")) {
			point(f, args, sizeof(args));
		} else if (!strcmp(verb, "bid")) {
			if (chance(f, 20))
				snprintf(args, sizeof(args), "३");
			else
				snprintf(args, sizeof(args), "%d", below(f, 10));
		} else if (!strcmp(verb, "play")) {
			card(f, args, sizeof(args));
		} else if (!strcmp(verb, "settings")) {
			settings_args(f, args, sizeof(args));
		} else if (!strcmp(verb, "stake")) {
			static const char *const s[] = { "0", "10", "100", "999", "1000", "5000", "-5", "१००", "x" };

			snprintf(args, sizeof(args), "%s", PICK(f, s));
		} else if (!strcmp(verb, "grant")) {
			static const char *const s[] = { "1", "50", "1000000", "0", "-1", "२०" };
			const struct user *to = &ch->users[below(f, ch->nusers)];

			snprintf(args, sizeof(args), "%s%s %s", chance(f, 50) ? "@" : "", to->name, PICK(f, s));
		} else if (!strcmp(verb, "verify")) {
			static const char *const s[] = { "", "log", "1", "2", "3 log", "लग", "999" };

			snprintf(args, sizeof(args), "%s", PICK(f, s));
		} else if (!strcmp(verb, "speed")) {
			static const char *const s[] = { "slow", "normal", "fast", "ludicrous", "" };

			snprintf(args, sizeof(args), "%s", PICK(f, s));
		} else if (!strcmp(verb, "lang")) {
			static const char *const s[] = { "en", "ne", "ne", "xx", "NE", "नेपाली" };

			snprintf(args, sizeof(args), "%s", PICK(f, s));
		} else if (chance(f, 5)) {
			snprintf(args, sizeof(args), "extra words");
		}
	}
	say(f, ch, u, verb, args, via_text);
}

/* ---- legal moves from the stored state ---- */

/*
 * Play one legal action of ch's open game as the person whose turn it is
 * (anyone seated between Call Break rounds). Returns false when there is
 * nothing for a person to do (a lobby, a computer's turn, no table).
 */
static bool legal_command(struct fuzz *f, struct chat *ch)
{
	int64_t table = open_table_of(f, ch);
	sqlite3_stmt *q;
	const struct gb_game *g = NULL;
	char *state = NULL, text[GB_ACTION_TEXT], verb[GB_ACTION_TEXT], *sp;
	struct seatrow seats[GB_MAX_SEATS];
	char names[GB_MAX_SEATS][STORE_NAME_LEN];
	int nseats = 0, status = -1, turn, n, who = -1;
	struct gb_action acts[GB_MAX_LEGAL];
	json_error_t err;
	json_t *w;
	void *st;
	struct user u;

	if (!table || ch->broken)
		return false;
	q = prep(f, "SELECT game, status, state FROM tables WHERE id = ?");
	sqlite3_bind_int64(q, 1, table);
	if (sqlite3_step(q) == SQLITE_ROW) {
		g = gb_game_find(col_text(q, 0));
		status = sqlite3_column_int(q, 1);
		state = col_text(q, 2) ? strdup(col_text(q, 2)) : NULL;
	}
	sqlite3_finalize(q);
	q = prep(f, "SELECT user_id, level, name FROM seats WHERE table_id = ? ORDER BY seat");
	sqlite3_bind_int64(q, 1, table);
	while (nseats < GB_MAX_SEATS && sqlite3_step(q) == SQLITE_ROW) {
		snprintf(seats[nseats].user, sizeof(seats[0].user), "%s", col_text(q, 0));
		snprintf(names[nseats], sizeof(names[0]), "%s", col_text(q, 2));
		seats[nseats++].level = sqlite3_column_int(q, 1);
	}
	sqlite3_finalize(q);
	if (status != STORE_PLAYING || !g || !state) {
		free(state);
		return false;
	}
	w = json_loads(state, 0, &err);
	free(state);
	st = calloc(1, g->state_size);
	CHECK(f, st && g->from_json(st, json_object_get(w, "game")) == GB_OK, "legal: state unreadable");
	json_decref(w);
	turn = g->turn(st);
	if (turn >= 0 && turn < nseats && seats[turn].level < 0) {
		who = turn;
	} else if (turn < 0) {
		for (int i = 0; i < nseats; i++)
			if (seats[i].level < 0 && (who < 0 || chance(f, 40)))
				who = i;
	}
	if (who < 0) {
		free(st);
		return false;
	}
	/* the seated person as stored (the bot keeps ids as valid UTF-8) */
	memset(&u, 0, sizeof(u));
	snprintf(u.id, sizeof(u.id), "%s", seats[who].user);
	snprintf(u.name, sizeof(u.name), "%s", names[who]);
	n = g->legal(st, acts);
	CHECK(f, n > 0, "a person's turn with no legal action");
	if (chance(f, 60) && gb_ai_choose(g, st, GB_LEVEL_EASY, rnd(f), 0, &acts[0]) == GB_OK)
		n = 1; /* mostly sensible moves, so games end */
	g->format(st, &acts[below(f, n)], text, sizeof(text));
	free(st);
	snprintf(verb, sizeof(verb), "%s", text);
	sp = strchr(verb, ' ');
	if (sp)
		*sp = '\0';
	say(f, ch, &u, verb, sp ? text + (sp - verb) + 1 : "", chance(f, 80));
	return true;
}

/* ---- chats and people ---- */

static const char *const odd_names[] = {
	"Asha", "बिकाश", "चन्द्रकुमारी श्रेष्ठ अधिकारी महर्जन गुरुङ तामाङ", "%s%n", "<b>Dipa</b>", "",
	"Ernesto \"El\" O'Brien", "👩🏽‍💻👩🏽‍💻👩🏽‍💻👩🏽‍💻👩🏽‍💻👩🏽‍💻👩🏽‍💻👩🏽‍💻",
	"a\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81\xcc\x81",
	"line\nbreak", "\xff\xfe" "binary", "ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
};

static void make_chat(struct fuzz *f, struct chat *ch, int index, int nusers, int admins)
{
	memset(ch, 0, sizeof(*ch));
	ch->platform = index % NPLATFORMS;
	snprintf(ch->id, sizeof(ch->id), "%s%d", index % 2 ? "-100" : "chat-", 1000 + index);
	ch->nusers = nusers;
	for (int i = 0; i < nusers; i++) {
		struct user *u = &ch->users[i];

		if (chance(f, 85))
			snprintf(u->id, sizeof(u->id), "%d", 5000 + index * 10 + i);
		else /* the console takes the typed name as the id */
			snprintf(u->id, sizeof(u->id), "%s-%d", PICK(f, odd_names), i);
		snprintf(u->name, sizeof(u->name), "%s", PICK(f, odd_names));
		u->admin = i < admins;
	}
}

static void make_chats(struct fuzz *f, int n)
{
	f->nchats = n;
	for (int i = 0; i < n; i++)
		make_chat(f, &f->chats[i], i, 1 + below(f, MAX_USERS), below(f, 3));
}

/* ---- the tests ---- */

/* Random sessions: everything anyone could type, in several chats at once. */
static void test_random_sessions(void **state)
{
	struct fuzz *f = *state;
	long steps = (long)env_u64("GAMEBOT_FUZZ_STEPS", 900);
	int cur = 0, finished;
	clock_t t0 = clock();

	f->seed = env_u64("GAMEBOT_FUZZ_SEED", 1);
	f->rng = f->seed;
	make_chats(f, 4);
	for (long i = 0; i < steps; i++) {
		int roll = below(f, 100);
		struct chat *ch;

		if (chance(f, 25))
			cur = below(f, f->nchats);
		ch = &f->chats[cur];
		if (i % 300 == 299) {
			/* a restart: nothing about a table may live only in memory */
			store_free(f->b.store);
			f->b.store = NULL;
			assert_int_equal(store_open(&f->b.store, f->db), GB_OK);
			f->restarts++;
		}
		if (roll < 62)
			random_command(f, ch);
		else if (roll < 84) {
			if (!legal_command(f, ch))
				random_command(f, ch);
		} else if (roll < 94) {
			f->now += below(f, 3) == 0 ? below(f, 120000) : below(f, 5000);
			run_timers(f);
		} else {
			settle(f, 1 + below(f, 30));
		}
	}
	settle(f, 3000);
	finished = check_all_tables(f);
	print_message("random sessions: %ld commands (%ld repeated deliveries, %ld not commands), %ld timers,"
		      " %ld restarts, %ld replies, %d games finished, %ld replays; longest table message %d characters,"
		      " longest text %d bytes, most buttons %d; %.1f s\n",
		      f->commands, f->dups, f->refused_parse, f->timers_fired, f->restarts, f->payloads, finished,
		      f->replays,
		      f->max_table_cp, f->max_text_bytes, f->max_buttons,
		      (double)(clock() - t0) / CLOCKS_PER_SEC);
}

/*
 * Games to the end: each game with people and computers, people playing
 * legal moves between bits of noise, one person leaving mid-game, idle
 * autoplay switched on in some chats, Nepali in others.
 */
static void test_games_to_the_end(void **state)
{
	struct fuzz *f = *state;
	static const char *const games[] = { "snakes", "ludo", "baghchal", "callbreak", "snakes", "callbreak",
					     "ludo", "baghchal" };
	int nchats = (int)(sizeof(games) / sizeof(games[0])), finished;
	clock_t t0 = clock();

	f->seed = env_u64("GAMEBOT_FUZZ_SEED", 1) * 7919 + 11;
	f->rng = f->seed;
	f->nchats = MAX_CHATS;
	f->no_stop = true;
	for (int gi = 0; gi < nchats; gi++) {
		struct chat *ch = &f->chats[gi % MAX_CHATS];
		const struct gb_game *g = gb_game_find(games[gi]);
		int people = 1 + below(f, g->max_players), bots = below(f, g->max_players - people + 1);
		char args[64];

		if (people + bots < g->min_players)
			bots = g->min_players - people;
		make_chat(f, ch, gi, people, 1);
		ch->id[0] = (char)('A' + gi); /* a new chat each game */
		if (gi % 3 == 1)
			tell(f, ch, &ch->users[0], "lang", "ne");
		if (gi % 2 == 0)
			tell(f, ch, &ch->users[0], "settings", "autoplay_after 10");
		if (gi % 4 == 3)
			tell(f, ch, &ch->users[0], "speed", "fast");
		if (!strcmp(games[gi], "callbreak") && gi > 4)
			tell(f, ch, &ch->users[0], "settings", "callbreak rounds 1");
		tell(f, ch, &ch->users[0], "new", games[gi]);
		for (int i = 1; i < people; i++)
			tell(f, ch, &ch->users[i], "join", "");
		for (int i = 0; i < bots; i++) {
			/* hard players search for long: one seat in a few, so the suite stays fast */
			static const char *const lv[] = { "easy", "medium", "random", "hard" };

			snprintf(args, sizeof(args), "%s", lv[chance(f, 12) ? 3 : below(f, 3)]);
			tell(f, ch, &ch->users[0], "addbot", args);
		}
		tell(f, ch, &ch->users[below(f, people)], "start", "");
		for (int guard = 0; open_table_of(f, ch) && guard < 1400; guard++) {
			int roll = below(f, 100);

			if (roll < 80) {
				if (!legal_command(f, ch))
					settle(f, 1);
			} else if (roll < 90) {
				random_command(f, ch);
			} else if (roll < 97) {
				f->now += below(f, 30000);
				run_timers(f);
			} else if (people > 1 && chance(f, 30)) {
				tell(f, ch, &ch->users[people - 1], "leave", "");
			} else {
				settle(f, 5);
			}
		}
		print_message("  %s: %d people, %d computers: %s after %ld commands\n", games[gi], people, bots,
			      open_table_of(f, ch) ? "still open" : "over", f->commands);
		/* a game still open (a draw by moves is possible) is closed by its creator */
		if (open_table_of(f, ch))
			tell(f, ch, &ch->users[0], "stop", "");
	}
	settle(f, 3000);
	finished = check_all_tables(f);
	print_message("games to the end: %d tables, %d games finished; %ld commands, %ld timers, %ld replies,"
		      " %ld move buttons checked legal, %ld replays; %.1f s\n",
		      nchats, finished, f->commands, f->timers_fired, f->payloads, f->move_buttons, f->replays,
		      (double)(clock() - t0) / CLOCKS_PER_SEC);
	assert_true(finished >= nchats - 2);
}

/* Overwrite ch's open table's saved state behind the bot's back. */
static void corrupt(struct fuzz *f, struct chat *ch, const char *state)
{
	int64_t table = open_table_of(f, ch);
	sqlite3 *h;
	sqlite3_stmt *q;

	if (!table)
		return;
	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "UPDATE tables SET state = ?, version = version + 1 WHERE id = ?",
					    -1, &q, NULL), SQLITE_OK);
	if (state)
		sqlite3_bind_text(q, 1, state, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(q, 1);
	sqlite3_bind_int64(q, 2, table);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	sqlite3_close(h);
	ch->broken = true;
	if (f->nbroken < 64) {
		f->broken_states[f->nbroken] = state ? strdup(state) : NULL;
		f->broken_tables[f->nbroken++] = table;
	}
}

/* Run one SQL statement with one text and one integer parameter on a second connection. */
static void poke(struct fuzz *f, const char *sql, const char *text, int64_t id)
{
	sqlite3 *h;
	sqlite3_stmt *q;

	assert_int_equal(sqlite3_open(f->db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK);
	sqlite3_bind_text(q, 1, text, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(q, 2, id);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	sqlite3_close(h);
}

/*
 * Injected faults: saved states broken in every way (not JSON, not an
 * object, no game while playing, the game's fields of the wrong type or
 * out of range, another game's state). Play is refused with the "went
 * wrong" alert, nothing else breaks, timers of the table die quietly, and
 * the creator can still close it.
 */
static void test_broken_saved_states(void **state)
{
	struct fuzz *f = *state;
	static const char *const games[] = { "snakes", "ludo", "baghchal", "callbreak" };
	/* what the damage is: a text from this list, or one of the kinds after it */
	static const char *const states[] = {
		"not json", "", "[]", "\"text\"", "{}", "{\"game\": null}", "{\"game\": []}",
		"{\"game\": {\"positions\": \"x\"}, \"seq\": \"many\", \"log\": 7}",
		"{\"game\": {}, \"seq\": -1, \"log\": [[\"a\"], {}, null, [1e300, -1, 99999999999]]}",
		"{\"seq\": 99, \"watch\": \"yes\"}",
	};
	enum { MUTATED = sizeof(states) / sizeof(states[0]), HOSTILE_LOG, OTHER_GAME, NKINDS };
	/* log strip entries [type, seat, a, b, c] no game writes: renderers must bear them */
	static const char *const hostile_log =
		"[[0, 9, 9, 9, 9], [1, -1, -1, -1, -1], [2, 3, 999, -999, 52], [3, 4, 2147483647, -2147483648, 0],"
		" [4, 0, 25, 25, 25], [5, 1, 100, 100, 100], [6, 2, 53, 13, 8], [7, 3, -7, 7, 70], [8, 0, 0, 0, 0],"
		" [9, 1, 1, 1, 1], [10, 2, 2, 2, 2], [11, 3, 3, 3, 3], [12, 0, 4, 4, 4], [13, 1, 5, 5, 5],"
		" [14, 2, 6, 6, 6], [15, 3, 7, 7, 7], [16, 3, -1, 52, 99], [-1, 0, 0, 0, 0], [99, 0, 0, 0, 0],"
		" [1e300, 1, 1, 1, 1], [\"x\"], []]";
	clock_t t0 = clock();

	f->seed = env_u64("GAMEBOT_FUZZ_SEED", 1) * 104729 + 3;
	f->rng = f->seed;
	f->nchats = 2;
	for (int round = 0; round < 2 * NKINDS; round++) {
		struct chat *ch = &f->chats[0], *other = &f->chats[1];
		const char *game = games[round % 4];
		int kind = round % NKINDS;
		char *saved = NULL;
		sqlite3_stmt *q;

		make_chat(f, ch, round * 2 + 20, 2, 1);
		make_chat(f, other, round * 2 + 21, 1, 1);
		tell(f, other, &other->users[0], "new", games[(round + 1) % 4]);
		tell(f, other, &other->users[0], "addbot", "easy");
		tell(f, other, &other->users[0], "addbot", "easy");
		tell(f, other, &other->users[0], "addbot", "easy");
		tell(f, other, &other->users[0], "start", "");
		tell(f, ch, &ch->users[0], "new", game);
		tell(f, ch, &ch->users[1], "join", "");
		if (strcmp(game, "baghchal"))
			tell(f, ch, &ch->users[0], "addbot", "medium");
		tell(f, ch, &ch->users[0], "settings", "autoplay_after 10");
		tell(f, ch, &ch->users[0], "start", "");
		for (int i = 0; i < 12; i++)
			if (!legal_command(f, ch))
				settle(f, 1);
		q = prep(f, "SELECT state FROM tables WHERE id = ?");
		sqlite3_bind_int64(q, 1, open_table_of(f, kind == OTHER_GAME ? other : ch));
		if (sqlite3_step(q) == SQLITE_ROW && col_text(q, 0))
			saved = strdup(col_text(q, 0));
		sqlite3_finalize(q);
		if (kind == MUTATED || kind == HOSTILE_LOG) {
			/* the real state with one field of the game set to something odd, or a hostile log */
			static const char *const values[] = { "-1", "1000000", "\"x\"", "null", "[]", "2.5",
							      "9223372036854775807" };
			json_error_t err;
			json_t *w = json_loads(saved ? saved : "{}", 0, &err), *gj = json_object_get(w, "game"), *v;
			const char *key;
			int which = below(f, (int)json_object_size(gj) + 1), k = 0;

			if (kind == HOSTILE_LOG) {
				json_object_set_new(w, "log", json_loads(hostile_log, 0, &err));
			} else {
				json_object_foreach(gj, key, v) {
					if (k++ == which) {
						json_object_set_new(gj, key, json_loads(PICK(f, values), JSON_DECODE_ANY, &err));
						break;
					}
				}
			}
			free(saved);
			saved = json_dumps(w, JSON_COMPACT);
			json_decref(w);
			corrupt(f, ch, saved);
		} else if (kind == OTHER_GAME) {
			corrupt(f, ch, saved);
		} else {
			corrupt(f, ch, states[kind]);
		}
		free(saved);
		/* the other chat's settings and language as other software might leave them */
		{
			static const char *const settings[] = {
				"not json", "[]", "{\"autoplay_after\": 99999999999, \"speed\": 5, \"digits\": null}",
				"{\"autoplay_after\": -30, \"speed\": \"warp\", \"digits\": \"roman\"}",
				"{\"rules\": {\"ludo\": {\"six_bonus\": \"maybe\", \"x\": 1}, \"snakes\": 3,"
				" \"callbreak\": {\"rounds\": \"99\"}, \"baghchal\": []}}",
				"{\"autoplay_after\": 10, \"rules\": \"none\"}",
			};
			static const char *const langs[] = { "xx", "", "NE", "ne" };
			int64_t chat;

			if (chat_store_id(f, other, &chat)) {
				poke(f, "UPDATE chats SET settings = ?1 WHERE id = ?2", PICK(f, settings), chat);
				poke(f, "UPDATE chats SET lang = ?1 WHERE id = ?2", PICK(f, langs), chat);
			}
		}
		/* everything anyone types, and time passing */
		for (int i = 0; i < 30; i++) {
			if (chance(f, 15)) {
				f->now += below(f, 60000);
				run_timers(f);
			} else {
				random_command(f, chance(f, 80) ? ch : other);
			}
		}
		if (open_table_of(f, ch))
			tell(f, ch, &ch->users[0], "stop", "");
		CHECK(f, open_table_of(f, ch) == 0, "the creator could not close a broken table");
		ch->broken = false;
		tell(f, ch, &ch->users[1], "new", "snakes");
		CHECK(f, open_table_of(f, ch) != 0, "no new table after a broken one");
		tell(f, ch, &ch->users[1], "stop", "");
		if (open_table_of(f, other))
			tell(f, other, &other->users[0], "stop", "");
	}
	settle(f, 2000);
	check_all_tables(f);
	print_message("broken states: %ld commands, %d internal-error alerts, %ld timers; %.1f s\n", f->commands,
		      f->internal_alerts, f->timers_fired, (double)(clock() - t0) / CLOCKS_PER_SEC);
}

/*
 * The console adapter in-process: random lines (commands, button numbers,
 * ":wait", chat text, odd names before the colon) through console_run(),
 * then the same store invariants.
 */
static void test_console_lines(void **state)
{
	struct fuzz *f = *state;
	struct console_opts o = { .admins = "alice,बिकाश", .chat = "console-fuzz" };
	FILE *in = tmpfile(), *out = fopen("/dev/null", "w");
	static const char *const who[] = { "alice", "bob", "बिकाश", "", "x:y", "a b", "/new", "चन्द्र" };
	char args[CMD_ARGS_LEN + 400];
	clock_t t0 = clock();

	f->seed = env_u64("GAMEBOT_FUZZ_SEED", 1) * 31 + 5;
	f->rng = f->seed;
	assert_non_null(in);
	assert_non_null(out);
	for (int i = 0; i < 400; i++) {
		int roll = below(f, 100);

		if (roll < 15) {
			fprintf(in, "%s: %d\n", PICK(f, who), below(f, 70));
		} else if (roll < 20) {
			fprintf(in, ":wait %d\n", below(f, 200));
		} else if (roll < 25) {
			garbage(f, args, sizeof(args));
			for (char *p = args; *p; p++)
				if (*p == '\n')
					*p = ' ';
			fprintf(in, "%s\n", args);
		} else {
			const char *verb = PICK(f, all_verbs);

			args[0] = '\0';
			if (!strcmp(verb, "new"))
				snprintf(args, sizeof(args), "%s", PICK(f, games_typed));
			else if (!strcmp(verb, "watch")) /* plays to the end at once: the cheap game */
				snprintf(args, sizeof(args), "snakes");
			else if (chance(f, 20))
				garbage(f, args, sizeof(args));
			for (char *p = args; *p; p++)
				if (*p == '\n' || *p == '\r')
					*p = ' ';
			fprintf(in, "%s: /%s %s\n", PICK(f, who), verb, args);
		}
	}
	rewind(in);
	snprintf(f->last, sizeof(f->last), "console transcript");
	assert_int_equal(console_run(&f->b, &o, in, out), 0);
	fclose(in);
	fclose(out);
	check_store(f, true);
	print_message("console: 400 lines, %d games finished; %.1f s\n", check_all_tables(f),
		      (double)(clock() - t0) / CLOCKS_PER_SEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_random_sessions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_games_to_the_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_saved_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_console_lines, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
