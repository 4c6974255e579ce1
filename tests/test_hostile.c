/*
 * test_hostile.c - hostile chats against the real `gamebot serve`, offline:
 * the binary runs with the Telegram and Discord adapters against the fake
 * platform servers (tests/fake_telegram.c, tests/fake_discord.c) on
 * 127.0.0.1, and updates are POSTed to its webhooks as the platforms send
 * them (Discord's signed with a test keypair).
 *
 * Covered:
 *   - a user in one chat can never act on another chat's table: chat and
 *     user come from the platform payload only, and button data naming
 *     another chat's table is refused (Telegram callback_data in a group and
 *     in a private chat, Telegram inline-mode chosen results, Discord
 *     custom_id), while the same press in the table's own chat is taken;
 *   - names, arguments and button data of any size and encoding (64 KiB,
 *     invalid UTF-8, control characters, RTL overrides, zero-width and
 *     combining characters, wide characters) break neither a board (every
 *     line at most 40 columns, messages within the platforms' limits), nor
 *     a log line (one line, no control characters), nor the store;
 *   - a flood from one chat does not slow another chat's replies through
 *     the webhook: the other chat's replies are timed and counted.
 */
#define _XOPEN_SOURCE 700 /* wcwidth() */
#include <curl/curl.h>
#include <jansson.h>
#include <locale.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <cmocka.h>

#include "bot/base/log.h"
#include "games/game.h"
#include "games/strbuf.h"
#include "games/utf8.h"
#include "store/store.h"
#include "tests/fake_discord.h"
#include "tests/fake_telegram.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TG_TOKEN "6161:hostile-token"
#define TG_SECRET "hostile-secret"
#define DC_APP "1000"
#define DC_TOKEN "hostile-bot-token"

struct fix {
	char dir[64], db[128], log[128];
	char url_tg[96], url_dc[96], url_health[96];
	struct fake_tg *tg;
	struct fake_dc *dc;
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	pid_t pid;
	long long next_update;
	unsigned seq;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	if (arg)
		sb_addn(arg, p, size * n);
	return size * n;
}

static int teardown(void **state);

static int setup(void **state)
{
	struct fix *x = calloc(1, sizeof(*x));
	char listen[64], hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	struct store *s = NULL;
	int port;

	if (!x || sodium_init() < 0)
		return -1;
	if (fixture_dir(x->dir, sizeof(x->dir), "hostile"))
		return -1;
	snprintf(x->db, sizeof(x->db), "%s/h.db", x->dir);
	snprintf(x->log, sizeof(x->log), "%s/serve.log", x->dir);
	if (store_open(&s, x->db))
		return -1;
	store_free(s);
	crypto_sign_keypair(x->pk, x->sk);
	sodium_bin2hex(hex, sizeof(hex), x->pk, sizeof(x->pk));
	if (fake_tg_start(&x->tg, TG_TOKEN, "gamebot_hostile_bot") || fake_dc_start(&x->dc, DC_TOKEN))
		return -1;
	port = free_port();
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	snprintf(x->url_tg, sizeof(x->url_tg), "http://127.0.0.1:%d/telegram", port);
	snprintf(x->url_dc, sizeof(x->url_dc), "http://127.0.0.1:%d/discord", port);
	snprintf(x->url_health, sizeof(x->url_health), "http://127.0.0.1:%d/healthz", port);
	x->next_update = 500000;
	{
		char e_db[160], e_listen[96], e_api_tg[160], e_api_dc[160], e_pk[160];
		const char *env[] = {
			"GAMEBOT_CONFIG=/dev/null", e_db, e_listen, "TELEGRAM_TOKEN=" TG_TOKEN,
			"TELEGRAM_SECRET=" TG_SECRET, e_api_tg, "TELEGRAM_MODE=webhook",
			"GAMEBOT_TELEGRAM_PACING=off", "DISCORD_APP_ID=" DC_APP, e_pk,
			"DISCORD_TOKEN=" DC_TOKEN, e_api_dc, NULL
		};

		snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", x->db);
		snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=%s", listen);
		snprintf(e_api_tg, sizeof(e_api_tg), "TELEGRAM_API_URL=%s", fake_tg_url(x->tg));
		snprintf(e_api_dc, sizeof(e_api_dc), "DISCORD_API_URL=%s", fake_dc_url(x->dc));
		snprintf(e_pk, sizeof(e_pk), "DISCORD_PUBLIC_KEY=%s", hex);
		x->pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, x->log, false);
	}
	*state = x;
	if (x->pid < 0 || !wait_serving(x->pid, x->url_health, 20000)) {
		char text[4096];
		FILE *f = fopen(x->log, "r");
		size_t n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;

		text[n] = '\0';
		if (f)
			fclose(f);
		fprintf(stderr, "gamebot serve did not answer %s; it said:\n%s\n", x->url_health, text);
		teardown(state);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	struct fix *x = *state;
	int rc;
	int status = 0;

	kill(x->pid, SIGTERM);
	waitpid(x->pid, &status, 0);
	fake_tg_free(x->tg);
	fake_dc_free(x->dc);
	rc = fixture_rm(x->dir);
	free(x);
	return rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ---- requests as the platforms send them ---- */

static long post(const char *url, struct curl_slist *h, const char *body, size_t len, struct strbuf *answer)
{
	CURL *c = curl_easy_init();
	long code = 0;

	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, answer);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	return code;
}

