/*
 * harness.c - `make crashtest`: the service killed at random moments while
 * many chats play, and everything it promised checked afterwards.
 *
 * The harness starts the fake Telegram and fake Discord servers
 * (tests/fake_telegram.c, tests/fake_discord.c) and the real `gamebot
 * serve` on a fresh database, all on 127.0.0.1. Chats (half Telegram
 * groups, half Discord channels) open tables of all four games in turn and
 * play them through the webhooks: client threads read a chat's table from
 * the database file (read only) and send the legal action of the seat to
 * move as that seat's person would (a typed command or a button press on
 * Telegram, a button on Discord). A chat has one update in flight at a
 * time, as the platforms send them; an update that got no 2xx is sent
 * again, unchanged, until it does. Meanwhile the service is SIGKILLed at
 * random moments and started again. When the kills are done every chat
 * plays its last game to its end (a table that cannot be played on is
 * stuck), the outbox drains and the service stops.
 *
 * Then it checks:
 *   - every move update has its effect exactly once: its move is in the log
 *     at the turn it was sent for, by its seat, and a table holds no move
 *     that no update asked for;
 *   - every outbox row reached the platform (none pending, none set aside);
 *     per chat the table messages arrive in turn order, an edit repeats only
 *     with identical content, and no message is posted twice (a repeat is
 *     only allowed across a kill that fell between its delivery and its
 *     acknowledgement, and then it is counted);
 *   - no table is left unfinished; PRAGMA integrity_check is ok; every
 *     table replays from its seed and move log to its stored state; the
 *     coins ledger passes `gamebot audit` (its lines in audit.log).
 *
 *   harness [--chats N] [--kills K] [--threads T] [--seed S] [--keep]
 *
 * It prints its counts and its seed; a failure prints the seed again with
 * the command that makes the same choices again (the same chats, games,
 * presses and kill plan; the dice and deals are the service's own, drawn
 * from the system at each table, and a kill lands where the service's
 * timing puts it), and exits 1.
 */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "adapters/discord.h"
#include "adapters/telegram.h"
#include "games/game.h"
#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_discord.h"
#include "tests/fake_telegram.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TG_TOKEN "5151:crash-token"
#define TG_SECRET "crash-secret"
#define DC_APP "1000"
#define DC_TOKEN "crash-bot-token"
#define MAX_SEATS 4
#define MAX_KILLS 4096

static const char *const games[] = { "snakes", "ludo", "baghchal", "callbreak" };
/* people and computer players (easy, fast: their turns are timers) per game */
static const int humans[] = { 2, 2, 2, 3 };
static const int computers[] = { 1, 0, 0, 1 };

struct opts {
	int chats, kills, threads;
	uint64_t seed;
	bool keep;
	const char *bin;
};

/* One update as the platform sends it, and what became of it. */
struct upd {
	int chat;                      /* index into chats */
	bool move;                     /* a game move (else a lobby command) */
	int64_t table;                 /* the table and turn it was sent for (moves) */
	int turn;
	int seat;                      /* the seat to move (-1: nobody's turn, anyone may) */
	char action[GB_ACTION_TEXT + 1];
	int attempts;                  /* HTTP posts until the 2xx */
};

struct chat {
	int idx;
	bool dc;                       /* a Discord channel, else a Telegram group */
	char id[32];                   /* chat (Telegram) or channel (Discord) id */
	char users[MAX_SEATS][32];
	int game;                      /* index into games of the current game */
	int games_started;
	int step;                      /* lobby commands sent for the current game */
	int64_t table;                 /* the current table (0: none yet) */
	bool done;
	int lobby_idle;                /* snapshots seen in the lobby with every step sent */
};

static struct opts opt;
static char dir[64], db[160], logpath[160], url_tg[96], url_dc[96], url_health[96];
static int port;
static struct fake_tg *ftg;
static struct fake_dc *fdc;
static unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
static struct chat *chats;
static pthread_mutex_t ulock = PTHREAD_MUTEX_INITIALIZER;
static struct upd *upds;
static int nupd, capupd;
static atomic_llong next_tg_id = 100000, next_dc_seq, resent, posts;
static atomic_int killing = 1;     /* the kill phase runs: chats start new games */
static atomic_int stop_clients;
static pid_t service;
static int kills;
static int tg_at_kill[MAX_KILLS], dc_at_kill[MAX_KILLS];
static int failures;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* xorshift64*: the harness's own choices, reproducible from the seed. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "crashtest: FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	failures++;
}

/* ---- the service ---- */

static void start_service(void)
{
	char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	char e_db[1100], e_listen[96], e_api_tg[160], e_api_dc[160], e_pk[160];
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen,
			      "GAMEBOT_RATE_USER_PER_MIN=0", "GAMEBOT_RATE_CHAT_PER_MIN=0",
			      "TELEGRAM_TOKEN=" TG_TOKEN, "TELEGRAM_SECRET=" TG_SECRET, e_api_tg,
			      "TELEGRAM_MODE=webhook", "GAMEBOT_TELEGRAM_PACING=off",
			      "DISCORD_APP_ID=" DC_APP, e_pk, "DISCORD_TOKEN=" DC_TOKEN, e_api_dc, NULL };
	pid_t pid;

	sodium_bin2hex(hex, sizeof(hex), pk, sizeof(pk));
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", db);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api_tg, sizeof(e_api_tg), "TELEGRAM_API_URL=%s", fake_tg_url(ftg));
	snprintf(e_api_dc, sizeof(e_api_dc), "DISCORD_API_URL=%s", fake_dc_url(fdc));
	snprintf(e_pk, sizeof(e_pk), "DISCORD_PUBLIC_KEY=%s", hex);
	pid = spawn(opt.bin, (char *const[]){ (char *)opt.bin, "serve", NULL }, env, logpath, true);
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	service = pid;
}

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	if (arg)
		sb_addn(arg, p, size * n);
	return size * n;
}