/* POST raw bytes to /telegram with the secret; returns the status. */
static long tg_raw(struct fix *x, const char *body, size_t len)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	long code;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " TG_SECRET);
	code = post(x->url_tg, h, body, len, NULL);
	curl_slist_free_all(h);
	return code;
}

/* POST an update (consumed; its update_id set here) to /telegram. */
static long tg_send(struct fix *x, json_t *u)
{
	char *body;
	long code;

	json_object_set_new(u, "update_id", json_integer(x->next_update++));
	body = json_dumps(u, JSON_COMPACT);
	json_decref(u);
	assert_non_null(body);
	code = tg_raw(x, body, strlen(body));
	free(body);
	return code;
}

static json_t *tg_user(const char *user, const char *name)
{
	return json_pack("{sIss}", "id", (json_int_t)strtoll(user, NULL, 10), "first_name", name);
}

static json_t *tg_chat(const char *chat)
{
	long long id = strtoll(chat, NULL, 10);

	return json_pack("{sIss}", "id", (json_int_t)id, "type", id < 0 ? "supergroup" : "private");
}

static long tg_text(struct fix *x, const char *chat, const char *user, const char *name, const char *text)
{
	return tg_send(x, json_pack("{s{sIsososs}}", "message", "message_id", (json_int_t)x->next_update,
				    "from", tg_user(user, name), "chat", tg_chat(chat), "text", text));
}

static long tg_press(struct fix *x, const char *chat, const char *user, const char *data)
{
	char cq[32];

	snprintf(cq, sizeof(cq), "cq%lld", x->next_update);
	return tg_send(x, json_pack("{s{sssos{sIso}ssss}}", "callback_query", "id", cq, "from",
				    tg_user(user, "P"), "message", "message_id", (json_int_t)100, "chat",
				    tg_chat(chat), "chat_instance", "1", "data", data));
}

static long tg_chosen(struct fix *x, const char *user, const char *result_id)
{
	return tg_send(x, json_pack("{s{sssoss}}", "chosen_inline_result", "result_id", result_id, "from",
				    tg_user(user, "P"), "query", ""));
}

/* POST an interaction (consumed) to /discord, signed; the answer into *answer when not NULL. */
static long dc_send(struct fix *x, json_t *ia, struct strbuf *answer)
{
	char *body = json_dumps(ia, JSON_COMPACT), ts[32], hdr[200], sig[2 * crypto_sign_BYTES + 1];
	unsigned char bin[crypto_sign_BYTES];
	struct strbuf msg = { 0 };
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct timespec now;
	long code;

	json_decref(ia);
	assert_non_null(body);
	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(ts, sizeof(ts), "%lld", (long long)now.tv_sec);
	sb_add(&msg, ts);
	sb_add(&msg, body);
	crypto_sign_detached(bin, NULL, (const unsigned char *)sb_str(&msg), msg.len, x->sk);
	sodium_bin2hex(sig, sizeof(sig), bin, sizeof(bin));
	snprintf(hdr, sizeof(hdr), "X-Signature-Ed25519: %s", sig);
	h = curl_slist_append(h, hdr);
	snprintf(hdr, sizeof(hdr), "X-Signature-Timestamp: %s", ts);
	h = curl_slist_append(h, hdr);
	code = post(x->url_dc, h, body, strlen(body), answer);
	curl_slist_free_all(h);
	sb_release(&msg);
	free(body);
	return code;
}