/* Wait until /healthz answers; false when the service never came up. */
static bool wait_healthy(CURL *c, int timeout_ms)
{
	int64_t t0 = now_ms();

	while (now_ms() - t0 < timeout_ms) {
		long code = 0;

		curl_easy_reset(c);
		curl_easy_setopt(c, CURLOPT_URL, url_health);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, NULL);
		curl_easy_setopt(c, CURLOPT_TIMEOUT, 2L);
		if (curl_easy_perform(c) == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
		if (code == 200)
			return true;
		sleep_ms(10);
	}
	return false;
}

/* ---- updates as the platforms send them ---- */

static void add_upd(const struct upd *u)
{
	pthread_mutex_lock(&ulock);
	if (nupd == capupd) {
		int cap = capupd ? capupd * 2 : 4096;
		struct upd *v = realloc(upds, (size_t)cap * sizeof(*v));

		if (!v) {
			perror("realloc");
			exit(2);
		}
		upds = v;
		capupd = cap;
	}
	upds[nupd++] = *u;
	pthread_mutex_unlock(&ulock);
}

/* POST body to url with headers h; returns the status (0: no answer). */
static long post(CURL *c, const char *url, struct curl_slist *h, const char *body)
{
	long code = 0;

	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, NULL);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

/*
 * Send the update (body, consumed) until it is answered 2xx, as the
 * platforms do; Discord's requests are signed again each time. Returns the
 * number of posts, or 0 when the clients were told to stop first.
 */
static int deliver(CURL *c, bool dc, json_t *body)
{
	char *text = json_dumps(body, JSON_COMPACT);
	int attempts = 0;

	json_decref(body);
	if (!text) {
		perror("json_dumps");
		exit(2);
	}
	while (!atomic_load(&stop_clients)) {
		struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
		char hdr[256];
		long code;

		if (dc) {
			char ts[32], sig[2 * crypto_sign_BYTES + 1];
			unsigned char bin[crypto_sign_BYTES];
			struct strbuf msg = { 0 };

			snprintf(ts, sizeof(ts), "%lld", (long long)(wall_ms() / 1000));
			sb_add(&msg, ts);
			sb_add(&msg, text);
			crypto_sign_detached(bin, NULL, (const unsigned char *)sb_str(&msg), msg.len, sk);
			sb_release(&msg);
			sodium_bin2hex(sig, sizeof(sig), bin, sizeof(bin));
			snprintf(hdr, sizeof(hdr), "X-Signature-Ed25519: %s", sig);
			h = curl_slist_append(h, hdr);
			snprintf(hdr, sizeof(hdr), "X-Signature-Timestamp: %s", ts);
			h = curl_slist_append(h, hdr);
		} else {
			snprintf(hdr, sizeof(hdr), "X-Telegram-Bot-Api-Secret-Token: %s", TG_SECRET);
			h = curl_slist_append(h, hdr);
		}
		code = post(c, dc ? url_dc : url_tg, h, text);
		curl_slist_free_all(h);
		attempts++;
		atomic_fetch_add(&posts, 1);
		if (code >= 200 && code < 300)
			break;
		if (code >= 400 && code < 500) {
			fail("update refused with %ld: %s", code, text);
			break;
		}
		atomic_fetch_add(&resent, 1);
		sleep_ms(attempts < 5 ? 5 : 25);
	}
	free(text);
	return atomic_load(&stop_clients) ? 0 : attempts;
}

static json_t *tg_from(const struct chat *ch, int seat)
{
	char name[32];

	snprintf(name, sizeof(name), "P%d.%d", ch->idx, seat);
	return json_pack("{sIss}", "id", (json_int_t)strtoll(ch->users[seat], NULL, 10), "first_name", name);
}

static json_t *tg_chat(const struct chat *ch)
{
	return json_pack("{sIss}", "id", (json_int_t)strtoll(ch->id, NULL, 10), "type", "supergroup");
}

/* A typed command of seat's person in chat. */
static json_t *tg_text(const struct chat *ch, int seat, const char *text)
{
	long long id = atomic_fetch_add(&next_tg_id, 1);

	return json_pack("{sIs{sIsososs}}", "update_id", (json_int_t)id, "message", "message_id",
			 (json_int_t)id, "from", tg_from(ch, seat), "chat", tg_chat(ch), "text", text);
}

/* A press of a button with data on the chat's table message. */
static json_t *tg_press(const struct chat *ch, int seat, const char *data)
{
	long long id = atomic_fetch_add(&next_tg_id, 1);
	char cq[32];

	snprintf(cq, sizeof(cq), "cq%lld", id);
	return json_pack("{sIs{sssos{sIso}ssss}}", "update_id", (json_int_t)id, "callback_query", "id",
			 cq, "from", tg_from(ch, seat), "message", "message_id", (json_int_t)100, "chat",
			 tg_chat(ch), "chat_instance", "1", "data", data);
}

static json_t *dc_interaction(const struct chat *ch, int seat, int type, json_t *data)
{
	char id[32], tok[80];
	uint64_t ms = (uint64_t)(wall_ms() - 1420070400000LL);

	snprintf(id, sizeof(id), "%llu",
		 (unsigned long long)((ms << 22) | ((uint64_t)atomic_fetch_add(&next_dc_seq, 1) & 0x3fffff)));
	/* the token names the channel, so the checks can tell whose follow-ups they are */
	snprintf(tok, sizeof(tok), "tok-%s-%s", ch->id, id);
	/* seat 0 administers the channel (Administrator permission), the others do not */
	return json_pack("{sisssssssssss{s{ssss}ss}so}", "type", type, "id", id, "application_id", DC_APP,
			 "token", tok, "channel_id", ch->id, "guild_id", "5000", "member", "user", "id",
			 ch->users[seat], "username", ch->users[seat], "permissions", seat ? "0" : "8", "data",
			 data);
}

/* A slash command "/name [value]" (value for its one option, named opt). */
static json_t *dc_slash(const struct chat *ch, int seat, const char *name, const char *optname,
			const char *value)
{
	json_t *options = json_array();

	if (optname)
		json_array_append_new(options, json_pack("{sssiss}", "name", optname, "type", 3, "value", value));
	return dc_interaction(ch, seat, 2,
			      json_pack("{sssssiso}", "id", "1", "name", name, "type", 1, "options", options));
}

static json_t *dc_press(const struct chat *ch, int seat, const char *custom_id)
{
	json_t *ia = dc_interaction(ch, seat, 3, json_pack("{sssi}", "custom_id", custom_id, "component_type", 2));

	json_object_set_new(ia, "message", json_pack("{sssiss}", "id", "700", "flags", 0, "content", ""));
	return ia;
}

/* ---- what a chat's table looks like now (read only) ---- */

struct snap {
	int64_t table;
	int status;                    /* -1: no table */
	int moves;
	char game[16];
	char *state;
	int nseats;
	char seat_user[MAX_SEATS][32];
};

static void snap_release(struct snap *s)
{
	free(s->state);
	s->state = NULL;
}

static int read_snap(sqlite3 *h, const struct chat *ch, struct snap *out)
{
	static const char *q_table =
		"SELECT t.id, t.status, t.game, t.state, (SELECT count(*) FROM moves m WHERE m.table_id = t.id)"
		" FROM tables t JOIN chats c ON c.id = t.chat_id WHERE c.platform = ? AND c.chat = ?"
		" ORDER BY t.id DESC LIMIT 1";
	sqlite3_stmt *q = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->status = -1;
	rc = sqlite3_exec(h, "BEGIN", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto out;
	rc = sqlite3_prepare_v2(h, q_table, -1, &q, NULL);
	if (rc != SQLITE_OK)
		goto out;
	sqlite3_bind_text(q, 1, ch->dc ? "discord" : "telegram", -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, ch->id, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		out->table = sqlite3_column_int64(q, 0);
		out->status = sqlite3_column_int(q, 1);
		snprintf(out->game, sizeof(out->game), "%s", (const char *)sqlite3_column_text(q, 2));
		if (sqlite3_column_text(q, 3))
			out->state = strdup((const char *)sqlite3_column_text(q, 3));
		out->moves = sqlite3_column_int(q, 4);
	}
	sqlite3_finalize(q);
	q = NULL;
	rc = SQLITE_OK;
	if (out->table) {
		rc = sqlite3_prepare_v2(h, "SELECT seat, user_id FROM seats WHERE table_id = ? ORDER BY seat", -1,
					&q, NULL);
		if (rc != SQLITE_OK)
			goto out;
		sqlite3_bind_int64(q, 1, out->table);
		while (sqlite3_step(q) == SQLITE_ROW) {
			int seat = sqlite3_column_int(q, 0);

			if (seat >= 0 && seat < MAX_SEATS) {
				snprintf(out->seat_user[seat], sizeof(out->seat_user[seat]), "%s",
					 (const char *)sqlite3_column_text(q, 1));
				if (seat + 1 > out->nseats)
					out->nseats = seat + 1;
			}
		}
	}
out:
	sqlite3_finalize(q);
	sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
	return rc;
}

/* ---- the clients ---- */

/*
 * The next lobby command of ch's current game; false when all were sent:
 * /new GAME, then with computers /speed fast (by the chat's admin), a
 * /join per other person, an /addbot per computer, and /start.
 */
static bool lobby_step(CURL *c, struct chat *ch)
{
	const char *game = games[ch->game];
	int n = humans[ch->game], bots = computers[ch->game], k = ch->step;
	json_t *body;
	struct upd u = { .chat = ch->idx };
	char text[64];
	int seat = 0;

	if (!bots && k >= 1)
		k++; /* no /speed */
	if (k == 0) {
		snprintf(text, sizeof(text), "/new %s", game);
		body = ch->dc ? dc_slash(ch, 0, "new", "game", game) : tg_text(ch, 0, text);
	} else if (k == 1) {
		body = ch->dc ? dc_slash(ch, 0, "speed", "pace", "fast") : tg_text(ch, 0, "/speed fast");
	} else if (k < n + 1) {
		seat = k - 1;
		body = ch->dc ? dc_slash(ch, seat, "join", NULL, NULL) : tg_text(ch, seat, "/join");
	} else if (k < n + 1 + bots) {
		body = ch->dc ? dc_slash(ch, 0, "addbot", "level", "easy") : tg_text(ch, 0, "/addbot easy");
	} else if (k == n + 1 + bots) {
		body = ch->dc ? dc_slash(ch, 0, "start", NULL, NULL) : tg_text(ch, 0, "/start");
	} else {
		return false;
	}
	u.seat = seat;
	u.attempts = deliver(c, ch->dc, body);
	if (u.attempts)
		add_upd(&u);
	ch->step++;
	return true;
}

/* One step for ch: returns true when an update was sent. */
static bool chat_step(CURL *c, sqlite3 *h, struct chat *ch, uint64_t *rs)
{
	struct snap s;
	bool sent = false;

	if (read_snap(h, ch, &s) != SQLITE_OK)
		return false;
	if (s.table != ch->table && ch->table > 0 && s.status == -1) {
		fail("chat %s lost its table %lld", ch->id, (long long)ch->table);
		ch->done = true;
		goto out;
	}
	if (s.status == -1 || (s.table == ch->table && s.status == STORE_OVER)) {
		/* no table yet, or the current one is over: the next game, or done */
		if (ch->games_started && !atomic_load(&killing)) {
			ch->done = true;
			goto out;
		}
		if (ch->games_started)
			ch->game = (ch->game + 1) % 4;
		ch->games_started++;
		ch->step = 0;
		ch->lobby_idle = 0;
		sent = lobby_step(c, ch);
		ch->table = -1; /* learnt from the next snapshot */
		goto out;
	}
	if (ch->table == -1 && s.table)
		ch->table = s.table;
	if (s.status == STORE_LOBBY || s.table != ch->table) {
		sent = lobby_step(c, ch);
		if (!sent && ++ch->lobby_idle > 50) {
			/* /start again */
			ch->step = humans[ch->game] + computers[ch->game] + (computers[ch->game] ? 1 : 0);
			ch->lobby_idle = 0;
		}
		goto out;
	}
	if (s.status == STORE_PLAYING && s.state) {
		const struct gb_game *g = gb_game_find(s.game);
		struct gb_action acts[GB_MAX_LEGAL];
		json_error_t jerr;
		json_t *w = json_loads(s.state, 0, &jerr);
		void *st = g ? calloc(1, g->state_size) : NULL;
		int turn, n;

		if (!st || !w || g->from_json(st, json_object_get(w, "game"))) {
			fail("table %lld: unreadable state", (long long)s.table);
			ch->done = true;
		} else if ((turn = g->turn(st)) < s.nseats && (turn < 0 || s.seat_user[turn][0]) &&
			   (n = g->legal(st, acts)) > 0) {
			/* (a computer's turn is its timer's: the service plays it) */
			/* nobody's turn (a Call Break round is over): anyone seated may go on */
			struct upd u = { .chat = ch->idx, .move = true, .table = s.table, .turn = s.moves,
					 .seat = turn };
			char cmd[GB_ACTION_TEXT + 2], data[128];
			int k = (int)(rnd(rs) % 4 == 0 ? rnd(rs) % (uint64_t)n : 0);
			json_t *body;

			cmd[0] = '/';
			g->format(st, &acts[k], cmd + 1, sizeof(cmd) - 1);
			snprintf(u.action, sizeof(u.action), "%s", cmd + 1);
			if (ch->dc) {
				if (dc_custom_id_encode(s.table, s.moves, cmd, data, sizeof(data)))
					fail("no custom_id for %s", cmd);
				body = dc_press(ch, turn < 0 ? 0 : turn, data);
			} else if (rnd(rs) % 2 && !tg_callback_encode(s.table, s.moves, cmd, data, sizeof(data))) {
				body = tg_press(ch, turn < 0 ? 0 : turn, data);
			} else {
				body = tg_text(ch, turn < 0 ? 0 : turn, cmd);
			}
			u.attempts = deliver(c, ch->dc, body);
			if (u.attempts)
				add_upd(&u);
			sent = true;
		}
		json_decref(w);
		free(st);
	}
out:
	snap_release(&s);
	return sent;
}

struct client {
	pthread_t th;
	int first, step;               /* chats first, first + step, ... */
	uint64_t rs;
};

static void *client_main(void *arg)
{
	struct client *cl = arg;
	CURL *c = curl_easy_init();
	sqlite3 *h = NULL;

	if (!c || sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fail("client cannot start");
		goto out;
	}
	sqlite3_busy_timeout(h, 5000);
	while (!atomic_load(&stop_clients)) {
		bool any = false, left = false;

		for (int i = cl->first; i < opt.chats && !atomic_load(&stop_clients); i += cl->step) {
			if (chats[i].done)
				continue;
			left = true;
			any |= chat_step(c, h, &chats[i], &cl->rs);
		}
		if (!left)
			break;
		if (!any)
			sleep_ms(5);
	}
out:
	sqlite3_close(h);
	curl_easy_cleanup(c);
	return NULL;
}

/* ---- checks ---- */

struct mv {
	int seq, actor;
	char *action;
};

/*
 * Every move update took effect once, and no table holds a move that no
 * update asked for but a computer's own (its timer's).
 */
static int computer_moves;

static int check_moves(sqlite3 *h)
{
	sqlite3_stmt *q = NULL;
	int64_t *tables = NULL;
	int ntables = 0, checked = 0;

	sqlite3_prepare_v2(h, "SELECT id FROM tables ORDER BY id", -1, &q, NULL);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int64_t *t = realloc(tables, (size_t)(ntables + 1) * sizeof(*t));

		if (!t)
			exit(2);
		tables = t;
		tables[ntables++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_finalize(q);
	for (int ti = 0; ti < ntables; ti++) {
		struct mv *mv = NULL;
		int n = 0, asked = 0, computer = 0;

		sqlite3_prepare_v2(h,
				   "SELECT m.seq, m.actor, m.action, coalesce(s.user_id, 'x') = '' FROM moves m"
				   " LEFT JOIN seats s ON s.table_id = m.table_id AND s.seat = CAST(m.actor AS INTEGER)"
				   " WHERE m.table_id = ? ORDER BY m.seq",
				   -1, &q, NULL);
		sqlite3_bind_int64(q, 1, tables[ti]);
		while (sqlite3_step(q) == SQLITE_ROW) {
			struct mv *m = realloc(mv, (size_t)(n + 1) * sizeof(*m));

			if (!m)
				exit(2);
			mv = m;
			mv[n].seq = sqlite3_column_int(q, 0);
			mv[n].actor = (int)strtol((const char *)sqlite3_column_text(q, 1), NULL, 10);
			mv[n].action = strdup((const char *)sqlite3_column_text(q, 2));
			computer += sqlite3_column_int(q, 3);
			n++;
		}
		sqlite3_finalize(q);
		for (int i = 0; i < nupd; i++) {
			const struct upd *u = &upds[i];

			if (!u->move || u->table != tables[ti])
				continue;
			asked++;
			checked++;
			if (u->turn >= n || mv[u->turn].seq != u->turn + 1 ||
			    (u->seat >= 0 && mv[u->turn].actor != u->seat) ||
			    strcmp(mv[u->turn].action, u->action))
				fail("table %lld: the update for turn %d (seat %d: %s, %d posts) is not move %d of the log",
				     (long long)tables[ti], u->turn, u->seat, u->action, u->attempts, u->turn + 1);
		}
		if (asked + computer != n)
			fail("table %lld: %d moves in the log, %d asked for, %d by computers", (long long)tables[ti], n,
			     asked, computer);
		computer_moves += computer;
		for (int i = 0; i < n; i++)
			free(mv[i].action);
		free(mv);
	}
	free(tables);
	return checked;
}

/* The (table, turn) tag of a message's first button, from its callback data or custom_id. */
static bool tag_of(const json_t *rows, const char *key, int64_t *table, int *turn)
{
	const json_t *row, *b;
	size_t i, k;

	json_array_foreach(rows, i, row) {
		const json_t *list = json_is_array(row) ? row : json_object_get(row, "components");

		json_array_foreach(list, k, b) {
			const char *d = json_string_value(json_object_get(b, key));
			char *end;
			long long t;
			long n;

			if (!d)
				continue;
			t = strtoll(d, &end, 10);
			if (*end != ':')
				continue;
			n = strtol(end + 1, &end, 10);
			if (*end != ':')
				continue;
			*table = t;
			*turn = (int)n;
			return true;
		}
	}
	return false;
}

/* One platform message as the checks see it. */
struct seen {
	char chat[48];                 /* chat or channel */
	char msg[256];                 /* message id edited ("" for a post) */
	bool post;
	char *text;
	bool tagged;
	int64_t table;
	int turn;
	int call;                      /* index of the call in the fake's record */
};

/*
 * Was there a kill between calls a and b of a platform (kill marks in at[],
 * each counting every call the killed service made), soon enough after a
 * that a's delivery can still have been unrecorded? The outbox records
 * each delivery as soon as it is made, so a kill repeats at most the rows
 * in the workers' hands; the allowance is generous for the calls other
 * threads make meanwhile.
 */
#define UNRECORDED_CALLS (2 * 32 * 2 * 2)

static bool kill_between(const int *at, int a, int b)
{
	for (int k = 0; k < kills; k++)
		if (at[k] > a && at[k] <= b + 1 && at[k] - a <= UNRECORDED_CALLS)
			return true;
	return false;
}

/* The mark of the last kill before call b (-1: none), for the report of a repeat. */
static int kill_before(const int *at, int b)
{
	int mark = -1;

	for (int k = 0; k < kills; k++)
		if (at[k] <= b + 1)
			mark = at[k];
	return mark;
}

/* The ordering, repeat and duplicate checks over one platform's messages. */
static int check_seen(const char *platform, struct seen *v, int n, const int *at, int *repeats)
{
	int checked = 0;

	for (int i = 0; i < n; i++) {
		for (int j = i - 1; j >= 0; j--) {
			if (strcmp(v[j].chat, v[i].chat))
				continue;
			/* table messages of a chat go out in turn order */
			if (v[i].tagged && v[j].tagged &&
			    (v[j].table > v[i].table || (v[j].table == v[i].table && v[j].turn > v[i].turn))) {
				fail("%s chat %s: the table of turn %lld:%d went out after %lld:%d (calls %d, %d)",
				     platform, v[i].chat, (long long)v[i].table, v[i].turn, (long long)v[j].table,
				     v[j].turn, v[j].call, v[i].call);
				break;
			}
			if (v[i].tagged && v[j].tagged)
				break; /* the rest of the chat was checked against j already */
		}
		for (int j = i - 1; j >= 0; j--) {
			if (strcmp(v[j].chat, v[i].chat))
				continue;
			/*
			 * An edit may repeat the one before it (identical content),
			 * but never bring back an older board of the message.
			 */
			bool later = v[i].tagged && v[j].tagged &&
				     (v[i].table > v[j].table || (v[i].table == v[j].table && v[i].turn > v[j].turn));

			/*
			 * Only boards with buttons carry their turn: one without
			 * (a computer to move, a game over) may legitimately come
			 * back at a later turn (Snakes with everyone still waiting
			 * for a six, Bagh Chal repeating a position).
			 */
			if (!v[i].post && !v[j].post && !later && v[i].tagged && v[j].tagged &&
			    !strcmp(v[i].msg, v[j].msg) && !strcmp(v[i].text, v[j].text)) {
				for (int k = j + 1; k < i; k++)
					if (!v[k].post && v[k].tagged && !strcmp(v[k].msg, v[i].msg) &&
					    strcmp(v[k].text, v[i].text)) {
						fail("%s chat %s: message %s went back to an older board (calls %d, %d, %d; "
						     "turns %lld:%d, %lld:%d, %lld:%d; kills between: %s, %s)\n%s\n--\n%s",
						     platform, v[i].chat, v[i].msg, v[j].call, v[k].call, v[i].call,
						     v[j].tagged ? (long long)v[j].table : -1LL, v[j].turn,
						     v[k].tagged ? (long long)v[k].table : -1LL, v[k].turn,
						     v[i].tagged ? (long long)v[i].table : -1LL, v[i].turn,
						     kill_between(at, v[j].call, v[k].call) ? "yes" : "no",
						     kill_between(at, v[k].call, v[i].call) ? "yes" : "no", v[j].text, v[k].text);
						break;
					}
			}
			/* the same post twice in a row: only across a kill */
			if (v[i].post && v[j].post) {
				if (!strcmp(v[i].text, v[j].text)) {
					if (kill_between(at, v[j].call, v[i].call))
						(*repeats)++;
					else
						fail("%s chat %s: posted twice (calls %d and %d; the kill before the second "
						     "marked at call %d): %.60s", platform, v[i].chat, v[j].call, v[i].call,
						     kill_before(at, v[i].call), v[i].text);
				}
				break;
			}
		}
		checked++;
	}
	return checked;
}

static int check_telegram(int *repeats)
{
	int n = fake_tg_count(ftg, NULL), m = 0, checked;
	struct seen *v = calloc((size_t)n + 1, sizeof(*v));

	for (int i = 0; i < n; i++) {
		char method[64];
		int status = 0;
		json_t *b = fake_tg_call(ftg, i, method, sizeof(method), &status);
		const char *text = json_string_value(json_object_get(b, "text"));
		struct seen *s = &v[m];

		if (b && text && status == 200 &&
		    (!strcmp(method, "sendMessage") || !strcmp(method, "editMessageText"))) {
			json_t *chat = json_object_get(b, "chat_id");

			if (json_is_integer(chat))
				snprintf(s->chat, sizeof(s->chat), "%lld", (long long)json_integer_value(chat));
			else
				snprintf(s->chat, sizeof(s->chat), "%s", json_string_value(chat) ? json_string_value(chat) : "");
			s->post = !strcmp(method, "sendMessage");
			snprintf(s->msg, sizeof(s->msg), "%lld",
				 (long long)json_integer_value(json_object_get(b, "message_id")));
			s->text = strdup(text);
			s->tagged = tag_of(json_object_get(json_object_get(b, "reply_markup"), "inline_keyboard"),
					   "callback_data", &s->table, &s->turn);
			s->call = i;
			m++;
		}
		json_decref(b);
	}
	checked = check_seen("telegram", v, m, tg_at_kill, repeats);
	for (int i = 0; i < m; i++)
		free(v[i].text);
	free(v);
	return checked;
}

static int check_discord(int *repeats)
{
	int n = fake_dc_count(fdc, NULL, NULL), m = 0, checked;
	struct seen *v = calloc((size_t)n + 1, sizeof(*v));

	for (int i = 0; i < n; i++) {
		char method[16], path[256];
		int status = 0;
		json_t *b = fake_dc_call(fdc, i, method, sizeof(method), path, sizeof(path), NULL, 0, &status);
		const char *text = json_string_value(json_object_get(b, "content"));
		struct seen *s = &v[m];

		if (b && text && status >= 200 && status < 300 &&
		    (!strcmp(method, "POST") || !strcmp(method, "PATCH"))) {
			const char *p = path;

			/* /channels/CH/messages[/MSG], or /webhooks/APP/tok-CH-ID[/messages/MSG] */
			if (!strncmp(p, "/channels/", 10)) {
				const char *e = strchr(p + 10, '/');

				snprintf(s->chat, sizeof(s->chat), "%.*s", e ? (int)(e - p - 10) : 0, p + 10);
			} else if (!strncmp(p, "/webhooks/" DC_APP "/tok-", strlen("/webhooks/" DC_APP "/tok-"))) {
				const char *b0 = p + strlen("/webhooks/" DC_APP "/tok-"), *e = strchr(b0, '-');

				snprintf(s->chat, sizeof(s->chat), "%.*s", e ? (int)(e - b0) : 0, b0);
			} else {
				json_decref(b);
				continue;
			}
			s->post = !strcmp(method, "POST");
			snprintf(s->msg, sizeof(s->msg), "%s", path);
			s->text = strdup(text);
			s->tagged = tag_of(json_object_get(b, "components"), "custom_id", &s->table, &s->turn);
			s->call = i;
			m++;
		}
		json_decref(b);
	}
	checked = check_seen("discord", v, m, dc_at_kill, repeats);
	for (int i = 0; i < m; i++)
		free(v[i].text);
	free(v);
	return checked;
}

/* Replay every table from its seed and move log; returns how many were. */
static int check_replays(sqlite3 *h)
{
	sqlite3_stmt *t = NULL, *q = NULL;
	int replayed = 0;

	sqlite3_prepare_v2(h,
			   "SELECT id, game, seed, rules, state, (SELECT count(*) FROM seats s WHERE s.table_id = t.id)"
			   " FROM tables t WHERE state IS NOT NULL ORDER BY id",
			   -1, &t, NULL);
	while (sqlite3_step(t) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(t, 0);
		const struct gb_game *g = gb_game_find((const char *)sqlite3_column_text(t, 1));
		json_error_t jerr;
		json_t *rules = json_loads((const char *)sqlite3_column_text(t, 3), 0, &jerr);
		json_t *w = json_loads((const char *)sqlite3_column_text(t, 4), 0, &jerr), *mine = NULL;
		struct gb_setup su;
		void *st = g ? calloc(1, g->state_size) : NULL;
		int n = 0;
		bool ok = st && rules && w;

		if (ok) {
			gb_setup_init(&su, g);
			su.players = sqlite3_column_int(t, 5);
			su.seed = (uint64_t)sqlite3_column_int64(t, 2);
			su.dealer = (int)(su.seed % 4);
			ok = gb_rules_from_json(g, &su.rules, rules) == GB_OK && g->init(st, &su) == GB_OK;
		}
		sqlite3_prepare_v2(h, "SELECT seq, action FROM moves WHERE table_id = ? ORDER BY seq", -1, &q, NULL);
		sqlite3_bind_int64(q, 1, id);
		while (ok && sqlite3_step(q) == SQLITE_ROW) {
			struct gb_action act;

			ok = sqlite3_column_int(q, 0) == ++n &&
			     g->parse(st, (const char *)sqlite3_column_text(q, 1), &act) == GB_OK &&
			     g->apply(st, &act, NULL) == GB_OK && g->check(st) == GB_OK;
		}
		sqlite3_finalize(q);
		if (ok) {
			mine = gb_state_json(g, st);
			ok = json_equal(json_object_get(w, "game"), mine);
		}
		if (!ok)
			fail("table %lld does not replay from its seed and move log (move %d)", (long long)id, n);
		else
			replayed++;
		json_decref(mine);
		json_decref(rules);
		json_decref(w);
		free(st);
	}
	sqlite3_finalize(t);
	return replayed;
}

static int scalar(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *q = NULL;
	int v = -1;

	if (sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* ---- the run ---- */

static bool parse_int(const char *s, long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max)
		return false;
	*out = v;
	return true;
}

static void usage(void)
{
	fprintf(stderr, "usage: harness [--chats N] [--kills K] [--threads T] [--seed S] [--keep] [--bin PATH]\n");
	exit(2);
}

static void parse_opts(int argc, char **argv)
{
	opt.chats = 200;
	opt.kills = 50;
	opt.threads = 8;
	opt.seed = 0;
	opt.bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	for (int i = 1; i < argc; i++) {
		long long v = 0;

		if (!strcmp(argv[i], "--keep")) {
			opt.keep = true;
			continue;
		}
		if (i + 1 >= argc)
			usage();
		if (!strcmp(argv[i], "--bin")) {
			opt.bin = argv[++i];
			continue;
		}
		if (!parse_int(argv[i + 1], strcmp(argv[i], "--seed") ? 100000 : (1LL << 62), &v))
			usage();
		if (!strcmp(argv[i], "--chats") && v >= 2)
			opt.chats = (int)v;
		else if (!strcmp(argv[i], "--kills") && v < MAX_KILLS)
			opt.kills = (int)v;
		else if (!strcmp(argv[i], "--threads") && v >= 1 && v <= 64)
			opt.threads = (int)v;
		else if (!strcmp(argv[i], "--seed"))
			opt.seed = (uint64_t)v;
		else
			usage();
		i++;
	}
	if (!opt.seed)
		opt.seed = (uint64_t)wall_ms() % 1000000007ULL;
}

int main(int argc, char **argv)
{
	struct client *cl;
	struct store *s = NULL;
	sqlite3 *h = NULL;
	CURL *c;
	uint64_t rs;
	int64_t t0, tk, tf;
	int status = 0, repeats = 0, tg_checked, dc_checked, moves_checked, replays, finished, open, pending,
	    aside;

	parse_opts(argc, argv);
	rs = opt.seed * 2 + 1;
	printf("crashtest: seed %llu, %d chats, %d kills\n", (unsigned long long)opt.seed, opt.chats, opt.kills);
	fflush(stdout);
	signal(SIGPIPE, SIG_IGN);
	if (sodium_init() < 0 || curl_global_init(CURL_GLOBAL_DEFAULT))
		return 2;
	crypto_sign_keypair(pk, sk);
	if (fixture_dir(dir, sizeof(dir), "crash"))
		return 2;
	snprintf(db, sizeof(db), "%s/crash.db", dir);
	snprintf(logpath, sizeof(logpath), "%s/serve.log", dir);
	/* the file exists before the service and the clients open it */
	if (store_open(&s, db))
		return 2;
	store_free(s);
	s = NULL;
	if (fake_tg_start(&ftg, TG_TOKEN, "gamebot_crash_bot") || fake_dc_start(&fdc, DC_TOKEN))
		return 2;
	port = free_port();
	snprintf(url_tg, sizeof(url_tg), "http://127.0.0.1:%d/telegram", port);
	snprintf(url_dc, sizeof(url_dc), "http://127.0.0.1:%d/discord", port);
	snprintf(url_health, sizeof(url_health), "http://127.0.0.1:%d/healthz", port);
	chats = calloc((size_t)opt.chats, sizeof(*chats));
	for (int i = 0; i < opt.chats; i++) {
		struct chat *ch = &chats[i];

		ch->idx = i;
		ch->dc = i % 2;
		ch->game = (i / 2) % 4;
		if (ch->dc)
			snprintf(ch->id, sizeof(ch->id), "%d", 410000000 + i);
		else
			snprintf(ch->id, sizeof(ch->id), "%d", -100700000 - i);
		for (int k = 0; k < MAX_SEATS; k++)
			snprintf(ch->users[k], sizeof(ch->users[k]), "%d", 2000000 + i * 10 + k);
		if (!ch->dc)
			fake_tg_member(ftg, ch->id, ch->users[0], "creator");
	}
	c = curl_easy_init();
	t0 = now_ms();
	start_service();
	if (!wait_healthy(c, 20000)) {
		fail("the service did not start (see %s)", logpath);
		goto out;
	}
	cl = calloc((size_t)opt.threads, sizeof(*cl));
	for (int i = 0; i < opt.threads; i++) {
		cl[i].first = i;
		cl[i].step = opt.threads;
		cl[i].rs = opt.seed * 7919 + (uint64_t)i * 104729 + 1;
		pthread_create(&cl[i].th, NULL, client_main, &cl[i]);
	}

	/* the kills: at random moments, each once the service answered again */
	for (kills = 0; kills < opt.kills; kills++) {
		sleep_ms(100 + (int)(rnd(&rs) % 900));
		kill(service, SIGKILL);
		waitpid(service, &status, 0);
		/*
		 * The dead service's last calls may still be on their way into
		 * the fakes (on a loaded machine a fake's thread reads them
		 * after the process is gone): the mark counts them, or their
		 * repeat after the restart looks like a message posted twice.
		 */
		if (!fake_tg_settle(ftg, 10000) || !fake_dc_settle(fdc, 10000))
			fail("the fakes still had connections 10 s after kill %d", kills + 1);
		tg_at_kill[kills] = fake_tg_count(ftg, NULL);
		dc_at_kill[kills] = fake_dc_count(fdc, NULL, NULL);
		start_service();
		if (!wait_healthy(c, 20000)) {
			fail("the service did not come back after kill %d (see %s)", kills + 1, logpath);
			kills++;
			break;
		}
	}
	tk = now_ms();
	atomic_store(&killing, 0);
	printf("crashtest: %d kills in %.1f s, %d updates so far; playing every game to its end\n", kills,
	       (double)(tk - t0) / 1000, nupd);
	fflush(stdout);

	/* every chat plays its last game to the end: a table that never ends is stuck */
	for (bool all = false; !all;) {
		all = true;
		for (int i = 0; i < opt.chats; i++)
			all &= chats[i].done;
		if (!all && now_ms() - tk > 600000) {
			fail("tables still open after 10 minutes of play: stuck");
			break;
		}
		if (!all)
			sleep_ms(50);
	}
	atomic_store(&stop_clients, 1);
	for (int i = 0; i < opt.threads; i++)
		pthread_join(cl[i].th, NULL);
	free(cl);
	tf = now_ms();

	/* the outbox drains (a claim caught by a kill waits out its lease) */
	if (store_open(&s, db))
		return 2;
	do {
		pending = aside = 0;
		store_out_count(s, NULL, &pending, &aside, NULL);
		if (pending)
			sleep_ms(100);
	} while (pending && now_ms() - tf < 120000);
	store_free(s);
	s = NULL;
	printf("crashtest: games over in %.1f s, outbox drained in %.1f s more\n", (double)(tf - tk) / 1000,
	       (double)(now_ms() - tf) / 1000);
	kill(service, SIGTERM);
	waitpid(service, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("the service did not stop cleanly on SIGTERM");
	if (pending || aside)
		fail("%d outbox rows never reached the platform, %d set aside", pending, aside);

	/* the checks */
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fail("cannot open %s", db);
		goto out;
	}
	{
		sqlite3_stmt *q = NULL;

		sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &q, NULL);
		if (sqlite3_step(q) != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(q, 0), "ok"))
			fail("PRAGMA integrity_check: %s",
			     sqlite3_column_text(q, 0) ? (const char *)sqlite3_column_text(q, 0) : "no answer");
		sqlite3_finalize(q);
	}
	finished = scalar(h, "SELECT count(*) FROM tables WHERE status = 2");
	open = scalar(h, "SELECT count(*) FROM tables WHERE status <> 2");
	if (open)
		fail("%d tables never finished", open);
	moves_checked = check_moves(h);
	replays = check_replays(h);
	sqlite3_close(h);
	h = NULL;
	tg_checked = check_telegram(&repeats);
	dc_checked = check_discord(&repeats);
	/* `gamebot audit`, as an operator runs it: its lines kept beside the service's log */
	{
		char auditlog[sizeof(dir) + 16];
		pid_t pid;

		snprintf(auditlog, sizeof(auditlog), "%s/audit.log", dir);
		pid = spawn(opt.bin, (char *const[]){ (char *)opt.bin, "audit", "--db", db, NULL }, NULL, auditlog,
			    false);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail("gamebot audit: the coins ledger breaks its rules (status %#x): %s", status, auditlog);
	}
	{
		int per_game[4] = { 0 };

		if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
			for (int g = 0; g < 4; g++) {
				sqlite3_stmt *q = NULL;

				sqlite3_prepare_v2(h, "SELECT count(*) FROM tables WHERE game = ? AND status = 2", -1, &q,
						   NULL);
				sqlite3_bind_text(q, 1, games[g], -1, SQLITE_STATIC);
				if (sqlite3_step(q) == SQLITE_ROW)
					per_game[g] = sqlite3_column_int(q, 0);
				sqlite3_finalize(q);
				if (!per_game[g])
					fail("no game of %s was played to its end", games[g]);
			}
			sqlite3_close(h);
			h = NULL;
		}
		printf("crashtest: %d chats (%d Telegram, %d Discord), %d updates (%lld posts, %lld resent), "
		       "%d moves checked (and %d by computers), %d kills\n",
		       opt.chats, (opt.chats + 1) / 2, opt.chats / 2, nupd, (long long)atomic_load(&posts),
		       (long long)atomic_load(&resent), moves_checked, computer_moves, kills);
		printf("crashtest: %d tables finished (snakes %d, ludo %d, baghchal %d, callbreak %d), %d replays "
		       "checked, %d Telegram and %d Discord messages checked, %d repeats across a kill\n",
		       finished, per_game[0], per_game[1], per_game[2], per_game[3], replays, tg_checked, dc_checked,
		       repeats);
	}
out:
	printf("crashtest: %.1f s, seed %llu: %s\n", (double)(now_ms() - t0) / 1000, (unsigned long long)opt.seed,
	       failures ? "FAILED" : "ok");
	if (failures)
		printf("crashtest: the same choices again (the dice are the service's own): %s --chats %d --kills %d --threads %d --seed %llu (service log %s)\n",
		       argv[0], opt.chats, opt.kills, opt.threads, (unsigned long long)opt.seed, logpath);
	if (h)
		sqlite3_close(h);
	if (service > 0 && !kill(service, 0)) {
		kill(service, SIGKILL);
		waitpid(service, &status, 0);
	}
	fake_tg_free(ftg);
	fake_dc_free(fdc);
	curl_easy_cleanup(c);
	if (!failures && !opt.keep) {
		if (fixture_rm(dir))
			fprintf(stderr, "crashtest: could not remove %s\n", dir);
	}
	free(chats);
	free(upds);
	return failures ? 1 : 0;
}