static json_t *dc_interaction(struct fix *x, const char *channel, const char *user, const char *name, int type,
			      json_t *data)
{
	char id[32], tok[48];
	struct timespec now;
	uint64_t ms;

	clock_gettime(CLOCK_REALTIME, &now);
	ms = (uint64_t)((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 - 1420070400000LL);
	snprintf(id, sizeof(id), "%llu", (unsigned long long)((ms << 22) | (++x->seq & 0x3fffff)));
	snprintf(tok, sizeof(tok), "tok-%s", id);
	return json_pack("{sisssssssssss{s{ssss}ss}so}", "type", type, "id", id, "application_id", DC_APP,
			 "token", tok, "channel_id", channel, "guild_id", "5000", "member", "user", "id", user,
			 "username", name, "permissions", "0", "data", data);
}

static long dc_slash(struct fix *x, const char *channel, const char *user, const char *name, const char *cmd,
		     const char *opt, const char *value)
{
	json_t *options = json_array();

	if (opt)
		json_array_append_new(options, json_pack("{sssiss}", "name", opt, "type", 3, "value", value));
	return dc_send(x,
		       dc_interaction(x, channel, user, name, 2,
				      json_pack("{sssssiso}", "id", "1", "name", cmd, "type", 1, "options", options)),
		       NULL);
}

static long dc_press(struct fix *x, const char *channel, const char *user, const char *custom_id)
{
	json_t *ia = dc_interaction(x, channel, user, user, 3,
				    json_pack("{sssi}", "custom_id", custom_id, "component_type", 2));

	json_object_set_new(ia, "message", json_pack("{sssiss}", "id", "700", "flags", 0, "content", ""));
	return dc_send(x, ia, NULL);
}

/* ---- the store, read only ---- */

struct tstate {
	int64_t table;
	int status, moves, version, turn; /* turn: seat to move, -1 none */
};

static struct tstate table_of(struct fix *x, const char *platform, const char *chat)
{
	struct tstate t = { .status = -1, .turn = -1 };
	sqlite3 *h;
	sqlite3_stmt *q;

	assert_int_equal(sqlite3_open_v2(x->db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_busy_timeout(h, 5000);
	assert_int_equal(sqlite3_prepare_v2(h,
					    "SELECT t.id, t.status, t.version, t.game, t.state,"
					    " (SELECT count(*) FROM moves m WHERE m.table_id = t.id)"
					    " FROM tables t JOIN chats c ON c.id = t.chat_id"
					    " WHERE c.platform = ? AND c.chat = ? ORDER BY t.id DESC LIMIT 1",
					    -1, &q, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(q, 1, platform, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 2, chat, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW) {
		const struct gb_game *g = gb_game_find((const char *)sqlite3_column_text(q, 3));
		json_error_t jerr;
		json_t *w = sqlite3_column_text(q, 4) ? json_loads((const char *)sqlite3_column_text(q, 4), 0, &jerr)
						       : NULL;

		t.table = sqlite3_column_int64(q, 0);
		t.status = sqlite3_column_int(q, 1);
		t.version = sqlite3_column_int(q, 2);
		t.moves = sqlite3_column_int(q, 5);
		if (g && w && t.status == 1) {
			void *st = calloc(1, g->state_size);

			assert_int_equal(g->from_json(st, json_object_get(w, "game")), GB_OK);
			t.turn = g->turn(st);
			free(st);
		}
		json_decref(w);
	}
	sqlite3_finalize(q);
	sqlite3_close(h);
	return t;
}

/* The platform user at seat of table. */
static void seat_user(struct fix *x, int64_t table, int seat, char *buf, size_t n)
{
	sqlite3 *h;
	sqlite3_stmt *q;

	buf[0] = '\0';
	assert_int_equal(sqlite3_open_v2(x->db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_prepare_v2(h, "SELECT user_id FROM seats WHERE table_id = ? AND seat = ?", -1, &q, NULL);
	sqlite3_bind_int64(q, 1, table);
	sqlite3_bind_int(q, 2, seat);
	if (sqlite3_step(q) == SQLITE_ROW)
		snprintf(buf, n, "%s", (const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	sqlite3_close(h);
}

static void assert_unchanged(const struct tstate *a, const struct tstate *b)
{
	assert_int_equal(a->table, b->table);
	assert_int_equal(a->moves, b->moves);
	assert_int_equal(a->version, b->version);
}

/* A game of snakes opened and started in chat by two users. */
static void tg_snakes(struct fix *x, const char *chat, const char *u1, const char *u2)
{
	assert_int_equal(tg_text(x, chat, u1, "One", "/new snakes"), 200);
	assert_int_equal(tg_text(x, chat, u2, "Two", "/join"), 200);
	assert_int_equal(tg_text(x, chat, u1, "One", "/start"), 200);
	assert_int_equal(table_of(x, "telegram", chat).status, 1);
}

static void dc_snakes(struct fix *x, const char *channel, const char *u1, const char *u2)
{
	assert_int_equal(dc_slash(x, channel, u1, "one", "new", "game", "snakes"), 200);
	assert_int_equal(dc_slash(x, channel, u2, "two", "join", NULL, NULL), 200);
	assert_int_equal(dc_slash(x, channel, u1, "one", "start", NULL, NULL), 200);
	assert_int_equal(table_of(x, "discord", channel).status, 1);
}

/* ---- a user in one chat cannot act on another chat's table ---- */

static void cross_chat_refused(void **state)
{
	struct fix *x = *state;
	struct tstate a, b, a2, b2;
	char data[80], mover[32], other[32];

	/* Telegram: groups -2001 (users 11, 12) and -2002 (users 21, 22) */
	tg_snakes(x, "-2001", "11", "12");
	tg_snakes(x, "-2002", "21", "22");
	a = table_of(x, "telegram", "-2001");
	b = table_of(x, "telegram", "-2002");
	assert_true(b.turn >= 0);
	seat_user(x, b.table, b.turn, mover, sizeof(mover));
	snprintf(other, sizeof(other), "%s", strcmp(mover, "21") ? "21" : "22");
	snprintf(data, sizeof(data), "%lld:%d:roll", (long long)b.table, b.moves);

	/* B's player to move presses B's button, but in chat A */
	assert_int_equal(tg_press(x, "-2001", mover, data), 200);
	/* A's player presses B's button in A, in private, and picks it in inline mode */
	assert_int_equal(tg_press(x, "-2001", "11", data), 200);
	assert_int_equal(tg_press(x, "11", "11", data), 200);
	assert_int_equal(tg_chosen(x, "11", data), 200);
	/* B's player not to move picks it in inline mode */
	assert_int_equal(tg_chosen(x, other, data), 200);
	/* typed in chat A by B's player: A's table is not theirs */
	assert_int_equal(tg_text(x, "-2001", mover, "Mover", "/roll"), 200);
	a2 = table_of(x, "telegram", "-2001");
	b2 = table_of(x, "telegram", "-2002");
	assert_unchanged(&a, &a2);
	assert_unchanged(&b, &b2);

	/* the same press in B's own chat is taken */
	assert_int_equal(tg_press(x, "-2002", mover, data), 200);
	b2 = table_of(x, "telegram", "-2002");
	assert_int_equal(b2.moves, b.moves + 1);

	/* Discord: channels 3001 (users 31, 32) and 3002 (users 41, 42) */
	dc_snakes(x, "3001", "31", "32");
	dc_snakes(x, "3002", "41", "42");
	a = table_of(x, "discord", "3001");
	b = table_of(x, "discord", "3002");
	seat_user(x, b.table, b.turn, mover, sizeof(mover));
	snprintf(data, sizeof(data), "%lld:%d:roll", (long long)b.table, b.moves);
	assert_int_equal(dc_press(x, "3001", mover, data), 200);
	assert_int_equal(dc_press(x, "3001", "31", data), 200);
	/* a Telegram table named from Discord */
	{
		struct tstate t = table_of(x, "telegram", "-2002"), t2;
		char tdata[80];

		snprintf(tdata, sizeof(tdata), "%lld:%d:roll", (long long)t.table, t.moves);
		assert_int_equal(dc_press(x, "3002", mover, tdata), 200);
		t2 = table_of(x, "telegram", "-2002");
		assert_unchanged(&t, &t2);
	}
	a2 = table_of(x, "discord", "3001");
	b2 = table_of(x, "discord", "3002");
	assert_unchanged(&a, &a2);
	assert_unchanged(&b, &b2);
	/* the same press in its own channel is taken */
	assert_int_equal(dc_press(x, "3002", mover, data), 200);
	b2 = table_of(x, "discord", "3002");
	assert_int_equal(b2.moves, b.moves + 1);
}

/* ---- names, arguments and button data of any size and encoding ---- */

/* Display columns of one line of UTF-8 as wcwidth() counts them; -1 for a control character. */
static int columns(const char *s, size_t n)
{
	mbstate_t ps;
	int cols = 0;

	memset(&ps, 0, sizeof(ps));
	while (n > 0) {
		wchar_t wc;
		size_t k = mbrtowc(&wc, s, n, &ps);
		int w;

		if (k == (size_t)-1 || k == (size_t)-2 || k == 0)
			return -1;
		w = wcwidth(wc);
		if (w < 0)
			return -1;
		cols += w;
		s += k;
		n -= k;
	}
	return cols;
}

/* Telegram's HTML entities back to text (the board is sent as <pre>). */
static void unescape(const char *in, struct strbuf *out)
{
	static const struct { const char *ent, *ch; } map[] = {
		{ "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" }, { "&quot;", "\"" }, { "&#39;", "'" },
	};

	while (*in) {
		size_t i;

		for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (!strncmp(in, map[i].ent, strlen(map[i].ent)))
				break;
		if (i < sizeof(map) / sizeof(map[0])) {
			sb_add(out, map[i].ch);
			in += strlen(map[i].ent);
		} else {
			sb_addn(out, in, 1);
			in++;
		}
	}
}

static size_t code_points(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* A character a log line must not carry: C0/C1 controls, DEL, line separators, bidi controls. */
static bool bad_in_log(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Every line of a board (between the fences) fits 40 columns and holds no control character. */
static void check_board(const char *where, const char *text, const char *open, const char *close)
{
	const char *p = strstr(text, open), *end;

	if (!p)
		return;
	p += strlen(open);
	end = strstr(p, close);
	if (!end)
		fail_msg("%s: board not closed: %.80s", where, text);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int cols = columns(p, len);

		if (cols < 0 || cols > 40)
			fail_msg("%s: a board line of %d columns: '%.*s'", where, cols, (int)len, p);
		for (const char *c = p; c < p + len;) {
			uint32_t cp;
			size_t k = utf8_decode(c, &cp);

			if (!k || bad_in_log(cp))
				fail_msg("%s: a board line with U+%04X: '%.*s'", where, (unsigned)cp, (int)len, p);
			c += k;
		}
		p += len + (nl ? 1 : 0);
	}
}

static void check_log(struct fix *x)
{
	FILE *f = fopen(x->log, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lines = 0;

	assert_non_null(f);
	while ((n = getline(&line, &cap, f)) > 0) {
		const char *p = line;

		lines++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (strncmp(line, "20", 2))
			fail_msg("log line %d is not a log line of its own: %.80s", lines, line);
		if (!utf8_valid(line))
			fail_msg("log line %d is not UTF-8: %.80s", lines, line);
		while (*p) {
			uint32_t cp;
			size_t k = utf8_decode(p, &cp);

			if (!k || bad_in_log(cp))
				fail_msg("log line %d carries U+%04X: %.80s", lines, (unsigned)cp, line);
			p += k ? k : 1;
		}
	}
	free(line);
	fclose(f);
	assert_true(lines > 0);
}

/* Wait until neither fake received anything for 300 ms. */
static void settle(struct fix *x)
{
	int last = -1;

	for (int i = 0; i < 100; i++) {
		int n = fake_tg_count(x->tg, NULL) + fake_dc_count(x->dc, NULL, NULL);

		if (n == last)
			return;
		last = n;
		usleep(300000);
	}
}

static void hostile_strings(void **state)
{
	struct fix *x = *state;
	struct strbuf big = { 0 }, cbig = { 0 }, name = { 0 };
	const char *nasty[8];
	sqlite3 *h;
	sqlite3_stmt *q;
	int tables = 0;

	setlocale(LC_CTYPE, "C.UTF-8");
	while (big.len < 16384)
		sb_add(&big, "ab\xc3\xa9\xe0\xa4\x95"); /* ASCII, é, क */
	for (int i = 0; i < 2000; i++)
		sb_add(&cbig, "e\xcc\x81\xe2\x80\x8b"); /* e, a combining acute, a zero-width space */
	nasty[0] = sb_str(&big); /* 16 KiB: a body that still fits the listener's 64 KiB */
	nasty[1] = "\xe2\x80\xae" "evil" "\xe2\x80\xac" "\xe2\x81\xa7" "gnp.exe"; /* RTL override, isolates */
	nasty[2] = "a\x01\x1b[31mred\r\nnext\tline\x7f";
	nasty[3] = sb_str(&cbig);
	nasty[4] = "\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2"
		   "\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2"
		   "\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2\xe6\xbc\xa2"; /* 漢 x24 */
	nasty[5] = "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x91\xa7" "fam\xe2\x80\xa8ily\xe2\x80\xa9";
	nasty[6] = "<b>&amp;</b>`````\\\"";
	nasty[7] = "\xe2\x80\x8b\xe2\x80\x8b\xe2\x80\x8b\xef\xbb\xbf"; /* nothing but zero-width characters */

	/* Telegram: names at a Ludo table, four at a time, then the table stopped */
	for (int t = 0; t < 2; t++) {
		assert_int_equal(tg_text(x, "-5001", "51", nasty[t * 4], "/new ludo"), 200);
		for (int k = 1; k < 4; k++) {
			char user[16];

			snprintf(user, sizeof(user), "%d", 51 + k);
			assert_int_equal(tg_text(x, "-5001", user, nasty[t * 4 + k], "/join"), 200);
		}
		assert_int_equal(tg_text(x, "-5001", "51", nasty[t * 4], "/start"), 200);
		assert_int_equal(table_of(x, "telegram", "-5001").status, 1);
		assert_int_equal(tg_text(x, "-5001", "52", nasty[t * 4 + 1], "/roll"), 200);
		assert_int_equal(tg_text(x, "-5001", "51", nasty[t * 4], "/stop"), 200);
		tables++;
	}
	/* arguments and button data */
	for (int i = 0; i < 8; i++) {
		sb_release(&name);
		sb_add(&name, "/new ");
		sb_add(&name, nasty[i]);
		assert_int_equal(tg_text(x, "-5002", "61", nasty[i], sb_str(&name)), 200);
		sb_release(&name);
		sb_add(&name, "/join ");
		sb_add(&name, nasty[i]);
		assert_int_equal(tg_text(x, "-5002", "62", nasty[i], sb_str(&name)), 200);
		sb_release(&name);
		sb_add(&name, "/");
		sb_add(&name, nasty[i]);
		assert_int_equal(tg_text(x, "-5002", "62", "x", sb_str(&name)), 200);
		assert_int_equal(tg_press(x, "-5002", "61", nasty[i]), 200);
		sb_release(&name);
		sb_add(&name, "1:0:");
		sb_add(&name, nasty[i]);
		assert_int_equal(tg_press(x, "-5002", "61", sb_str(&name)), 200);
		assert_int_equal(tg_chosen(x, "61", sb_str(&name)), 200);
	}
	/* a 64 KiB name: the body is over the listener's limit, refused before any parsing */
	{
		struct strbuf huge = { 0 };

		while (huge.len <= 65536)
			sb_add(&huge, "ab\xc3\xa9\xe0\xa4\x95");
		assert_int_equal(tg_text(x, "-5002", "61", sb_str(&huge), "/new snakes"), 413);
		assert_int_equal(dc_slash(x, "7001", "71", sb_str(&huge), "new", "game", "snakes"), 413);
		sb_release(&huge);
	}
	/* bodies that are not JSON or not UTF-8: refused, never a 5xx */
	{
		static const char raw1[] = "{\"update_id\":9,\"message\":{\"message_id\":1,\"from\":{\"id\":5,"
					   "\"first_name\":\"\xff\xfe\"},\"chat\":{\"id\":-5003,\"type\":\"group\"},"
					   "\"text\":\"/new snakes\"}}";
		static const char raw2[] = "{\"update_id\":10,\"message\":{\"message_id\":1,\"from\":{\"id\":5,"
					   "\"first_name\":\"\\ud800\"},\"chat\":{\"id\":-5003,\"type\":\"group\"},"
					   "\"text\":\"/new snakes\\u0000\\u202e\"}}";
		long c1 = tg_raw(x, raw1, sizeof(raw1) - 1), c2 = tg_raw(x, raw2, sizeof(raw2) - 1);

		assert_true(c1 >= 200 && c1 < 500);
		assert_true(c2 >= 200 && c2 < 500);
	}

	/* Discord: names, option values and custom ids */
	for (int i = 0; i < 8; i++) {
		assert_int_equal(dc_slash(x, "7001", "71", nasty[i], "new", "game", i % 2 ? "ludo" : nasty[i]), 200);
		assert_int_equal(dc_slash(x, "7001", "72", nasty[(i + 1) % 8], "join", NULL, NULL), 200);
		assert_int_equal(dc_slash(x, "7001", "73", nasty[(i + 2) % 8], "join", NULL, NULL), 200);
		assert_int_equal(dc_slash(x, "7001", "71", nasty[i], "start", NULL, NULL), 200);
		assert_int_equal(dc_press(x, "7001", "72", nasty[i]), 200);
		sb_release(&name);
		sb_add(&name, "1:0:");
		sb_add(&name, nasty[i]);
		assert_int_equal(dc_press(x, "7001", "72", sb_str(&name)), 200);
		assert_int_equal(dc_slash(x, "7001", "71", nasty[i], "stop", NULL, NULL), 200);
	}
	tables += 4; /* the Ludo tables (a game named by garbage opens none) */
	/* ids that are not ids: never stored, never logged as given */
	{
		long c = dc_slash(x, "70\n01\xe2\x80\xae", "71", "x", "new", "game", "snakes");

		assert_true(c >= 200 && c < 500);
		c = dc_slash(x, "7002", "7\r\n1", "x", "new", "game", "snakes");
		assert_true(c >= 200 && c < 500);
	}
	settle(x);
	assert_int_equal(http_status(x->url_health, 2000), 200);

	/* every message within the platform's limits, every board line within 40 columns */
	for (int i = 0; i < fake_tg_count(x->tg, NULL); i++) {
		char method[64];
		json_t *b = fake_tg_call(x->tg, i, method, sizeof(method), NULL);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (text) {
			struct strbuf plain = { 0 };

			unescape(text, &plain);
			if (code_points(sb_str(&plain)) > 4096)
				fail_msg("telegram %s of %zu characters", method, code_points(sb_str(&plain)));
			check_board(method, sb_str(&plain), "<pre>", "</pre>");
			sb_release(&plain);
		}
		json_decref(b);
	}
	for (int i = 0; i < fake_dc_count(x->dc, NULL, NULL); i++) {
		char method[16], path[256];
		json_t *b = fake_dc_call(x->dc, i, method, sizeof(method), path, sizeof(path), NULL, 0, NULL);
		const char *text = json_string_value(json_object_get(b, "content"));

		if (text) {
			if (code_points(text) > 2000)
				fail_msg("discord %s %s of %zu characters", method, path, code_points(text));
			check_board(path, text, "```\n", "```");
		}
		json_decref(b);
	}

	/* the store: sound, and every name it kept is short, valid UTF-8 without controls */
	assert_int_equal(sqlite3_open_v2(x->db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(q, 0), "ok");
	sqlite3_finalize(q);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT name FROM seats UNION ALL SELECT chat FROM chats", -1, &q,
					    NULL),
			 SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(q, 0);

		assert_true(utf8_valid(s));
		assert_true(strlen(s) < 64);
		for (const char *p = s; *p; p++)
			assert_false((unsigned char)*p < 0x20 || *p == 0x7f);
	}
	sqlite3_finalize(q);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT count(*) FROM tables", -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(q, 0), tables);
	sqlite3_finalize(q);
	sqlite3_close(h);
	check_log(x);
	sb_release(&big);
	sb_release(&cbig);
	sb_release(&name);
}

/* A log message quoting hostile text is still one line without control characters. */
static void log_lines_stay_one_line(void **state)
{
	char path[] = "/tmp/gamebot-hostile-log-XXXXXX", text[512];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	struct fix x;
	ssize_t n;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	assert_true(dup2(fd, STDERR_FILENO) >= 0);
	gb_log("chat %s said %s", "-1\nFAKE 2026-01-01 gamebot: forged",
	       "\x01\x1b[31m\r\xc2\x85\xe2\x80\xa8\xe2\x80\xae" "evil\xe2\x81\xa6\x7f");
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	assert_true(n > 0);
	text[n] = '\0';
	assert_non_null(strstr(text, "forged"));
	assert_non_null(strstr(text, "evil"));
	memset(&x, 0, sizeof(x));
	snprintf(x.log, sizeof(x.log), "%s", path);
	check_log(&x);
	assert_ptr_equal(strchr(text, '\n'), text + n - 1);
	unlink(path);
}

/* ---- a flood from one chat does not slow another chat's replies ---- */

struct flood {
	struct fix *x;
	int first;
	atomic_int *ok, *sent;
};

static void *flood_main(void *arg)
{
	struct flood *f = arg;
	char user[16];

	for (int i = 0; i < 150; i++) {
		long long id = 900000 + f->first * 1000 + i;
		char body[400];
		struct curl_slist *h = curl_slist_append(NULL, "X-Telegram-Bot-Api-Secret-Token: " TG_SECRET);

		snprintf(user, sizeof(user), "%d", 81 + f->first);
		snprintf(body, sizeof(body),
			 "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%s,\"first_name\":"
			 "\"F\"},\"chat\":{\"id\":-6002,\"type\":\"supergroup\"},\"text\":\"/help\"}}",
			 id, id, user);
		h = curl_slist_append(h, "Content-Type: application/json");
		if (post(f->x->url_tg, h, body, strlen(body), NULL) == 200)
			atomic_fetch_add(f->ok, 1);
		atomic_fetch_add(f->sent, 1);
		curl_slist_free_all(h);
	}
	return NULL;
}

/* Calls of the fake addressed to chat (sendMessage, editMessageText, ...). */
static int calls_to(struct fix *x, long long chat)
{
	int n = 0;

	for (int i = 0; i < fake_tg_count(x->tg, NULL); i++) {
		json_t *b = fake_tg_call(x->tg, i, NULL, 0, NULL);

		n += json_integer_value(json_object_get(b, "chat_id")) == chat;
		json_decref(b);
	}
	return n;
}

/* Roll once in chat -6001 as whoever is to move; returns ms until the platform got the reply. */
static int64_t roll_timed(struct fix *x)
{
	struct tstate t = table_of(x, "telegram", "-6001");
	char mover[32];
	int before = calls_to(x, -6001);
	int64_t t0 = now_ms();

	assert_int_equal(t.status, 1);
	seat_user(x, t.table, t.turn, mover, sizeof(mover));
	assert_int_equal(tg_text(x, "-6001", mover, "Q", "/roll"), 200);
	while (calls_to(x, -6001) == before && now_ms() - t0 < 20000)
		usleep(2000);
	assert_int_equal(table_of(x, "telegram", "-6001").moves, t.moves + 1);
	return now_ms() - t0;
}

static void flood_isolated(void **state)
{
	struct fix *x = *state;
	struct flood f[4];
	pthread_t th[4];
	atomic_int ok = 0, sent = 0;
	int64_t quiet = 0, loud = 0;
	int rolls = 0, flood_replies;

	tg_snakes(x, "-6001", "91", "92");
	for (int i = 0; i < 5; i++) {
		int64_t ms = roll_timed(x);

		quiet = ms > quiet ? ms : quiet;
	}
	for (int i = 0; i < 4; i++) {
		f[i] = (struct flood){ .x = x, .first = i, .ok = &ok, .sent = &sent };
		assert_int_equal(pthread_create(&th[i], NULL, flood_main, &f[i]), 0);
	}
	/* while the flood lasts, the quiet chat keeps playing */
	while (atomic_load(&sent) < 600 && table_of(x, "telegram", "-6001").status == 1) {
		int64_t ms = roll_timed(x);

		loud = ms > loud ? ms : loud;
		rolls++;
	}
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	settle(x);
	flood_replies = calls_to(x, -6002);
	print_message("quiet chat: slowest reply %lld ms alone, %lld ms during a flood of %d updates "
		      "(%d rolls); the flood got %d replies\n",
		      (long long)quiet, (long long)loud, atomic_load(&sent), rolls, flood_replies);
	assert_int_equal(atomic_load(&ok), 600);
	assert_true(rolls >= 3);
	/* generous: a reply within two seconds while another chat floods */
	assert_true(loud < 2000);
	/* the flood was limited: the chat's budget per minute and one polite answer per user */
	assert_true(flood_replies >= 1);
	assert_true(flood_replies <= 120 + 4 + 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(cross_chat_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(hostile_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(flood_isolated, setup, teardown),
		cmocka_unit_test(log_lines_stay_one_line),
	};

	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
