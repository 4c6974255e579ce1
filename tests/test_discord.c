/*
 * test_discord.c - the Discord adapter end to end, offline: the real
 * listener, the adapter and its outbox worker run in-process against the
 * fake Discord API of tests/fake_discord.c on 127.0.0.1, and interactions
 * are signed with a test keypair and POSTed to /discord as Discord would.
 *
 * Covered: Discord's endpoint check (PING, and the bad signatures it sends
 * on purpose), forged, missing, replayed, stale and malformed requests all
 * refused with nothing changed; a whole Call Break game (one person, three
 * computers) through slash commands, buttons and the ephemeral hand; a Ludo
 * game between two people with autocomplete; answers within the request
 * (type 4, 7, ephemeral) and the rest as follow-ups, table edits in place
 * by id or through the original interaction's webhook, the fall back to a
 * channel message when the token expired, 429 with a fractional
 * retry_after (and global), 5xx retried, refusals given up; message and
 * component limits; the command set registered globally and in a guild.
 */
#include <curl/curl.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <pthread.h>
#include <setjmp.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/discord/pace.h"
#include "adapters/discord.h"
#include "adapters/outbox.h"
#include "bot/base/limit.h"
#include "bot/base/metrics.h"
#include "bot/commands.h"
#include "bot/commands/choices.h"
#include "bot/lang/i18n.h"
#include "games/strbuf.h"
#include "tests/fake_discord.h"
#include "tests/rawhttp.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define APP "1000"
#define BOT_TOKEN "bot-token-secret"
#define CHANNEL "4000"
#define GUILD "5000"
#define ALICE "111"
#define BOB "222"
#define ADMIN_PERMS "8"
#define MEMBER_PERMS "0"
#define NEXT_CHANNEL "4999"             /* assert_unchanged()'s own channel */

struct world {
	char dir[64];
	char db[128];
	struct config cfg;
	struct fake_dc *fake;
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	struct adapter_env env;
	struct outbox *outbox;
	void *self;
	struct http_server *http;
	char url[64];
	struct bot b;                   /* the test's own handle, to look at the store */
	pthread_t timers;
	atomic_int stop;
	uint64_t seq;                   /* snowflake counter */
	long long posts;                /* message ids the test hands out for type-4 answers */
	char table_msg[32];             /* the table message as Discord would show it now */
	int saved_err;                  /* standard error while the log goes to a file (log_to()), or -1 */
};

static void wake(void *arg)
{
	outbox_wake(arg);
}

/* The scheduler: computer turns fire as soon as they are due. */
static void *timer_main(void *arg)
{
	struct world *w = arg;
	struct bot b;

	memset(&b, 0, sizeof(b));
	b.cfg = w->env.bot;
	if (store_open(&b.store, w->db))
		return NULL;
	while (!atomic_load(&w->stop)) {
		int fired = bot_run_timers(&b, bot_now_ms(), BOT_TIMER_ALL);
		struct timespec ts = { 0, 2000000 };

		if (fired > 0)
			outbox_wake(w->outbox);
		else
			nanosleep(&ts, NULL);
	}
	store_free(b.store);
	return NULL;
}

/* The per-user rate limit the next world starts with (0: none). */
static int setup_rate;

static int setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct outbox_opts oo;
	char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];

	if (!w || sodium_init() < 0)
		return -1;
	if (fixture_dir(w->dir, sizeof(w->dir), "discord"))
		return -1;
	snprintf(w->db, sizeof(w->db), "%s/dc.db", w->dir);
	/* made before any worker opens it: two handles creating one new file at once may fail */
	if (store_open(&w->b.store, w->db))
		return -1;
	crypto_sign_keypair(w->pk, w->sk);
	sodium_bin2hex(hex, sizeof(hex), w->pk, sizeof(w->pk));
	if (fake_dc_start(&w->fake, BOT_TOKEN))
		return -1;
	config_init(&w->cfg);
	snprintf(w->cfg.db, sizeof(w->cfg.db), "%s", w->db);
	snprintf(w->cfg.discord_public_key, sizeof(w->cfg.discord_public_key), "%s", hex);
	snprintf(w->cfg.discord_app_id, sizeof(w->cfg.discord_app_id), APP);
	snprintf(w->cfg.discord_token, sizeof(w->cfg.discord_token), BOT_TOKEN);
	snprintf(w->cfg.discord_api, sizeof(w->cfg.discord_api), "%s/api/v10", fake_dc_url(w->fake));
	/* the fake serves below any prefix: strip it there by pointing at the root */
	snprintf(w->cfg.discord_api, sizeof(w->cfg.discord_api), "%s", fake_dc_url(w->fake));

	bot_config_init(&w->env.bot);
	w->env.bot.seed = 7;
	w->env.bot.rate_user_per_min = setup_rate;
	for (int i = 0; i < 3; i++)
		w->env.bot.bot_delay_ms[i] = 1;
	w->env.cfg = &w->cfg;
	w->env.db = w->db;
	outbox_opts_init(&oo);
	oo.poll_ms = 5;
	oo.backoff_ms = 20;
	oo.workers = 1;
	if (outbox_new(&w->outbox, &discord_adapter, w->db, &oo))
		return -1;
	w->env.wake = wake;
	w->env.wake_arg = w->outbox;
	if (discord_adapter.start(&w->env, &w->self) || outbox_run(w->outbox, w->self))
		return -1;
	if (fixture_listen(&discord_adapter, w->self, &w->http, w->url, sizeof(w->url)))
		return -1;
	w->b.cfg = w->env.bot;
	if (pthread_create(&w->timers, NULL, timer_main, w))
		return -1;
	w->posts = 700000000000000001LL;
	w->saved_err = -1;
	*state = w;
	return 0;
}

/* A world with a limit of five commands a minute per user (ten lookups). */
static int setup_limited(void **state)
{
	int rc;

	setup_rate = 5;
	rc = setup(state);
	setup_rate = 0;
	return rc;
}

static int teardown(void **state)
{
	struct world *w = *state;
	int rc;

	if (w->saved_err >= 0) {
		/* a test that failed while its log went to a file */
		dup2(w->saved_err, 2);
		close(w->saved_err);
	}
	atomic_store(&w->stop, 1);
	pthread_join(w->timers, NULL);
	http_stop(w->http);
	outbox_stop(w->outbox);
	discord_adapter.stop(w->self);
	store_free(w->b.store);
	fake_dc_free(w->fake);
	rc = fixture_rm(w->dir);
	free(w);
	return rc;
}

/* ---- requests as Discord sends them ---- */

/* A fresh snowflake id (made now). */
static void snowflake(struct world *w, char *buf, size_t n)
{
	uint64_t ms = (uint64_t)(bot_now_ms() - 1420070400000LL);

	snprintf(buf, n, "%llu", (unsigned long long)((ms << 22) | (++w->seq & 0x3fffff)));
}

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	sb_addn(arg, p, size * n);
	return size * n;
}

/*
 * POST body to /discord with the given signature and timestamp headers
 * (NULL: left out). Returns the status; *answer the parsed answer (may be
 * NULL).
 */
static long post_raw(struct world *w, const char *body, size_t len, const char *sig,
		     const char *ts, json_t **answer)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct strbuf in = { 0 }, hs = { 0 }, ht = { 0 };
	json_error_t jerr;
	long status = 0;

	if (sig) {
		sb_addf(&hs, "X-Signature-Ed25519: %s", sig);
		h = curl_slist_append(h, sb_str(&hs));
	}
	if (ts) {
		sb_addf(&ht, "X-Signature-Timestamp: %s", ts);
		h = curl_slist_append(h, sb_str(&ht));
	}
	curl_easy_setopt(c, CURLOPT_URL, w->url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (answer)
		*answer = json_loadb(sb_str(&in), in.len, 0, &jerr);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	sb_release(&in);
	sb_release(&hs);
	sb_release(&ht);
	return status;
}

/* The signature (hex) of ts + body with secret key sk. */
static void sign(const unsigned char *sk, const char *ts, const char *body, size_t len,
		 char hex[2 * crypto_sign_BYTES + 1])
{
	unsigned char sig[crypto_sign_BYTES];
	struct strbuf msg = { 0 };

	sb_add(&msg, ts);
	sb_addn(&msg, body, len);
	crypto_sign_detached(sig, NULL, (const unsigned char *)sb_str(&msg), msg.len, sk);
	sodium_bin2hex(hex, 2 * crypto_sign_BYTES + 1, sig, sizeof(sig));
	sb_release(&msg);
}

/* POST body signed properly, stamped now + skew_s. */
static long post_signed(struct world *w, const char *body, long skew_s, json_t **answer)
{
	char ts[32], sig[2 * crypto_sign_BYTES + 1];

	snprintf(ts, sizeof(ts), "%lld", (long long)(bot_now_ms() / 1000 + skew_s));
	sign(w->sk, ts, body, strlen(body), sig);
	return post_raw(w, body, strlen(body), sig, ts, answer);
}

/* POST a JSON interaction (consumed), signed; returns the status. */
static long send_json(struct world *w, json_t *ia, json_t **answer)
{
	char *body = json_dumps(ia, JSON_COMPACT);
	long status;

	json_decref(ia);
	assert_non_null(body);
	status = post_signed(w, body, 0, answer);
	free(body);
	return status;
}

static json_t *member(const char *user, const char *perms)
{
	return json_pack("{s{ssss}ss}", "user", "id", user, "username", user, "permissions", perms);
}

/* An interaction of type with data (consumed), by user; its id into id. */
static json_t *interaction(struct world *w, int type, const char *user, const char *perms,
			   json_t *data, char *id, size_t n)
{
	char tok[64];
	json_t *ia;

	snowflake(w, id, n);
	snprintf(tok, sizeof(tok), "tok-%s", id);
	ia = json_pack("{sisssssssssssoso}", "type", type, "id", id, "application_id", APP, "token",
		       tok, "channel_id", CHANNEL, "guild_id", GUILD, "member", member(user, perms),
		       "data", data);
	return ia;
}

/* A slash command: name and options "k=v" (integer when v is digits and k is tricks). */
static long slash(struct world *w, const char *user, const char *perms, const char *name,
		  const char *opts[], json_t **answer, char *id, size_t n)
{
	json_t *options = json_array();
	char idbuf[32];

	for (int i = 0; opts && opts[i]; i++) {
		const char *eq = strchr(opts[i], '=');
		char key[32];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - opts[i]), opts[i]);
		if (strcmp(key, "tricks") == 0)
			json_array_append_new(options, json_pack("{sssisI}", "name", key, "type", 4, "value",
								 (json_int_t)strtoll(eq + 1, NULL, 10)));
		else
			json_array_append_new(options,
					      json_pack("{sssiss}", "name", key, "type", 3, "value", eq + 1));
	}
	return send_json(w,
			 interaction(w, 2, user, perms,
				     json_pack("{sssssiso}", "id", "1", "name", name, "type", 1, "options",
					       options),
				     id ? id : idbuf, id ? n : sizeof(idbuf)),
			 answer);
}

/* A button press on message msg_id (flags 64 when ephemeral, with its content). */
static long press(struct world *w, const char *user, const char *custom_id, const char *msg_id,
		  bool ephemeral, const char *content, json_t **answer)
{
	char id[32];
	json_t *ia = interaction(w, 3, user, MEMBER_PERMS,
				 json_pack("{sssi}", "custom_id", custom_id, "component_type", 2), id,
				 sizeof(id));

	json_object_set_new(ia, "message",
			    json_pack("{sssiss}", "id", msg_id, "flags", ephemeral ? 64 : 0, "content",
				      content ? content : ""));
	return send_json(w, ia, answer);
}

static json_t *answer_data(json_t *a)
{
	return json_object_get(a, "data");
}

static int answer_type(json_t *a)
{
	return (int)json_integer_value(json_object_get(a, "type"));
}

static const char *answer_content(json_t *a)
{
	return json_string_value(json_object_get(answer_data(a), "content"));
}

static bool answer_ephemeral(json_t *a)
{
	return (json_integer_value(json_object_get(answer_data(a), "flags")) & 64) != 0;
}

/* Every custom_id of the buttons in components, as "cmd" (its command part) into out. */
static int button_cmds(const json_t *components, char out[][64], int max)
{
	const json_t *row, *c;
	size_t i, k;
	int n = 0;

	json_array_foreach(components, i, row) {
		json_array_foreach(json_object_get(row, "components"), k, c) {
			const char *id = json_string_value(json_object_get(c, "custom_id"));
			const char *p = id ? strchr(id, ':') : NULL;

			p = p ? strchr(p + 1, ':') : NULL;
			if (p && n < max)
				snprintf(out[n++], 64, "/%s", p + 1);
		}
	}
	return n;
}

/* The custom_id of the button whose command starts with cmd, into buf; false when none. */
static bool find_button(const json_t *components, const char *cmd, char *buf, size_t n)
{
	const json_t *row, *c;
	size_t i, k;

	json_array_foreach(components, i, row) {
		json_array_foreach(json_object_get(row, "components"), k, c) {
			const char *id = json_string_value(json_object_get(c, "custom_id"));
			const char *p = id ? strchr(id, ':') : NULL;

			p = p ? strchr(p + 1, ':') : NULL;
			if (p && strncmp(p + 1, cmd, strlen(cmd)) == 0) {
				snprintf(buf, n, "%s", id);
				return true;
			}
		}
	}
	return false;
}

/* Discord's limits on one message body: content, rows, buttons, custom ids. */
static void check_limits(const json_t *msg)
{
	const char *content = json_string_value(json_object_get(msg, "content"));
	const json_t *row, *c;
	size_t i, k;
	size_t units = 0;

	for (const unsigned char *p = (const unsigned char *)(content ? content : ""); *p; p++)
		units += (*p & 0xC0) != 0x80 ? ((*p >= 0xF0) ? 2 : 1) : 0;
	assert_true(units <= 2000);
	assert_true(json_array_size(json_object_get(msg, "components")) <= 5);
	json_array_foreach(json_object_get(msg, "components"), i, row) {
		assert_int_equal(json_integer_value(json_object_get(row, "type")), 1);
		assert_true(json_array_size(json_object_get(row, "components")) <= 5);
		json_array_foreach(json_object_get(row, "components"), k, c) {
			const char *id = json_string_value(json_object_get(c, "custom_id"));

			assert_non_null(id);
			assert_true(strlen(id) <= 100);
		}
	}
}

/* Every call the fake saw: limits kept, the bot token only where Discord wants it. */
static void check_calls(struct world *w)
{
	int n = fake_dc_count(w->fake, NULL, NULL);

	for (int i = 0; i < n; i++) {
		char method[16], path[512], auth[256];
		json_t *body = fake_dc_call(w->fake, i, method, sizeof(method), path, sizeof(path), auth,
					    sizeof(auth), NULL);

		if (strncmp(path, "/webhooks/", 10) == 0)
			assert_string_equal(auth, ""); /* the interaction token is the credential */
		else
			assert_string_equal(auth, "Bot " BOT_TOKEN);
		if (strncmp(path, "/applications/", 14))
			check_limits(body);
		json_decref(body);
	}
}

/* The channel's open (or last) table, from the store. */
static int64_t table_id(struct world *w)
{
	struct store_chat chat = { 0 };
	struct store_table t = { 0 };
	int64_t id = 0;

	if (!store_chat_get(w->b.store, "discord", CHANNEL, "en", &chat) &&
	    !store_table_open_get(w->b.store, chat.id, &t))
		id = t.id;
	store_table_release(&t);
	store_chat_release(&chat);
	return id;
}

static void table_get(struct world *w, int64_t id, struct store_table *t)
{
	memset(t, 0, sizeof(*t));
	assert_int_equal(store_table_get(w->b.store, id, t), GB_OK);
}

/* A fingerprint of everything a refused request must not change. */
struct snapshot {
	int pending, aside, calls, tables;
	int64_t version;
};

static void snap(struct world *w, struct snapshot *s)
{
	struct store_table t = { 0 };
	int64_t id = table_id(w);

	memset(s, 0, sizeof(*s));
	assert_int_equal(store_out_count(w->b.store, "discord", &s->pending, &s->aside, NULL), GB_OK);
	assert_int_equal(store_tables_count(w->b.store, 0, 0, 0, 0, &s->tables), GB_OK);
	s->calls = fake_dc_count(w->fake, NULL, NULL);
	if (id && !store_table_get(w->b.store, id, &t))
		s->version = t.version;
	store_table_release(&t);
}

/*
 * Nothing a refused request did shows. The proof that anything it queued
 * would have gone out is the next delivery: a line queued now for a
 * channel of its own, after whatever the request queued, sent and done
 * (its row gone). Apart from that line the outbox, the calls to Discord,
 * the tables and the table's version are as they were; *before then
 * counts the line too, for the next look.
 */
static void assert_unchanged(struct world *w, struct snapshot *before)
{
	const char *path = "/channels/" NEXT_CHANNEL "/";
	int sent = fake_dc_count(w->fake, "POST", path);
	int pending = -1;
	struct snapshot now;

	assert_int_equal(store_out_add(w->b.store, "discord", NEXT_CHANNEL, 0, "",
				       "{\"kind\":\"public\",\"text\":\"next\",\"lang\":\"en\"}",
				       bot_now_ms()),
			 GB_OK);
	outbox_wake(w->outbox);
	assert_int_equal(fake_dc_wait(w->fake, "POST", path, sent + 1, 10000), sent + 1);
	for (int i = 0; i < 2000 && pending != before->pending; i++) {
		if (i)
			usleep(5000);
		assert_int_equal(store_out_count(w->b.store, "discord", &pending, NULL, NULL), GB_OK);
	}
	snap(w, &now);
	assert_int_equal(now.pending, before->pending);
	assert_int_equal(now.aside, before->aside);
	assert_int_equal(now.calls, before->calls + 1);
	assert_int_equal(now.tables, before->tables);
	assert_int_equal(now.version, before->version);
	before->calls = now.calls;
}

/* Wait until the outbox has nothing pending (or timeout_ms passed). */
static void drain(struct world *w, int timeout_ms)
{
	for (int i = 0; i < timeout_ms / 5; i++) {
		int pending = 0;

		if (!store_out_count(w->b.store, "discord", &pending, NULL, NULL) && !pending)
			return;
		usleep(5000);
	}
}

/* The type-4 answer that posted the table: the test, as Discord, gives it an id. */
static void posted(struct world *w)
{
	snprintf(w->table_msg, sizeof(w->table_msg), "%lld", w->posts++);
}

/* ---- receiving ---- */

static void test_ping_and_endpoint_check(void **state)
{
	struct world *w = *state;
	const char *ping = "{\"type\":1,\"id\":\"1\",\"application_id\":\"" APP "\"}";
	char ts[32], sig[2 * crypto_sign_BYTES + 1], bad[2 * crypto_sign_BYTES + 1];
	unsigned char opk[crypto_sign_PUBLICKEYBYTES], osk[crypto_sign_SECRETKEYBYTES];
	struct snapshot before;
	json_t *a = NULL;

	snap(w, &before);
	assert_int_equal(post_signed(w, ping, 0, &a), 200);
	assert_int_equal(answer_type(a), 1);
	assert_int_equal(json_object_size(a), 1);
	json_decref(a);

	/* what Discord sends when the endpoint is saved: all 401 */
	snprintf(ts, sizeof(ts), "%lld", (long long)(bot_now_ms() / 1000));
	sign(w->sk, ts, ping, strlen(ping), sig);
	assert_int_equal(post_raw(w, ping, strlen(ping), NULL, NULL, NULL), 401);
	assert_int_equal(post_raw(w, ping, strlen(ping), sig, NULL, NULL), 401);
	assert_int_equal(post_raw(w, ping, strlen(ping), NULL, ts, NULL), 401);
	crypto_sign_keypair(opk, osk);
	sign(osk, ts, ping, strlen(ping), bad); /* another key */
	assert_int_equal(post_raw(w, ping, strlen(ping), bad, ts, NULL), 401);
	snprintf(bad, sizeof(bad), "%s", sig);
	bad[10] = bad[10] == '0' ? '1' : '0'; /* one bit off */
	assert_int_equal(post_raw(w, ping, strlen(ping), bad, ts, NULL), 401);
	memset(bad, 'z', 2 * crypto_sign_BYTES); /* not hex */
	assert_int_equal(post_raw(w, ping, strlen(ping), bad, ts, NULL), 401);
	assert_int_equal(post_raw(w, ping, strlen(ping), "abcd", ts, NULL), 401); /* short */
	assert_int_equal(post_raw(w, ping, strlen(ping), "", "", NULL), 401);
	ts[strlen(ts) - 1] = ts[strlen(ts) - 1] == '0' ? '1' : '0'; /* timestamp not the signed one */
	assert_int_equal(post_raw(w, ping, strlen(ping), sig, ts, NULL), 401);
	snprintf(ts, sizeof(ts), "%lld", (long long)(bot_now_ms() / 1000));
	sign(w->sk, ts, ping, strlen(ping), sig);
	assert_int_equal(post_raw(w, "{\"type\":1,\"id\":\"2\"}", 19, sig, ts, NULL), 401); /* body changed */
	assert_unchanged(w, &before);
}

/*
 * The flood's bound: the process not growing by half of what 2,000 kept
 * bodies would take. ThreadSanitizer keeps shadow memory, and
 * AddressSanitizer keeps what is freed in quarantine (256 MiB) before it
 * is used again (the process grows by what the flood freed): under
 * either the memory is judged by the plain build alone.
 */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#if defined(UNDER_TSAN) || defined(UNDER_ASAN)
#define FLOOD_GROWTH_KIB (1L << 40)
#else
#define FLOOD_GROWTH_KIB (64L * 1024)
#endif

/* Resident memory of this process (KiB). */
static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	char line[128] = "";
	const char *p = line;
	long pages = 0;

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	while (*p && *p != ' ')
		p++;
	for (p++; *p >= '0' && *p <= '9'; p++)
		pages = pages * 10 + (*p - '0');
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

/*
 * A request without Discord's signature headers in their form is refused
 * from its headers: 401 while the body it promised has not been sent.
 */
static void test_unsigned_refused_before_its_body(void **state)
{
	struct world *w = *state;
	int port = http_port(w->http);
	char head[512], ts[32];

	snprintf(head, sizeof(head), "POST /discord HTTP/1.1\r\nHost: t\r\nContent-Length: 60000\r\n\r\n");
	assert_int_equal(raw_head_answer(port, head, 5000), 401);
	snprintf(ts, sizeof(ts), "%lld", (long long)(bot_now_ms() / 1000));
	snprintf(head, sizeof(head), "POST /discord HTTP/1.1\r\nHost: t\r\nX-Signature-Ed25519: abcd\r\n"
		 "X-Signature-Timestamp: %s\r\nContent-Length: 60000\r\n\r\n", ts);
	assert_int_equal(raw_head_answer(port, head, 5000), 401);
	snprintf(head, sizeof(head), "POST /discord HTTP/1.1\r\nHost: t\r\nX-Signature-Ed25519: %0128d\r\n"
		 "X-Signature-Timestamp: 1000\r\nContent-Length: 60000\r\n\r\n", 0);
	assert_int_equal(raw_head_answer(port, head, 5000), 401); /* stamped long ago */
}

/*
 * 2,000 connections posting 64 KiB of junk without signatures, reopened
 * as fast as they are refused, while signed interactions come in: each is
 * answered. (How much the flood delays them is the `flood` row of `make
 * bench`, tests/bench/flood.c.)
 */
/* The slowest of a round of signed interactions (two commands that change nothing, three pings). */
static int64_t signed_round(struct world *w)
{
	const char *ping = "{\"type\":1,\"id\":\"1\",\"application_id\":\"" APP "\"}";
	int64_t worst = 0;
	char id[32];

	for (int i = 0; i < 5; i++) {
		int64_t t1 = bot_now_ms();
		json_t *a = NULL;
		long st = i < 2 ? slash(w, i ? BOB : ALICE, MEMBER_PERMS, "help", NULL, &a, id, sizeof(id))
				: post_signed(w, ping, 0, &a);

		assert_int_equal(st, 200);
		json_decref(a);
		if (bot_now_ms() - t1 > worst)
			worst = bot_now_ms() - t1;
	}
	return worst;
}

static void test_flood_of_unsigned_posts(void **state)
{
	struct world *w = *state;
	struct flood *f;
	struct rlimit rl;
	long before = rss_kib(), peak = before;
	int64_t t0, calm, worst = 0;
	long sent;

	/* both ends of 2,000 connections live in this process */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* the same round without the flood: what the machine takes anyway */
	calm = signed_round(w);
	f = flood_start(http_port(w->http), "/discord", 2000, 64 * 1024);
	assert_non_null(f);
	/* under way: every connection open and junk arriving for a while */
	t0 = bot_now_ms();
	while ((flood_open(f) < 2000 || bot_now_ms() - t0 < 2000) && bot_now_ms() - t0 < 20000) {
		usleep(10000);
		peak = rss_kib() > peak ? rss_kib() : peak;
	}
	assert_int_equal(flood_open(f), 2000);
	for (int round = 0; round < 2; round++) {
		int64_t r = signed_round(w);

		worst = r > worst ? r : worst;
		peak = rss_kib() > peak ? rss_kib() : peak;
	}
	sent = flood_stop(f);
	print_message("      flood: %ld junk posts of 64 KiB sent; slowest signed interaction %lld ms "
		      "(%lld ms without the flood); RSS %ld -> at most %ld KiB\n", sent, (long long)worst,
		      (long long)calm, before, peak);
	assert_true(sent >= 2000);
	/*
	 * No junk body was kept: the connections' own buffers (16 KiB each,
	 * 31 MiB) but not half of what 2,000 bodies would take (125 MiB).
	 */
	assert_true(peak - before < FLOOD_GROWTH_KIB);
}

/*
 * Headers of the right form - a signature of 128 hex digits, a fresh
 * timestamp, 64 KiB promised - and no body, from 300 connections (more
 * than the listener's 16 MiB of bodies would hold if promises counted):
 * nothing is held for them, and signed interactions are answered.
 */
static void test_forged_headers_hold_no_budget(void **state)
{
	struct world *w = *state;
	int port = http_port(w->http), fd[300];
	char head[512], ts[32];

	snprintf(ts, sizeof(ts), "%lld", (long long)(bot_now_ms() / 1000));
	snprintf(head, sizeof(head), "POST /discord HTTP/1.1\r\nHost: t\r\nX-Signature-Ed25519: %0128d\r\n"
		 "X-Signature-Timestamp: %s\r\nContent-Length: 65536\r\n\r\n", 0, ts);
	for (int i = 0; i < 300; i++) {
		fd[i] = raw_head_open(port, head);
		assert_true(fd[i] >= 0);
	}
	/* one more, its body whole: read, and refused for its signature (not for want of room) */
	{
		char full[1024];

		snprintf(full, sizeof(full), "POST /discord HTTP/1.1\r\nHost: t\r\nX-Signature-Ed25519: %0128d\r\n"
			 "X-Signature-Timestamp: %s\r\nContent-Length: 2\r\n\r\n{}", 0, ts);
		assert_int_equal(raw_head_answer(port, full, 5000), 401);
	}
	signed_round(w);
	for (int i = 0; i < 300; i++)
		close(fd[i]);
}

/*
 * Past the rate limit's one warning a command is answered from the
 * request itself, with no row (a slash command told to slow down, a press
 * acknowledged with nothing changed), and typing's lookups have a budget
 * of their own: past it, no choices and nothing read.
 */
static void test_over_limit_answered_without_rows(void **state)
{
	struct world *w = *state;
	const char *warn = tr(LANG_EN, M_SLOW_DOWN);
	char id[32];
	json_t *a = NULL;
	int per = w->env.bot.rate_user_per_min, lookups = 0;

	limit_reset();
	metrics_reset();
	assert_true(per > 0);
	for (int i = 0; i < per + 5; i++) {
		assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "help", NULL, &a, id, sizeof(id)), 200);
		assert_int_equal(answer_type(a), 4);
		/* the warning, then the same words again with nothing written */
		if (i >= per)
			assert_non_null(strstr(answer_content(a), warn));
		json_decref(a);
	}
	assert_int_equal(press(w, ALICE, "1:0:/roll", "555", false, NULL, &a), 200);
	assert_int_equal(answer_type(a), 6);
	json_decref(a);
	for (int i = 0; i < 2 * per + 5; i++) {
		json_t *opts = json_pack("[{sssisssb}]", "name", "cell", "type", 3, "value", "", "focused", 1);

		assert_int_equal(send_json(w,
					   interaction(w, 4, BOB, MEMBER_PERMS,
						       json_pack("{sssssO}", "id", "1", "name", "move",
								 "options", opts),
						       id, sizeof(id)),
					   &a),
				 200);
		json_decref(opts);
		assert_int_equal(answer_type(a), 8);
		json_decref(a);
	}
	lookups = (int)metrics_value("gamebot_rate_limited_total", "scope=\"lookup\"");
	assert_int_equal(lookups, 5);
	limit_reset();
}

static void test_forged_missing_stale_malformed_refused(void **state)
{
	struct world *w = *state;
	char id[32], ts[32], sig[2 * crypto_sign_BYTES + 1];
	struct snapshot before;
	json_t *ia, *a = NULL;
	char *body;

	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "new", (const char *[]){ "game=ludo", NULL }, &a,
			       NULL, 0),
			 200);
	json_decref(a);
	drain(w, 2000);
	snap(w, &before);

	/* a real command, signed by someone else: refused, nothing changed */
	ia = interaction(w, 2, BOB, MEMBER_PERMS, json_pack("{ssss}", "id", "1", "name", "join"), id,
			 sizeof(id));
	body = json_dumps(ia, JSON_COMPACT);
	json_decref(ia);
	snprintf(ts, sizeof(ts), "%lld", (long long)(bot_now_ms() / 1000));
	sign(w->sk, ts, body, strlen(body), sig);
	sig[0] = sig[0] == 'a' ? 'b' : 'a';
	assert_int_equal(post_raw(w, body, strlen(body), sig, ts, NULL), 401);
	assert_int_equal(post_raw(w, body, strlen(body), NULL, NULL, NULL), 401);
	/* stale: signed properly, but more than five minutes old or ahead (ahead
	 * by ten seconds more: the clock may tick between stamping and checking,
	 * which brings a stamp ahead closer, on a slow run by a second or more) */
	assert_int_equal(post_signed(w, body, -301, NULL), 401);
	assert_int_equal(post_signed(w, body, 310, NULL), 401);
	snprintf(ts, sizeof(ts), "%lld", (long long)(bot_now_ms() / 1000));
	sign(w->sk, "x", body, strlen(body), sig);
	assert_int_equal(post_raw(w, body, strlen(body), sig, "x", NULL), 401); /* not a number */
	assert_unchanged(w, &before);

	/* malformed but signed: 400, nothing changed */
	assert_int_equal(post_signed(w, "not json", 0, NULL), 400);
	assert_int_equal(post_signed(w, "{\"type\":2}", 0, NULL), 400);
	assert_int_equal(post_signed(w, "[1,2]", 0, NULL), 400);
	assert_int_equal(post_signed(w, "{\"type\":\"2\"}", 0, NULL), 400);
	ia = interaction(w, 5, BOB, MEMBER_PERMS, json_pack("{ss}", "custom_id", "x"), id, sizeof(id));
	assert_int_equal(send_json(w, ia, &a), 200); /* a modal: the bot opens none; told so */
	assert_true(answer_ephemeral(a));
	json_decref(a);
	ia = interaction(w, 9, BOB, MEMBER_PERMS, json_pack("{ss}", "custom_id", "x"), id, sizeof(id));
	assert_int_equal(send_json(w, ia, NULL), 400); /* no such interaction type */
	ia = interaction(w, 2, BOB, MEMBER_PERMS, json_pack("{ss}", "name", "join"), id, sizeof(id));
	json_object_set_new(ia, "channel_id", json_string("not-an-id"));
	assert_int_equal(send_json(w, ia, NULL), 400);
	assert_unchanged(w, &before);

	/* the same request signed properly is taken */
	assert_int_equal(post_signed(w, body, 0, &a), 200);
	assert_int_equal(answer_type(a), 4);
	json_decref(a);
	free(body);
}

static void test_replayed_interaction_answered_once(void **state)
{
	struct world *w = *state;
	char id[32], custom[128];
	struct snapshot before;
	json_t *ia = interaction(w, 2, ALICE, MEMBER_PERMS,
				 json_pack("{sssss[{sssiss}]}", "id", "1", "name", "new", "options",
					   "name", "game", "type", 3, "value", "snakes"),
				 id, sizeof(id));
	char *body = json_dumps(ia, JSON_COMPACT);
	json_t *a = NULL;

	json_decref(ia);
	assert_int_equal(post_signed(w, body, 0, &a), 200);
	assert_int_equal(answer_type(a), 4);
	assert_false(answer_ephemeral(a));
	assert_non_null(strstr(answer_content(a), "```"));
	assert_true(find_button(json_object_get(answer_data(a), "components"), "join", custom,
				sizeof(custom)));
	json_decref(a);
	drain(w, 2000);
	snap(w, &before);
	assert_int_equal(before.tables, 1);

	/* the same interaction again: a sane answer, nothing changed */
	assert_int_equal(post_signed(w, body, 0, &a), 200);
	assert_int_equal(answer_type(a), 4);
	assert_true(answer_ephemeral(a));
	assert_string_equal(answer_content(a), "That was answered already.");
	json_decref(a);
	assert_unchanged(w, &before);
	free(body);

	/* a repeated press: deferred update, nothing changed */
	ia = interaction(w, 3, BOB, MEMBER_PERMS,
			 json_pack("{sssi}", "custom_id", custom, "component_type", 2), id, sizeof(id));
	json_object_set_new(ia, "message", json_pack("{sssi}", "id", "700", "flags", 0));
	body = json_dumps(ia, JSON_COMPACT);
	json_decref(ia);
	assert_int_equal(post_signed(w, body, 0, &a), 200);
	assert_int_equal(answer_type(a), 7);
	json_decref(a);
	drain(w, 2000);
	snap(w, &before);
	assert_int_equal(post_signed(w, body, 0, &a), 200);
	assert_int_equal(answer_type(a), 6);
	json_decref(a);
	assert_unchanged(w, &before);
	free(body);
}

/* user's legal choices at the channel's table now (0 when it is not their turn). */
static int choices(struct world *w, const char *user, struct bot_choice *out, int max)
{
	int n = 0;

	assert_int_equal(bot_user_choices(&w->b, "discord", user, out, max, &n), GB_OK);
	return n;
}

static bool table_over(struct world *w, int64_t id)
{
	struct store_table t;
	bool over;

	table_get(w, id, &t);
	over = t.status == STORE_OVER;
	store_table_release(&t);
	return over;
}

static void test_stale_and_forged_buttons_refused_ephemerally(void **state)
{
	struct world *w = *state;
	struct bot_choice ch[GB_MAX_LEGAL];
	char custom[128], stale[128];
	struct snapshot before;
	const char *who;
	json_t *a = NULL;

	slash(w, ALICE, MEMBER_PERMS, "new", (const char *[]){ "game=ludo", NULL }, &a, NULL, 0);
	assert_true(find_button(json_object_get(answer_data(a), "components"), "join", custom,
				sizeof(custom)));
	json_decref(a);
	posted(w);
	/* alice opened it and sits already: bob joins, alice starts */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(press(w, i ? ALICE : BOB, custom, w->table_msg, false, NULL, &a), 200);
		assert_int_equal(answer_type(a), 7);
		find_button(json_object_get(answer_data(a), "components"), "start", custom, sizeof(custom));
		json_decref(a);
	}
	/* the first roll: its button is then from an earlier turn */
	who = choices(w, ALICE, ch, GB_MAX_LEGAL) ? ALICE : BOB;
	assert_true(choices(w, who, ch, GB_MAX_LEGAL) > 0);
	assert_int_equal(dc_custom_id_encode(ch[0].table, ch[0].turn, ch[0].cmd, stale, sizeof(stale)),
			 GB_OK);
	assert_int_equal(press(w, who, stale, w->table_msg, false, NULL, &a), 200);
	assert_int_equal(answer_type(a), 7);
	json_decref(a);
	drain(w, 2000);
	snap(w, &before);

	assert_int_equal(press(w, who, stale, w->table_msg, false, NULL, &a), 200);
	assert_int_equal(answer_type(a), 4);
	assert_true(answer_ephemeral(a));
	assert_string_equal(answer_content(a),
			    "That button is from an earlier turn; use the buttons of the latest table message.");
	json_decref(a);
	/* forged custom ids: another table, a select menu choosing no command */
	assert_int_equal(press(w, BOB, "99999:0:start", w->table_msg, false, NULL, &a), 200);
	assert_true(answer_ephemeral(a));
	json_decref(a);
	/* not button data of ours at all (another app's): nothing changes on the message */
	assert_int_equal(press(w, BOB, "garbage", w->table_msg, false, NULL, &a), 200);
	assert_int_equal(answer_type(a), 6);
	json_decref(a);
	assert_int_equal(press(w, BOB, "1:0:~0", w->table_msg, false, NULL, &a), 200);
	assert_true(answer_ephemeral(a));
	json_decref(a);
	assert_unchanged(w, &before);
}

static void test_admin_rights_from_member_permissions(void **state)
{
	struct world *w = *state;
	struct store_chat chat = { 0 };
	json_t *a = NULL;

	assert_int_equal(slash(w, BOB, MEMBER_PERMS, "lang", (const char *[]){ "language=ne", NULL },
			       &a, NULL, 0),
			 200);
	assert_true(answer_ephemeral(a));
	assert_string_equal(answer_content(a), "Only chat admins can change that.");
	json_decref(a);
	assert_int_equal(store_chat_get(w->b.store, "discord", CHANNEL, "en", &chat), GB_OK);
	assert_string_equal(chat.lang, "en");
	store_chat_release(&chat);

	/* MANAGE_GUILD (0x20) is enough */
	assert_int_equal(slash(w, BOB, "32", "lang", (const char *[]){ "language=ne", NULL }, &a, NULL,
			       0),
			 200);
	assert_int_equal(answer_type(a), 4);
	json_decref(a);
	assert_int_equal(store_chat_get(w->b.store, "discord", CHANNEL, "en", &chat), GB_OK);
	assert_string_equal(chat.lang, "ne");
	store_chat_release(&chat);
	/* ADMINISTRATOR (0x8) too, with other bits */
	assert_int_equal(slash(w, ALICE, "1099511627784", "lang",
			       (const char *[]){ "language=en", NULL }, &a, NULL, 0),
			 200);
	json_decref(a);
	assert_int_equal(store_chat_get(w->b.store, "discord", CHANNEL, "en", &chat), GB_OK);
	assert_string_equal(chat.lang, "en");
	store_chat_release(&chat);
	/* 0x10 (MANAGE_CHANNELS) is not */
	assert_int_equal(slash(w, BOB, "16", "lang", (const char *[]){ "language=ne", NULL }, &a, NULL,
			       0),
			 200);
	assert_true(answer_ephemeral(a));
	json_decref(a);
}

/* ---- whole games ---- */

static void test_callbreak_one_person_three_computers(void **state)
{
	struct world *w = *state;
	struct bot_choice ch[GB_MAX_LEGAL];
	struct store_table t;
	struct store_stat st[4];
	char custom[128], cmds[64][64], new_id[32];
	int64_t id;
	int hands = 0, bids = 0, nexts = 0, nst = 0, n0;
	json_t *a = NULL;

	/* typed: the table is the answer, and the answer is the table message */
	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "new", (const char *[]){ "game=callbreak", NULL },
			       &a, new_id, sizeof(new_id)),
			 200);
	assert_int_equal(answer_type(a), 4);
	assert_false(answer_ephemeral(a));
	json_decref(a);
	id = table_id(w);
	table_get(w, id, &t);
	assert_int_equal(t.message[0], '@');
	assert_string_equal(t.message + 1, new_id);
	store_table_release(&t);
	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "addbot", (const char *[]){ "level=easy", NULL },
			       &a, NULL, 0),
			 200);
	assert_int_equal(answer_type(a), 4);
	assert_true(find_button(json_object_get(answer_data(a), "components"), "addbot", custom,
				sizeof(custom)));
	json_decref(a);
	posted(w);

	/* buttons: the table message updated in place, and its id learnt from the press */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(press(w, ALICE, custom, w->table_msg, false, NULL, &a), 200);
		assert_int_equal(answer_type(a), 7);
		assert_true(find_button(json_object_get(answer_data(a), "components"),
					i ? "start" : "addbot", custom, sizeof(custom)));
		json_decref(a);
	}
	table_get(w, id, &t);
	assert_string_equal(t.message, w->table_msg);
	store_table_release(&t);
	drain(w, 10000);
	n0 = fake_dc_count(w->fake, "POST", "/webhooks/");
	assert_int_equal(press(w, ALICE, custom, w->table_msg, false, NULL, &a), 200);
	assert_int_equal(answer_type(a), 7);
	json_decref(a);
	/* the "started" line and the hand dealt to alice: follow-ups of her press, the hand ephemeral */
	assert_int_equal(fake_dc_wait(w->fake, "POST", "/webhooks/" APP "/", n0 + 2, 10000), n0 + 2);
	{
		json_t *f0 = fake_dc_nth(w->fake, "POST", "/webhooks/", n0, NULL, 0);
		json_t *f1 = fake_dc_nth(w->fake, "POST", "/webhooks/", n0 + 1, NULL, 0);

		assert_null(json_object_get(f0, "flags"));
		assert_int_equal(json_integer_value(json_object_get(f1, "flags")), 64);
		assert_true(strncmp(json_string_value(json_object_get(f1, "content")), "```", 3) == 0);
		json_decref(f0);
		json_decref(f1);
	}

	for (int guard = 0; guard < 20000 && !table_over(w, id); guard++) {
		int n = choices(w, ALICE, ch, GB_MAX_LEGAL);
		char card[128];

		if (!n) {
			/* a round over: its Next button, on the table message as the computers left it */
			json_t *last = fake_dc_last(w->fake, "PATCH", "/channels/", NULL, 0);
			int moves = 0;
			char want[32];

			assert_int_equal(store_move_count(w->b.store, id, &moves), GB_OK);
			snprintf(want, sizeof(want), "%lld:%d:next", (long long)id, moves);
			if (find_button(json_object_get(last, "components"), "next", custom, sizeof(custom)) &&
			    strcmp(custom, want) == 0) {
				assert_int_equal(press(w, ALICE, custom, w->table_msg, false, NULL, &a), 200);
				assert_int_equal(answer_type(a), 7);
				nexts++;
				json_decref(a);
			} else {
				usleep(2000);
			}
			json_decref(last);
			continue;
		}
		if (strncmp(ch[0].cmd, "/play ", 6) == 0) {
			/* "Show my hand": ephemeral, with buttons for exactly the legal cards */
			int nb;

			snprintf(custom, sizeof(custom), "%lld:%d:hand", (long long)ch[0].table, ch[0].turn);
			assert_int_equal(press(w, ALICE, custom, w->table_msg, false, NULL, &a), 200);
			assert_int_equal(answer_type(a), 4);
			assert_true(answer_ephemeral(a));
			check_limits(answer_data(a));
			nb = button_cmds(json_object_get(answer_data(a), "components"), cmds, 64);
			assert_int_equal(nb, n);
			for (int k = 0; k < n; k++) {
				bool found = false;

				for (int j = 0; j < nb; j++)
					found |= strcmp(cmds[j], ch[k].cmd) == 0;
				assert_true(found);
			}
			assert_true(find_button(json_object_get(answer_data(a), "components"), ch[0].cmd + 1,
						card, sizeof(card)));
			/* playing from it: the hand's buttons spent, the public table edited */
			{
				char *content = strdup(answer_content(a));

				json_decref(a);
				assert_int_equal(press(w, ALICE, card, "777", true, content, &a), 200);
				free(content);
			}
			assert_int_equal(answer_type(a), 7);
			assert_int_equal(json_array_size(json_object_get(answer_data(a), "components")), 0);
			json_decref(a);
			hands++;
		} else {
			/* bids and the next round are on the table message */
			assert_int_equal(dc_custom_id_encode(ch[0].table, ch[0].turn, ch[0].cmd, custom,
							     sizeof(custom)),
					 GB_OK);
			assert_int_equal(press(w, ALICE, custom, w->table_msg, false, NULL, &a), 200);
			assert_int_equal(answer_type(a), 7);
			assert_false(answer_ephemeral(a));
			json_decref(a);
			bids += strncmp(ch[0].cmd, "/bid", 4) == 0;
			nexts += strncmp(ch[0].cmd, "/next", 5) == 0;
		}
	}
	if (!table_over(w, id)) {
		int n = choices(w, ALICE, ch, GB_MAX_LEGAL);

		table_get(w, id, &t);
		fprintf(stderr, "hands %d bids %d nexts %d choices %d (%s) state %s\n", hands, bids, nexts, n,
			n ? ch[0].cmd : "", t.state);
		store_table_release(&t);
	}
	assert_true(table_over(w, id));
	assert_int_equal(hands, 5 * 13);
	assert_int_equal(bids, 5);
	assert_int_equal(nexts, 4);
	drain(w, 5000);
	/* computers' moves edited the table message by its id, with the bot token */
	assert_true(fake_dc_count(w->fake, "PATCH", "/channels/" CHANNEL "/messages/") > 0);
	{
		char path[512], want[128];
		json_t *last = fake_dc_last(w->fake, "PATCH", "/channels/", path, sizeof(path));

		snprintf(want, sizeof(want), "/channels/" CHANNEL "/messages/%s", w->table_msg);
		assert_string_equal(path, want);
		json_decref(last);
	}
	/* the table was never posted twice: what went to the channel as the bot were the
	 * computers' own public lines (the end of the game), which answer no interaction */
	for (int i = 0; i < fake_dc_count(w->fake, "POST", "/channels/"); i++) {
		json_t *b0 = fake_dc_nth(w->fake, "POST", "/channels/", i, NULL, 0);

		assert_int_equal(json_array_size(json_object_get(b0, "components")), 0);
		assert_true(strncmp(json_string_value(json_object_get(b0, "content")), "```", 3) != 0);
		json_decref(b0);
	}
	{
		struct store_chat chat = { 0 };

		assert_int_equal(store_chat_get(w->b.store, "discord", CHANNEL, "en", &chat), GB_OK);
		assert_int_equal(store_stats_get(w->b.store, chat.id, NULL, st, 4, &nst), GB_OK);
		store_chat_release(&chat);
	}
	assert_int_equal(nst, 1);
	assert_string_equal(st[0].user, ALICE);
	assert_int_equal(st[0].games, 1);
	check_calls(w);
}

/* Alice types /new for Ludo: the table posted, its Join button's custom_id into custom; returns the table. */
static int64_t open_ludo(struct world *w, char *custom, size_t n)
{
	json_t *a = NULL;

	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "new", (const char *[]){ "game=ludo", NULL }, &a,
			       NULL, 0),
			 200);
	assert_true(find_button(json_object_get(answer_data(a), "components"), "join", custom, n));
	json_decref(a);
	posted(w);
	return table_id(w);
}

/* Bob presses Join (custom) and then Start on the table message: each answer updates it in place. */
static void bob_joins_and_starts(struct world *w, char *custom, size_t n)
{
	json_t *a = NULL;

	assert_int_equal(press(w, BOB, custom, w->table_msg, false, NULL, &a), 200);
	assert_int_equal(answer_type(a), 7);
	assert_true(find_button(json_object_get(answer_data(a), "components"), "start", custom, n));
	json_decref(a);
	assert_int_equal(press(w, BOB, custom, w->table_msg, false, NULL, &a), 200);
	assert_int_equal(answer_type(a), 7);
	json_decref(a);
}

static void test_ludo_two_people(void **state)
{
	struct world *w = *state;
	struct bot_choice ch[GB_MAX_LEGAL];
	char custom[128];
	int64_t id;
	int presses = 0, typed = 0, completed = 0;
	json_t *a = NULL;

	id = open_ludo(w, custom, sizeof(custom));
	/* alice opened the table and sits at it already; bob joins with the button */
	bob_joins_and_starts(w, custom, sizeof(custom));

	/* a choice from a select menu: the command is the value chosen */
	{
		const char *who = choices(w, ALICE, ch, GB_MAX_LEGAL) ? ALICE : BOB;
		char aid[32];
		json_t *ia;

		assert_true(choices(w, who, ch, GB_MAX_LEGAL) > 0);
		snprintf(custom, sizeof(custom), "%lld:%d:~0", (long long)ch[0].table, ch[0].turn);
		ia = interaction(w, 3, who, MEMBER_PERMS,
				 json_pack("{sssis[s]}", "custom_id", custom, "component_type", 3, "values",
					   ch[0].cmd),
				 aid, sizeof(aid));
		json_object_set_new(ia, "message", json_pack("{sssi}", "id", w->table_msg, "flags", 0));
		assert_int_equal(send_json(w, ia, &a), 200);
		assert_int_equal(answer_type(a), 7);
		json_decref(a);
		assert_true(choices(w, who, ch, GB_MAX_LEGAL) == 0 ||
			    strcmp(ch[0].cmd, "/roll") != 0); /* the roll was taken */
	}

	for (int guard = 0; guard < 20000 && !table_over(w, id); guard++) {
		const char *who = ALICE;
		int n = choices(w, ALICE, ch, GB_MAX_LEGAL);

		if (!n) {
			who = BOB;
			n = choices(w, BOB, ch, GB_MAX_LEGAL);
		}
		assert_true(n > 0); /* two people: always someone's turn */
		if (strncmp(ch[0].cmd, "/move ", 6) == 0 && typed < 3) {
			/* typed, with the token offered by autocomplete */
			char aid[32];
			json_t *ac = interaction(w, 4, who, MEMBER_PERMS,
						 json_pack("{sssss[{sssissso}]}", "id", "1", "name", "move",
							   "options", "name", "action", "type", 3, "value",
							   "", "focused", json_true()),
						 aid, sizeof(aid)),
			       *choice;
			size_t k;
			char value[64];

			assert_int_equal(send_json(w, ac, &a), 200);
			assert_int_equal(answer_type(a), 8);
			assert_int_equal(json_array_size(json_object_get(answer_data(a), "choices")), (size_t)n);
			json_array_foreach(json_object_get(answer_data(a), "choices"), k, choice) {
				snprintf(value, sizeof(value), "/move %s",
					 json_string_value(json_object_get(choice, "value")));
				assert_string_equal(value, ch[k].cmd);
			}
			json_decref(a);
			snprintf(value, sizeof(value), "action=%.50s", ch[0].cmd + 6);
			assert_int_equal(slash(w, who, MEMBER_PERMS, "move", (const char *[]){ value, NULL },
					       &a, NULL, 0),
					 200);
			assert_int_equal(answer_type(a), 4);
			assert_false(answer_ephemeral(a));
			json_decref(a);
			posted(w); /* the table re-posted: the new message is the table now */
			typed++;
			continue;
		}
		assert_int_equal(dc_custom_id_encode(ch[0].table, ch[0].turn, ch[0].cmd, custom,
						     sizeof(custom)),
				 GB_OK);
		assert_int_equal(press(w, who, custom, w->table_msg, false, NULL, &a), 200);
		assert_int_equal(answer_type(a), 7);
		check_limits(answer_data(a));
		json_decref(a);
		presses++;
	}
	assert_true(table_over(w, id));
	assert_int_equal(typed, 3);
	assert_true(presses > 20);
	drain(w, 5000);
	/* whatever public lines the commands had went as follow-ups of their interactions */
	completed = fake_dc_count(w->fake, NULL, NULL);
	assert_true(completed > 0);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/"), 0);
	check_calls(w);
}

/* ---- delivery ---- */

/* A row of kind for the channel, with the given reply handle (NULL none). */
static void row_of(struct store_out *row, const char *json)
{
	memset(row, 0, sizeof(*row));
	row->id = 1;
	snprintf(row->platform, sizeof(row->platform), "discord");
	snprintf(row->chat, sizeof(row->chat), CHANNEL);
	row->payload = (char *)json;
}

/* Older rows waiting out a long rate limit do not hide a press's own rows from its answer. */
static void test_answer_found_behind_a_long_queue(void **state)
{
	struct world *w = *state;
	char custom[128], payload[128];
	int64_t id, later = bot_now_ms() + 3600 * 1000;

	id = open_ludo(w, custom, sizeof(custom));
	drain(w, 2000);
	for (int i = 0; i < 100; i++) {
		snprintf(payload, sizeof(payload), "{\"kind\":\"public\",\"text\":\"line %d\",\"lang\":\"en\"}",
			 i);
		assert_int_equal(store_out_add(w->b.store, "discord", CHANNEL, id, "", payload, later),
				 GB_OK);
	}
	bob_joins_and_starts(w, custom, sizeof(custom));
}

/*
 * A person's queue message is posted once: posted by the worker (the
 * interaction that answered with it long gone) while its entry goes
 * (seated), the id is handed to the entry's last view waiting behind it,
 * which edits that message as the bot. A press on it afterwards edits it
 * in place; one that cannot be edited any more is left as it is.
 */
static void test_queue_message_once(void **state)
{
	struct world *w = *state;
	struct store_queue e = { .game = "ludo", .seats = 2, .platform = "discord", .user = ALICE,
				 .chat = CHANNEL, .name = "Asha", .lang = "en", .since_ms = 1 };
	struct store_queue list[2];
	struct store_out row, rows[4];
	struct delivery d;
	char path[256], want[128];
	int64_t later = bot_now_ms() + 3600 * 1000;
	json_t *body, *v;
	int n = 0;

	assert_int_equal(store_queue_add(w->b.store, &e), GB_OK);
	assert_int_equal(store_queue_list(w->b.store, list, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	/* the table opens while the first post is on its way: the entry goes, its last view waits */
	assert_int_equal(store_queue_claim(w->b.store, &list[0].id, 1, NULL), GB_OK);
	assert_int_equal(store_out_add(w->b.store, "discord", CHANNEL, 0, "queue",
				       "{\"kind\":\"table\",\"queue\":true,\"text\":\"ready\",\"lang\":\"en\"}",
				       later), GB_OK);
	row_of(&row, "{\"kind\":\"table\",\"queue\":true,\"text\":\"2 wait\",\"lang\":\"en\"}");
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/" CHANNEL "/messages"), 1);
	assert_int_equal(store_out_chat(w->b.store, "discord", CHANNEL, rows, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	v = json_loads(rows[0].payload, 0, NULL);
	snprintf(want, sizeof(want), "%s", json_string_value(json_object_get(v, "message")));
	json_decref(v);
	assert_true(want[0] != '\0');
	/* that view edits the message posted, as the bot */
	row_of(&row, rows[0].payload);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(store_out_done(w->b.store, rows[0].id), GB_OK);
	store_out_release(&rows[0]);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/" CHANNEL "/messages"), 1);
	body = fake_dc_last(w->fake, "PATCH", "/channels/", path, sizeof(path));
	assert_non_null(body);
	assert_string_equal(json_string_value(json_object_get(body, "content")), "ready");
	json_decref(body);
	assert_string_equal(path + strlen("/channels/" CHANNEL "/messages/"), want);
	/* an outdated message edited in place; one gone is left as it is, nothing posted */
	snprintf(path, sizeof(path), "{\"kind\":\"table\",\"queue\":true,\"stale\":true,\"message\":\"%s\","
		 "\"text\":\"seated\",\"lang\":\"en\"}", want);
	row_of(&row, path);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w->fake, "PATCH", "/channels/"), 2);
	fake_dc_fault(w->fake, "PATCH", "/channels/", 0, 1, FAKE_DC_404, 0);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w->fake, "PATCH", "/channels/"), 3);
	assert_int_equal(fake_dc_count(w->fake, "POST", NULL), 1);
}

static void test_delivery_faults(void **state)
{
	struct world *w = *state;
	struct store_out row;
	struct delivery d;
	char iid[32], old[32], buf[512], path[512];
	json_t *body;
	int n;

	snowflake(w, iid, sizeof(iid));
	/* a public line with a live interaction: a follow-up through its webhook */
	snprintf(buf, sizeof(buf),
		 "{\"kind\":\"public\",\"text\":\"alice *bid* 3\",\"lang\":\"en\",\"reply\":\"%s:" ALICE
		 ":tok-%s\"}",
		 iid, iid);
	row_of(&row, buf);
	fake_dc_fault(w->fake, "POST", "/webhooks/", 0, 1, FAKE_DC_429, 350);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_int_equal(d.retry_ms, 350); /* retry_after 0.35 s */
	assert_false(d.global);
	assert_null(strstr(d.why, "tok-"));
	/* that webhook's bucket is spent: the next call waits without asking Discord */
	n = fake_dc_count(w->fake, NULL, NULL);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_false(d.global);
	assert_true(d.retry_ms > 0 && d.retry_ms <= 350 + DC_PACE_ROOM_MS);
	assert_int_equal(fake_dc_count(w->fake, NULL, NULL), n);
	/* another interaction's webhook is a bucket of its own */
	snowflake(w, iid, sizeof(iid));
	snprintf(buf, sizeof(buf),
		 "{\"kind\":\"public\",\"text\":\"alice *bid* 3\",\"lang\":\"en\",\"reply\":\"%s:" ALICE
		 ":tok-%s\"}",
		 iid, iid);
	row_of(&row, buf);
	fake_dc_fault(w->fake, "POST", "/webhooks/", 0, 1, FAKE_DC_500, 0);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_RETRY);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	body = fake_dc_last(w->fake, "POST", "/webhooks/", path, sizeof(path));
	snprintf(buf, sizeof(buf), "/webhooks/" APP "/tok-%s", iid);
	assert_string_equal(path, buf);
	assert_string_equal(json_string_value(json_object_get(body, "content")), "alice \\*bid\\* 3");
	json_decref(body);

	/* the token expired (401 Invalid Webhook Token): posted in the channel as the bot */
	snprintf(buf, sizeof(buf), "tok-%s", iid);
	fake_dc_expire_token(w->fake, buf);
	fake_dc_clear(w->fake);
	snprintf(buf, sizeof(buf),
		 "{\"kind\":\"public\",\"text\":\"line\",\"lang\":\"en\",\"reply\":\"%s:" ALICE
		 ":tok-%s\"}",
		 iid, iid);
	row_of(&row, buf);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/webhooks/"), 1);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/" CHANNEL "/messages"), 1);
	check_calls(w);
	{
		/*
		 * The same row sent again (a worker killed before it recorded the
		 * first answer): the same nonce, enforced, so Discord answers with
		 * the message it already made.
		 */
		json_t *first = fake_dc_last(w->fake, "POST", "/channels/", path, sizeof(path)), *again;

		assert_string_equal(json_string_value(json_object_get(first, "nonce")), "gb1");
		assert_true(json_is_true(json_object_get(first, "enforce_nonce")));
		json_decref(first);
		discord_adapter.deliver(w->self, w->b.store, &row, &d);
		assert_int_equal(d.result, DELIVERY_OK);
		again = fake_dc_last(w->fake, "POST", "/channels/", path, sizeof(path));
		assert_string_equal(json_string_value(json_object_get(again, "nonce")), "gb1");
		json_decref(again);
	}
	/* a private word is never posted in the channel */
	fake_dc_clear(w->fake);
	snprintf(buf, sizeof(buf),
		 "{\"kind\":\"alert\",\"user\":\"" ALICE "\",\"text\":\"no\",\"reply\":\"%s:" ALICE
		 ":tok-%s\"}",
		 iid, iid);
	row_of(&row, buf);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/"), 0);

	/* an interaction older than 15 minutes: straight to the channel */
	snprintf(old, sizeof(old), "%llu",
		 (unsigned long long)((uint64_t)(bot_now_ms() - 1420070400000LL - 16 * 60000) << 22));
	fake_dc_clear(w->fake);
	snprintf(buf, sizeof(buf),
		 "{\"kind\":\"public\",\"text\":\"late\",\"reply\":\"%s:" ALICE ":tok-old\"}", old);
	row_of(&row, buf);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/webhooks/"), 0);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/" CHANNEL "/messages"), 1);

	/* a private view for someone else than who pressed: nothing can reach them */
	fake_dc_clear(w->fake);
	snprintf(buf, sizeof(buf),
		 "{\"kind\":\"private\",\"user\":\"" BOB "\",\"text\":\"hand\",\"reply\":\"%s:" ALICE
		 ":tok-x\"}",
		 iid);
	row_of(&row, buf);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w->fake, NULL, NULL), 0);

	/* refused (403): given up, with a reason that holds no token */
	fake_dc_fault(w->fake, "POST", "/channels/", 0, 1, FAKE_DC_403, 0);
	row_of(&row, "{\"kind\":\"public\",\"text\":\"hi\"}");
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
	assert_non_null(strstr(d.why, "403"));
	assert_null(strstr(d.why, BOT_TOKEN));
	/* unreadable rows are given up */
	row_of(&row, "not json");
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);

	/* a global 429: every call as the bot waits it out, without asking Discord */
	fake_dc_fault(w->fake, "POST", "/channels/", 0, 1, FAKE_DC_429_GLOBAL, 1250);
	row_of(&row, "{\"kind\":\"public\",\"text\":\"hi\"}");
	snprintf(row.chat, sizeof(row.chat), "4002"); /* CHANNEL refused the bot above */
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_int_equal(d.retry_ms, 1250);
	assert_true(d.global);
	n = fake_dc_count(w->fake, NULL, NULL);
	snprintf(buf, sizeof(buf), "{\"kind\":\"public\",\"text\":\"elsewhere\"}");
	row_of(&row, buf);
	snprintf(row.chat, sizeof(row.chat), "4001");
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_true(d.global);
	assert_true(d.retry_ms > 0 && d.retry_ms <= 1250 + DC_PACE_ROOM_MS);
	assert_int_equal(fake_dc_count(w->fake, NULL, NULL), n);
}

/*
 * Against the fake in strict mode (Discord's buckets and global limit
 * enforced): a channel with a dozen posts waiting and sixty channels with
 * one each all get theirs without a single 429 - the bucket's headers
 * pace the channel, a short burst then a steady rate (never five at once
 * and then a silence until the window ends), and the bot's calls stay
 * under 50 a second - while a table in another channel is opened, joined
 * and started, each press answered at once.
 */
#define BUSY "4010"
static void test_strict_limits_paced(void **state)
{
	struct world *w = *state;
	char custom[128], payload[128], chat[16], method[16], path[512];
	long long prev = -1, longest = 0;
	int refused = -1, late = -1, seen = 0, n;

	assert_int_equal(fake_dc_strict(w->fake, true), 0);
	assert_int_equal(store_begin(w->b.store), GB_OK);
	for (int i = 0; i < 12; i++) {
		snprintf(payload, sizeof(payload), "{\"kind\":\"public\",\"text\":\"line %d\"}", i);
		assert_int_equal(store_out_add(w->b.store, "discord", BUSY, 0, "", payload, 0), GB_OK);
	}
	for (int c = 0; c < 60; c++) {
		snprintf(chat, sizeof(chat), "%d", 4100 + c);
		assert_int_equal(store_out_add(w->b.store, "discord", chat, 0, "", "{\"kind\":\"public\","
					       "\"text\":\"hello\"}", 0), GB_OK);
	}
	assert_int_equal(store_commit(w->b.store), GB_OK);
	outbox_wake(w->outbox);
	open_ludo(w, custom, sizeof(custom));
	bob_joins_and_starts(w, custom, sizeof(custom));
	assert_int_equal(fake_dc_wait(w->fake, "POST", "/channels/" BUSY "/", 12, 20000), 12);
	assert_true(fake_dc_wait(w->fake, "POST", "/channels/41", 60, 20000) >= 60);
	fake_dc_strict_counts(w->fake, &refused, &late);
	assert_int_equal(refused, 0);
	assert_int_equal(late, 0);
	/* the busy channel's posts in order, evenly: no gap near the 5 s window */
	n = fake_dc_count(w->fake, NULL, NULL);
	for (int i = 0; i < n; i++) {
		json_t *body = fake_dc_call(w->fake, i, method, sizeof(method), path, sizeof(path), NULL,
					    0, NULL);
		long long at = fake_dc_call_at(w->fake, i);

		if (!strcmp(method, "POST") && !strcmp(path, "/channels/" BUSY "/messages")) {
			snprintf(payload, sizeof(payload), "line %d", seen++);
			assert_string_equal(json_string_value(json_object_get(body, "content")), payload);
			if (prev >= 0 && at - prev > longest)
				longest = at - prev;
			prev = at;
		}
		json_decref(body);
	}
	assert_int_equal(seen, 12);
	assert_true(longest < 2500);
	fprintf(stderr, "  strict: 0 429s, longest gap between a channel's posts %lld ms\n", longest);
}

/*
 * /board answers with the table afresh at the bottom of the channel: the
 * table message it replaces (the answer to /new, known only through its
 * interaction) loses its buttons, so one table message has live buttons.
 */
static void test_board_reposts_and_strips_the_old_table(void **state)
{
	struct world *w = *state;
	char new_id[32], board_id[32], path[512], want[512];
	json_t *a = NULL, *body;
	struct store_table t;

	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "new", (const char *[]){ "game=ludo", NULL }, &a,
			       new_id, sizeof(new_id)),
			 200);
	json_decref(a);
	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "board", NULL, &a, board_id, sizeof(board_id)), 200);
	/* the answer is the table, with its buttons */
	assert_int_equal(json_integer_value(json_object_get(a, "type")), 4);
	assert_true(json_array_size(json_object_get(json_object_get(a, "data"), "components")) > 0);
	json_decref(a);
	snprintf(want, sizeof(want), "/webhooks/" APP "/tok-%s/messages/@original", new_id);
	assert_int_equal(fake_dc_wait(w->fake, "PATCH", want, 1, 10000), 1);
	body = fake_dc_last(w->fake, "PATCH", want, path, sizeof(path));
	assert_string_equal(path, want);
	assert_int_equal(json_array_size(json_object_get(body, "components")), 0);
	assert_true(json_is_array(json_object_get(body, "components")));
	json_decref(body);
	/* the table is now the /board answer's */
	table_get(w, table_id(w), &t);
	snprintf(want, sizeof(want), "@%s", board_id);
	assert_string_equal(t.message, want);
	store_table_release(&t);
	drain(w, 2000);
	/* and that message keeps its buttons: nothing stripped it */
	snprintf(want, sizeof(want), "/webhooks/" APP "/tok-%s/messages/@original", board_id);
	assert_int_equal(fake_dc_count(w->fake, "PATCH", want), 0);
}

static void test_table_edited_through_original_then_by_id(void **state)
{
	struct world *w = *state;
	struct store_table t;
	char new_id[32], path[512], want[512], real[STORE_ID_LEN];
	int64_t id;
	json_t *a = NULL, *body;

	/* typed /new: the answer is the table; a later edit goes through its webhook */
	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "new", (const char *[]){ "game=ludo", NULL }, &a,
			       new_id, sizeof(new_id)),
			 200);
	json_decref(a);
	id = table_id(w);
	/* bob's typed /join edits the table (its answer is the table again, re-posted) ... */
	/* ... but a row queued for the table (as a computer's move would be) edits @original */
	{
		char payload[256];

		snprintf(payload, sizeof(payload),
			 "{\"kind\":\"table\",\"text\":\"board\",\"table\":%lld,\"turn\":0,\"lang\":\"en\"}",
			 (long long)id);
		int rc = store_out_add(w->b.store, "discord", CHANNEL, id, "", payload, bot_now_ms());

		if (rc != GB_OK)
			print_error("store_out_add: %d: %s\n", rc, store_last_error());
		assert_int_equal(rc, GB_OK);
		outbox_wake(w->outbox);
	}
	assert_int_equal(fake_dc_wait(w->fake, "PATCH", "/webhooks/", 1, 10000), 1);
	body = fake_dc_last(w->fake, "PATCH", "/webhooks/", path, sizeof(path));
	snprintf(want, sizeof(want), "/webhooks/" APP "/tok-%s/messages/@original", new_id);
	assert_string_equal(path, want);
	assert_string_equal(json_string_value(json_object_get(body, "content")), "```\nboard\n```");
	json_decref(body);
	drain(w, 2000);
	/* the edit's answer told the real id: the next edit is by id, as the bot */
	table_get(w, id, &t);
	assert_true(t.message[0] >= '1' && t.message[0] <= '9');
	snprintf(real, sizeof(real), "%s", t.message);
	store_table_release(&t);

	/* bob's typed /join answers with the table afresh: the message it replaces loses its buttons */
	assert_int_equal(slash(w, BOB, MEMBER_PERMS, "join", NULL, &a, NULL, 0), 200);
	json_decref(a);
	snprintf(want, sizeof(want), "/channels/" CHANNEL "/messages/%s", real);
	assert_int_equal(fake_dc_wait(w->fake, "PATCH", want, 1, 10000), 1);
	body = fake_dc_last(w->fake, "PATCH", want, path, sizeof(path));
	assert_non_null(json_object_get(body, "components"));
	assert_int_equal(json_array_size(json_object_get(body, "components")), 0);
	assert_null(json_object_get(body, "content"));
	json_decref(body);
	drain(w, 2000);

	/* a deleted table message: posted afresh and its new id recorded */
	fake_dc_fault(w->fake, "PATCH", "/channels/", 0, 1, FAKE_DC_404, 0);
	{
		char payload[256];

		snprintf(payload, sizeof(payload),
			 "{\"kind\":\"table\",\"text\":\"board 2\",\"table\":%lld,\"turn\":1}", (long long)id);
		assert_int_equal(store_table_set_message(w->b.store, id, real), GB_OK);
		int rc = store_out_add(w->b.store, "discord", CHANNEL, id, "", payload, bot_now_ms());

		if (rc != GB_OK)
			print_error("store_out_add: %d: %s\n", rc, store_last_error());
		assert_int_equal(rc, GB_OK);
		outbox_wake(w->outbox);
	}
	assert_int_equal(fake_dc_wait(w->fake, "POST", "/channels/" CHANNEL "/messages", 1, 10000), 1);
	drain(w, 2000);
	assert_int_equal(fake_dc_count(w->fake, "PATCH", want), 2);
	table_get(w, id, &t);
	assert_string_not_equal(t.message, real);
	assert_true(t.message[0] >= '1' && t.message[0] <= '9');
	store_table_release(&t);

	/* an expired original: posted in the channel instead */
	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "board", NULL, &a, new_id, sizeof(new_id)), 200);
	json_decref(a);
	table_get(w, id, &t);
	assert_int_equal(t.message[0], '@');
	store_table_release(&t);
	snprintf(want, sizeof(want), "tok-%s", new_id);
	fake_dc_expire_token(w->fake, want);
	fake_dc_clear(w->fake);
	{
		char payload[256];

		snprintf(payload, sizeof(payload),
			 "{\"kind\":\"table\",\"text\":\"board 3\",\"table\":%lld,\"turn\":2}", (long long)id);
		int rc = store_out_add(w->b.store, "discord", CHANNEL, id, "", payload, bot_now_ms());

		if (rc != GB_OK)
			print_error("store_out_add: %d: %s\n", rc, store_last_error());
		assert_int_equal(rc, GB_OK);
		outbox_wake(w->outbox);
	}
	assert_int_equal(fake_dc_wait(w->fake, "POST", "/channels/" CHANNEL "/messages", 1, 10000), 1);
	assert_int_equal(fake_dc_count(w->fake, "PATCH", "/webhooks/"), 1);
	check_calls(w);
}

static void test_outbox_waits_out_429(void **state)
{
	struct world *w = *state;
	int64_t t0;
	char payload[128];

	fake_dc_fault(w->fake, "POST", "/channels/", 0, 1, FAKE_DC_429, 300);
	snprintf(payload, sizeof(payload), "{\"kind\":\"public\",\"text\":\"one\",\"lang\":\"en\"}");
	t0 = bot_now_ms();
	assert_int_equal(store_out_add(w->b.store, "discord", CHANNEL, 0, "", payload, t0), GB_OK);
	outbox_wake(w->outbox);
	assert_int_equal(fake_dc_wait(w->fake, "POST", "/channels/", 2, 10000), 2);
	assert_true(bot_now_ms() - t0 >= 300);
	drain(w, 2000);
	check_calls(w);
}

/* ---- a server where the app has no bot user ---- */

/* Standard error (the log) appended to path until log_restore() (or the teardown). */
static void log_to(struct world *w, const char *path)
{
	int fd;

	fflush(stderr);
	w->saved_err = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	assert_true(w->saved_err >= 0 && fd >= 0);
	assert_true(dup2(fd, 2) == 2);
	close(fd);
}

static void log_restore(struct world *w)
{
	fflush(stderr);
	dup2(w->saved_err, 2);
	close(w->saved_err);
	w->saved_err = -1;
}

/* How many lines of the log at path hold needle. */
static int log_count(const char *path, const char *needle)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, needle) != NULL;
	fclose(f);
	return n;
}

/* A reply handle "IID:ALICE:tok-IID" for an interaction made age_ms ago, into buf. */
static void handle_aged(struct world *w, int64_t age_ms, char *buf, size_t n)
{
	uint64_t ms = (uint64_t)(bot_now_ms() - age_ms - 1420070400000LL);
	char iid[32];

	snprintf(iid, sizeof(iid), "%llu", (unsigned long long)((ms << 22) | (++w->seq & 0x3fffff)));
	snprintf(buf, n, "%s:" ALICE ":tok-%s", iid, iid);
}

/*
 * A follow-up (a webhook post: no nonce) that Discord answers only after
 * 10.5 s: the post waits as long as the row's lease allows rather than
 * giving up at 10 s and posting it again, and the channel sees it once.
 * One that outlasts even that is in doubt: set aside, never posted again.
 */
static void test_slow_followup_posted_once(void **state)
{
	struct world *w = *state;
	char handle[128], payload[256];
	struct store_out row;
	struct delivery d;
	int pending = 1, aside = 0;

	handle_aged(w, 0, handle, sizeof(handle));
	snprintf(payload, sizeof(payload), "{\"kind\":\"public\",\"text\":\"slow line\",\"lang\":\"en\","
		 "\"origin\":\"%s\"}", handle);
	fake_dc_fault(w->fake, "POST", "/webhooks/", 0, 1, FAKE_DC_SLOW, 10500);
	assert_int_equal(store_out_add(w->b.store, "discord", CHANNEL, 0, "", payload, 1), GB_OK);
	outbox_wake(w->outbox);
	drain(w, 30000);
	assert_int_equal(store_out_count(w->b.store, "discord", &pending, &aside, NULL), GB_OK);
	assert_int_equal(pending, 0);
	assert_int_equal(aside, 0);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/webhooks/"), 1);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/"), 0);

	/* past the delivery's deadline: in doubt, given up, not posted again */
	fake_dc_fault(w->fake, "POST", "/webhooks/", 0, 1, FAKE_DC_SLOW, 2500);
	row_of(&row, payload);
	adapter_deadline_set(adapter_mono_ms() + 1000);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	adapter_deadline_set(0);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
	assert_non_null(strstr(d.why, "in doubt"));
	assert_int_equal(fake_dc_count(w->fake, "POST", "/webhooks/"), 2);
}

static void test_commands_only_channel_rows(void **state)
{
	struct world *w = *state;
	struct store_out row;
	struct store_table t;
	struct delivery d;
	char handle[96], path[512], want[512], val[16], log[128], payload[256];
	void *other = NULL;
	int64_t id;
	json_t *body;

	snprintf(log, sizeof(log), "%s/log", w->dir);
	open_ludo(w, payload, sizeof(payload));
	id = table_id(w);
	drain(w, 5000);
	fake_dc_clear(w->fake);
	log_to(w, log);
	fake_dc_deny_channel(w->fake, CHANNEL, 50013);
	/* the channel's newest interaction is older than 15 minutes */
	handle_aged(w, 16 * 60000, handle, sizeof(handle));
	assert_int_equal(store_meta_set(w->b.store, "discord.last." CHANNEL, handle), GB_OK);

	/* a line no interaction carries: refused once (403), remembered, given up */
	row_of(&row, "{\"kind\":\"public\",\"text\":\"timed out\",\"lang\":\"en\"}");
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
	assert_non_null(strstr(d.why, "interaction"));
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/"), 1);
	assert_int_equal(store_meta_get(w->b.store, "discord.hooks." CHANNEL, val, sizeof(val)), GB_OK);
	assert_string_equal(val, "1");
	/* the next is given up without asking again */
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
	assert_int_equal(fake_dc_count(w->fake, NULL, NULL), 1);

	/* with an interaction of the last 15 minutes: its follow-up, straight away */
	handle_aged(w, 60000, handle, sizeof(handle));
	assert_int_equal(store_meta_set(w->b.store, "discord.last." CHANNEL, handle), GB_OK);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	snprintf(want, sizeof(want), "/webhooks/" APP "/%s", strrchr(handle, ':') + 1);
	body = fake_dc_last(w->fake, "POST", "/webhooks/", path, sizeof(path));
	assert_string_equal(path, want);
	assert_string_equal(json_string_value(json_object_get(body, "content")), "timed out");
	assert_null(json_object_get(body, "flags"));
	json_decref(body);
	assert_int_equal(fake_dc_count(w->fake, NULL, "/channels/"), 1);

	/* the table (a computer's move): its message edited through that webhook, by id */
	assert_int_equal(store_table_set_message(w->b.store, id, "555"), GB_OK);
	snprintf(payload, sizeof(payload),
		 "{\"kind\":\"table\",\"text\":\"board\",\"table\":%lld,\"turn\":3,\"lang\":\"en\"}",
		 (long long)id);
	row_of(&row, payload);
	row.table = id;
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	snprintf(want, sizeof(want), "/webhooks/" APP "/%s/messages/555", strrchr(handle, ':') + 1);
	assert_int_equal(fake_dc_count(w->fake, "PATCH", want), 1);
	/* one it may not edit (or gone): the table posted afresh as a follow-up, and recorded */
	fake_dc_fault(w->fake, "PATCH", "/webhooks/", 0, 1, FAKE_DC_404, 0);
	discord_adapter.deliver(w->self, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	snprintf(want, sizeof(want), "/webhooks/" APP "/%s", strrchr(handle, ':') + 1);
	body = fake_dc_last(w->fake, "POST", "/webhooks/", path, sizeof(path));
	assert_string_equal(path, want);
	assert_string_equal(json_string_value(json_object_get(body, "content")), "```\nboard\n```");
	json_decref(body);
	table_get(w, id, &t);
	assert_string_not_equal(t.message, "555");
	assert_true(t.message[0] >= '1' && t.message[0] <= '9');
	store_table_release(&t);
	assert_int_equal(fake_dc_count(w->fake, NULL, "/channels/"), 1);

	/* after a restart (a new adapter on the same store): known at once, no refusal again */
	assert_int_equal(discord_adapter.start(&w->env, &other), GB_OK);
	row_of(&row, "{\"kind\":\"public\",\"text\":\"again\",\"lang\":\"en\"}");
	discord_adapter.deliver(other, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_dc_count(w->fake, NULL, "/channels/"), 1);
	/* no interaction to carry it: the bot is tried once (it may have been added since) */
	handle_aged(w, 16 * 60000, handle, sizeof(handle));
	assert_int_equal(store_meta_set(w->b.store, "discord.last." CHANNEL, handle), GB_OK);
	discord_adapter.deliver(other, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
	assert_int_equal(fake_dc_count(w->fake, NULL, "/channels/"), 2);
	discord_adapter.deliver(other, w->b.store, &row, &d);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
	assert_int_equal(fake_dc_count(w->fake, NULL, "/channels/"), 2);
	/* where the bot was added since, that try finds it so: the bot posts there again */
	assert_int_equal(store_meta_set(w->b.store, "discord.hooks.4001", "1"), GB_OK);
	snprintf(row.chat, sizeof(row.chat), "4001");
	for (int i = 0; i < 2; i++) {
		discord_adapter.deliver(other, w->b.store, &row, &d);
		assert_int_equal(d.result, DELIVERY_OK);
	}
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/4001/messages"), 2);
	assert_int_equal(store_meta_get(w->b.store, "discord.hooks.4001", val, sizeof(val)), GB_OK);
	assert_string_equal(val, "0");
	discord_adapter.stop(other);
	log_restore(w);
	/* said once per channel, not per row */
	assert_int_equal(log_count(log, "channel " CHANNEL ": the bot may not post there"), 1);
	assert_int_equal(log_count(log, "channel 4001: the bot may post there again"), 1);
	check_calls(w);
}

/* Ludo against a computer where the bot user is not: every board still reaches the channel. */
static void test_commands_only_channel_plays_on(void **state)
{
	struct world *w = *state;
	struct bot_choice ch[GB_MAX_LEGAL];
	char custom[128], log[128];
	int64_t id;
	int presses = 0, pending = 0, aside = 0, n;
	json_t *a = NULL;

	snprintf(log, sizeof(log), "%s/log", w->dir);
	log_to(w, log);
	fake_dc_deny_channel(w->fake, CHANNEL, 50001);
	id = open_ludo(w, custom, sizeof(custom));
	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "addbot", (const char *[]){ "level=easy", NULL },
			       &a, NULL, 0),
			 200);
	assert_int_equal(answer_type(a), 4);
	json_decref(a);
	posted(w);
	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "start", NULL, &a, NULL, 0), 200);
	json_decref(a);
	posted(w);
	for (int guard = 0; guard < 20000 && !table_over(w, id); guard++) {
		n = choices(w, ALICE, ch, GB_MAX_LEGAL);
		if (!n) {
			usleep(2000); /* the computer's turn */
			continue;
		}
		assert_int_equal(dc_custom_id_encode(ch[0].table, ch[0].turn, ch[0].cmd, custom,
						     sizeof(custom)),
				 GB_OK);
		assert_int_equal(press(w, ALICE, custom, w->table_msg, false, NULL, &a), 200);
		assert_int_equal(answer_type(a), 7);
		json_decref(a);
		presses++;
	}
	assert_true(table_over(w, id));
	assert_true(presses > 10);
	drain(w, 5000);
	log_restore(w);
	assert_int_equal(store_out_count(w->b.store, "discord", &pending, &aside, NULL), GB_OK);
	assert_int_equal(pending, 0);
	assert_int_equal(aside, 0); /* nothing lost */
	/* the bot was refused at most once; the computer's boards went through the presses' hooks */
	assert_true(fake_dc_count(w->fake, NULL, "/channels/") <= 1);
	assert_true(fake_dc_count(w->fake, "PATCH", "/webhooks/") > 0);
	assert_true(log_count(log, "the bot may not post there") <= 1);
	assert_int_equal(log_count(log, "given up"), 0);
	check_calls(w);
}

/* ---- direct messages and other applications ---- */

#define DM "6000"

/* A slash command from a group DM (context 2, channel 6009) by Alice: its answer holds want. */
static void group_dm_answers(struct world *w, const char *token, const char *name, const char *option,
			     const char *value, const char *want)
{
	json_t *ia, *a = NULL;
	char id[32];

	snowflake(w, id, sizeof(id));
	ia = json_pack("{sisssssssss{sssi}s{ssss}s{sss[{sssiss}]}si}", "type", 2, "id", id, "application_id",
		       APP, "token", token, "channel_id", "6009", "channel", "id", "6009", "type", 3, "user",
		       "id", ALICE, "username", "alice", "data", "name", name, "options", "name", option, "type",
		       3, "value", value, "context", 2);
	assert_int_equal(send_json(w, ia, &a), 200);
	assert_non_null(answer_content(a));
	if (!strstr(answer_content(a), want))
		fail_msg("/%s in a group DM answered: %s", name, answer_content(a));
	json_decref(a);
}

static void test_direct_message_interactions(void **state)
{
	struct world *w = *state;
	struct store_chat chat = { 0 };
	char id[32], custom[128];
	json_t *ia, *a = NULL;

	/* a DM: `user` and no `member`, no guild_id, a channel of type 1 */
	snowflake(w, id, sizeof(id));
	ia = json_pack("{sisssssssss{sssi}s{ssss}s{sssssi}sisssss[]}", "type", 2, "id", id,
		       "application_id", APP, "token", "tok-dm", "channel_id", DM, "channel", "id", DM,
		       "type", 1, "user", "id", ALICE, "username", "alice", "data", "id", "1", "name",
		       "new", "type", 1, "version", 1, "locale", "en-US", "app_permissions",
		       "2248473465835073", "entitlements");
	json_object_set_new(json_object_get(ia, "data"), "options",
			    json_pack("[{sssiss}]", "name", "game", "type", 3, "value", "ludo"));
	json_object_set_new(ia, "context", json_integer(1));
	assert_int_equal(send_json(w, ia, &a), 200);
	assert_int_equal(answer_type(a), 4);
	assert_false(answer_ephemeral(a));
	assert_true(find_button(json_object_get(answer_data(a), "components"), "addbot", custom,
				sizeof(custom)));
	json_decref(a);
	/* its button, pressed there: the message updated in place */
	snowflake(w, id, sizeof(id));
	ia = json_pack("{sisssssssss{sssi}s{ssss}s{sssi}s{sssi}}", "type", 3, "id", id, "application_id",
		       APP, "token", "tok-dm2", "channel_id", DM, "channel", "id", DM, "type", 1, "user",
		       "id", ALICE, "username", "alice", "data", "custom_id", custom, "component_type", 2,
		       "message", "id", "6100", "flags", 0);
	assert_int_equal(send_json(w, ia, &a), 200);
	assert_int_equal(answer_type(a), 7);
	json_decref(a);
	/* one's own DM: admin commands are one's own to use */
	snowflake(w, id, sizeof(id));
	ia = json_pack("{sisssssssss{ssss}s{sss[{sssiss}]}}", "type", 2, "id", id, "application_id", APP,
		       "token", "tok-dm3", "channel_id", DM, "user", "id", ALICE, "username", "alice",
		       "data", "name", "lang", "options", "name", "language", "type", 3, "value", "ne");
	assert_int_equal(send_json(w, ia, &a), 200);
	assert_int_equal(answer_type(a), 4);
	json_decref(a);
	assert_int_equal(store_chat_get(w->b.store, "discord", DM, "en", &chat), GB_OK);
	assert_string_equal(chat.lang, "ne");
	store_chat_release(&chat);
	/*
	 * A group DM (context 2: an app a person installed to their account),
	 * with `user` and no `member` as in the bot's DM: others read it, so
	 * it is no private chat and nobody is its admin.
	 */
	group_dm_answers(w, "tok-gdm", "lang", "language", "ne", "Only chat admins can change that");
	group_dm_answers(w, "tok-gdm2", "online", "game", "callbreak",
			 "Online tables are joined in a private chat with me");
	drain(w, 5000);
	assert_int_equal(fake_dc_count(w->fake, "POST", "/channels/"), 0);
	check_calls(w);
}

/*
 * /hand in a DM with no table of its own: the person's hands at the
 * tables where they sit, or, holding none, that no cards are held now -
 * not "there is no game here".
 */
static void test_direct_message_hand(void **state)
{
	struct world *w = *state;
	char id[32];
	json_t *ia, *a = NULL;

	snowflake(w, id, sizeof(id));
	ia = json_pack("{sisssssssss{sssi}s{ssss}s{sssssi}}", "type", 2, "id", id, "application_id", APP,
		       "token", "tok-dm-hand", "channel_id", "6001", "channel", "id", "6001", "type", 1,
		       "user", "id", ALICE, "username", "alice", "data", "id", "1", "name", "hand", "type", 1);
	assert_int_equal(send_json(w, ia, &a), 200);
	assert_int_equal(answer_type(a), 4);
	assert_non_null(answer_content(a));
	assert_null(strstr(answer_content(a), "There is no game here yet"));
	assert_non_null(strstr(answer_content(a), "You hold no cards now"));
	json_decref(a);
	drain(w, 5000);
	check_calls(w);
}

static void test_other_applications_answered_and_ignored(void **state)
{
	struct world *w = *state;
	struct snapshot before;
	char id[32], custom[128];
	json_t *ia, *a = NULL;
	int64_t table;

	table = open_ludo(w, custom, sizeof(custom));
	drain(w, 5000);
	snap(w, &before);

	/* another application's command and button reaching this endpoint */
	ia = interaction(w, 2, BOB, MEMBER_PERMS,
			 json_pack("{sssss[{sssiss}]}", "id", "1", "name", "new", "options", "name",
				   "game", "type", 3, "value", "snakes"),
			 id, sizeof(id));
	json_object_set_new(ia, "application_id", json_string("9999"));
	assert_int_equal(send_json(w, ia, &a), 200);
	assert_int_equal(answer_type(a), 4);
	assert_true(answer_ephemeral(a));
	assert_string_equal(answer_content(a), "That is not one of this bot's commands; nothing was changed.");
	json_decref(a);
	ia = interaction(w, 3, BOB, MEMBER_PERMS,
			 json_pack("{sssi}", "custom_id", custom, "component_type", 2), id, sizeof(id));
	json_object_set_new(ia, "application_id", json_string("9999"));
	json_object_set_new(ia, "message", json_pack("{sssi}", "id", w->table_msg, "flags", 0));
	assert_int_equal(send_json(w, ia, &a), 200);
	assert_int_equal(answer_type(a), 6);
	json_decref(a);
	/* a button whose custom_id is not button data of ours */
	assert_int_equal(press(w, BOB, "poll:vote:yes", w->table_msg, false, NULL, &a), 200);
	assert_int_equal(answer_type(a), 6);
	assert_null(answer_data(a));
	json_decref(a);
	/* a modal submitted (the bot opens none) */
	ia = interaction(w, 5, BOB, MEMBER_PERMS,
			 json_pack("{sss[{sis[{sissss}]}]}", "custom_id", "feedback", "components", "type", 1,
				   "components", "type", 4, "custom_id", "text", "value", "hi"),
			 id, sizeof(id));
	assert_int_equal(send_json(w, ia, &a), 200);
	assert_int_equal(answer_type(a), 4);
	assert_true(answer_ephemeral(a));
	json_decref(a);
	/* another application's autocomplete: no choices */
	ia = interaction(w, 4, BOB, MEMBER_PERMS,
			 json_pack("{sssss[{sssissso}]}", "id", "1", "name", "move", "options", "name",
				   "action", "type", 3, "value", "", "focused", json_true()),
			 id, sizeof(id));
	json_object_set_new(ia, "application_id", json_string("9999"));
	assert_int_equal(send_json(w, ia, &a), 200);
	assert_int_equal(answer_type(a), 8);
	assert_int_equal(json_array_size(json_object_get(answer_data(a), "choices")), 0);
	json_decref(a);
	assert_unchanged(w, &before);
	assert_int_equal(table_id(w), table);
}

/* ---- limits and the command set ---- */

static void test_message_and_component_limits(void **state)
{
	struct strbuf big = { 0 };
	json_t *buttons, *row, *c;
	char *text, id[128], cmd[128];
	int64_t table;
	int turn;

	(void)state;
	for (int i = 0; i < 400; i++)
		sb_add(&big, "बाघ ♠ ");
	text = dc_message_text(sb_str(&big), true);
	assert_true(strncmp(text, "```\n", 4) == 0);
	assert_non_null(strstr(text, "…\n```"));
	c = json_pack("{ss}", "content", text);
	check_limits(c);
	json_decref(c);
	free(text);
	text = dc_message_text("a `code` block ```", true);
	assert_string_equal(text, "```\na ˋcodeˋ block ˋˋˋ\n```");
	free(text);
	text = dc_message_text("*a* _b_ @everyone", false);
	assert_string_equal(text, "\\*a\\* \\_b\\_ @everyone");
	free(text);
	sb_release(&big);

	/* one row of 13 from the router: split into rows of at most 5 */
	row = json_array();
	for (int i = 0; i < 13; i++) {
		char label[24], command[24];

		snprintf(label, sizeof(label), "c%d", i);
		snprintf(command, sizeof(command), "/play %d", i);
		json_array_append_new(row, json_pack("{ssss}", "label", label, "cmd", command));
	}
	buttons = json_pack("[o]", row);
	c = dc_components(buttons, 3, 9, LANG_EN);
	assert_int_equal(json_array_size(c), 3);
	c = json_pack("{so}", "components", c);
	check_limits(c);
	json_decref(c);
	json_decref(buttons);
	/* 40 choices: select menus, values are the commands */
	row = json_array();
	for (int i = 0; i < 40; i++) {
		char label[24], command[24];

		snprintf(label, sizeof(label), "p%d", i);
		snprintf(command, sizeof(command), "/place %d", i);
		json_array_append_new(row, json_pack("{ssss}", "label", label, "cmd", command));
	}
	buttons = json_pack("[o]", row);
	c = dc_components(buttons, 3, 9, LANG_NE);
	assert_int_equal(json_array_size(c), 2);
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(json_array_get(c, 0), "components"), 0), "type")),
			 3);
	assert_int_equal(json_array_size(json_object_get(
				 json_array_get(json_object_get(json_array_get(c, 0), "components"), 0),
				 "options")),
			 25);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(json_array_get(c, 1), "components"), 0),
				    "custom_id")),
			    "3:9:~1");
	json_decref(c);
	json_decref(buttons);

	/* custom ids: round trip, at most 100 characters */
	assert_int_equal(dc_custom_id_encode(42, 17, "/play QS", id, sizeof(id)), GB_OK);
	assert_string_equal(id, "42:17:play QS");
	assert_int_equal(dc_custom_id_decode(id, &table, &turn, cmd, sizeof(cmd)), GB_OK);
	assert_int_equal(table, 42);
	assert_int_equal(turn, 17);
	assert_string_equal(cmd, "/play QS");
	memset(cmd, 'x', 99);
	cmd[0] = '/';
	cmd[99] = '\0';
	assert_int_equal(dc_custom_id_encode(1, 1, cmd, id, sizeof(id)), GB_EARGS);
	assert_int_equal(dc_custom_id_decode("1:x:roll", &table, &turn, cmd, sizeof(cmd)), GB_EPARSE);
	assert_int_equal(dc_custom_id_decode("1:2:", &table, &turn, cmd, sizeof(cmd)), GB_EPARSE);
	assert_int_equal(dc_custom_id_decode("3:9:~1", &table, &turn, cmd, sizeof(cmd)), GB_OK);
	assert_string_equal(cmd, "");
	assert_int_equal(dc_snowflake_ms("175928847299117063"), 1462015105796LL);
	assert_int_equal(dc_snowflake_ms("12x"), 0);
}

/* The autocomplete choices' values for /settings with the given options (the last focused). */
static json_t *settings_complete(struct world *w, const char *game, const char *key,
				 const char *focus, const char *typed)
{
	json_t *opts = json_array(), *a = NULL, *out;
	char id[32];

	if (game)
		json_array_append_new(opts, json_pack("{sssiss}", "name", "game", "type", 3, "value", game));
	if (key && strcmp(focus, "key"))
		json_array_append_new(opts, json_pack("{sssiss}", "name", "key", "type", 3, "value", key));
	json_array_append_new(opts, json_pack("{sssisssb}", "name", focus, "type", 3, "value", typed,
					      "focused", 1));
	assert_int_equal(send_json(w,
				   interaction(w, 4, ALICE, ADMIN_PERMS,
					       json_pack("{sssssO}", "id", "1", "name", "settings",
							 "options", opts),
					       id, sizeof(id)),
				   &a),
			 200);
	json_decref(opts);
	assert_int_equal(answer_type(a), 8);
	out = json_incref(json_object_get(answer_data(a), "choices"));
	json_decref(a);
	return out;
}

static void test_settings_autocomplete_and_typed_options(void **state)
{
	struct world *w = *state;
	struct store_chat chat = { 0 };
	json_t *c, *a = NULL;

	c = settings_complete(w, "ludo", NULL, "key", "");
	assert_int_equal(json_array_size(c), (size_t)gb_game_find("ludo")->nrules);
	for (int i = 0; i < gb_game_find("ludo")->nrules; i++)
		assert_string_equal(json_string_value(json_object_get(json_array_get(c, (size_t)i), "value")),
				    gb_game_find("ludo")->rules[i].key);
	json_decref(c);
	c = settings_complete(w, "ludo", NULL, "key", "six");
	assert_int_equal(json_array_size(c), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(c, 0), "value")),
			    "six_bonus");
	json_decref(c);
	c = settings_complete(w, "ludo", "six_bonus", "value", "");
	assert_int_equal(json_array_size(c), 2);
	json_decref(c);
	c = settings_complete(w, "digits", NULL, "key", "");
	assert_int_equal(json_array_size(c), 2);
	json_decref(c);
	/* nothing to offer where no table waits for the caller */
	{
		char id[32];

		assert_int_equal(send_json(w,
					   interaction(w, 4, ALICE, MEMBER_PERMS,
						       json_pack("{sssss[{sssissso}]}", "id", "1", "name",
								 "play", "options", "name", "card", "type",
								 3, "value", "", "focused", json_true()),
						       id, sizeof(id)),
					   &a),
				 200);
		assert_int_equal(json_array_size(json_object_get(answer_data(a), "choices")), 0);
		json_decref(a);
	}
	/* the typed options in the router's order: /settings ludo six_bonus off */
	assert_int_equal(slash(w, ALICE, ADMIN_PERMS, "settings",
			       (const char *[]){ "value=off", "key=six_bonus", "game=ludo", NULL }, &a,
			       NULL, 0),
			 200);
	assert_int_equal(answer_type(a), 4);
	json_decref(a);
	assert_int_equal(store_chat_get(w->b.store, "discord", CHANNEL, "en", &chat), GB_OK);
	assert_non_null(strstr(chat.settings, "\"six_bonus\":\"off\""));
	store_chat_release(&chat);
}

static void test_register_commands(void **state)
{
	struct world *w = *state;
	char *out_text = NULL, *err_text = NULL;
	size_t out_len = 0, err_len = 0;
	FILE *out = open_memstream(&out_text, &out_len), *err = open_memstream(&err_text, &err_len);
	char *argv_global[] = { "discord-register", NULL };
	char *argv_guild[] = { "discord-register", "--guild", GUILD, NULL };
	char *argv_bad[] = { "discord-register", "--guild", "x", NULL };
	char path[512];
	json_t *body, *set = dc_command_set(), *c;
	json_t *contexts = json_pack("[ii]", 0, 1), *installs = json_pack("[i]", 0);
	size_t i;
	int admin = 0;

	assert_int_equal(discord_register_main(1, argv_global, &w->cfg, out, err), 0);
	assert_int_equal(discord_register_main(3, argv_guild, &w->cfg, out, err), 0);
	assert_int_equal(discord_register_main(3, argv_bad, &w->cfg, out, err), 2);
	fclose(out);
	fclose(err);
	body = fake_dc_nth(w->fake, "PUT", NULL, 0, path, sizeof(path));
	assert_string_equal(path, "/applications/" APP "/commands");
	assert_true(json_equal(body, set));
	json_decref(body);
	body = fake_dc_nth(w->fake, "PUT", NULL, 1, path, sizeof(path));
	assert_string_equal(path, "/applications/" APP "/guilds/" GUILD "/commands");
	json_decref(body);
	assert_int_equal(fake_dc_count(w->fake, "PUT", NULL), 2);
	check_calls(w);
	json_array_foreach(set, i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		bool is_admin = json_object_get(c, "default_member_permissions") != NULL;

		admin += is_admin;
		/* a server's install, used in servers and the bot's DMs: never offered in a group DM */
		assert_true(json_equal(json_object_get(c, "contexts"), contexts));
		assert_true(json_equal(json_object_get(c, "integration_types"), installs));
		assert_int_equal(is_admin, !strcmp(name, "settings") || !strcmp(name, "speed") ||
						   !strcmp(name, "lang") || !strcmp(name, "grant"));
	}
	assert_int_equal(admin, 4);
	assert_non_null(strstr(out_text, "commands registered globally: 31"));
	assert_non_null(strstr(out_text, "commands registered in guild " GUILD ": 31"));
	assert_non_null(strstr(out_text, "/new game - Open a table"));
	assert_non_null(strstr(out_text, "/settings [game] [key] [value] (admins) -"));
	assert_non_null(strstr(err_text, "unknown option '--guild'"));
	json_decref(contexts);
	json_decref(installs);
	json_decref(set);
	free(out_text);
	free(err_text);
}

/*
 * The registration is the router's command table: every row with a menu
 * line, in order, its arguments as options in the router's order, the
 * games' names as the choices of a game.
 */
static void test_commands_are_the_router_table(void **state)
{
	json_t *set = dc_command_set(), *c;
	size_t n, i, k = 0;
	const struct bot_command *cmds = bot_commands(&n);

	(void)state;
	for (i = 0; i < n; i++) {
		if (!cmds[i].desc[LANG_EN])
			continue;
		c = json_array_get(set, k++);
		assert_string_equal(json_string_value(json_object_get(c, "name")), cmds[i].name);
		for (int a = 0; a < CMD_ARGS; a++) {
			json_t *opt = json_array_get(json_object_get(c, "options"), (size_t)a);

			if (!cmds[i].arg[a].name) {
				assert_null(opt);
				break;
			}
			assert_string_equal(json_string_value(json_object_get(opt, "name")), cmds[i].arg[a].name);
		}
	}
	assert_int_equal(json_array_size(set), k);
	json_array_foreach(set, i, c) {
		const char *name = json_string_value(json_object_get(c, "name"));
		json_t *choices = json_object_get(json_array_get(json_object_get(c, "options"), 0), "choices");

		assert_true(json_string_length(json_object_get(c, "description")) <= 100);
		if (!strcmp(name, "new") || !strcmp(name, "watch") || !strcmp(name, "rules")) {
			assert_int_equal(json_array_size(choices), 4);
			assert_string_equal(json_string_value(json_object_get(json_array_get(choices, 3), "value")),
					    "callbreak");
		}
		if (!strcmp(name, "settings"))
			assert_int_equal(json_array_size(choices), 6);
		if (!strcmp(name, "place"))
			assert_string_equal(json_string_value(json_object_get(c, "description")),
					    "Place a piece (Bagh Chal)");
	}
	json_decref(set);
}

static void test_config_plain_names(void **state)
{
	struct config c;
	char err[256];

	(void)state;
	setenv("DISCORD_API_URL", "http://127.0.0.1:9/api", 1);
	setenv("DISCORD_APP_ID", "77", 1);
	setenv("GAMEBOT_DISCORD_APP_ID", "78", 1);
	setenv("DISCORD_PUBLIC_KEY", "ab", 1);
	setenv("GAMEBOT_CONFIG", "/dev/null", 1);
	assert_int_equal(config_load(&c, NULL, err, sizeof(err)), GB_OK);
	assert_string_equal(c.discord_api, "http://127.0.0.1:9/api");
	assert_string_equal(c.discord_app_id, "78"); /* the prefixed spelling wins */
	assert_string_equal(c.discord_public_key, "ab");
	unsetenv("DISCORD_API_URL");
	unsetenv("DISCORD_APP_ID");
	unsetenv("GAMEBOT_DISCORD_APP_ID");
	unsetenv("DISCORD_PUBLIC_KEY");
	unsetenv("GAMEBOT_CONFIG");
}

/* ---- the real binary ---- */

static void test_real_binary_serves_discord(void **state)
{
	struct world *w = *state;
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	char hex[2 * crypto_sign_PUBLICKEYBYTES + 1], db[160], listen[64], log[160], health[96];
	int port = free_port(), status = 0, up = 0;
	json_t *a = NULL;
	pid_t pid;
	FILE *f;
	char text[8192];
	size_t n;

	sodium_bin2hex(hex, sizeof(hex), w->pk, sizeof(w->pk));
	snprintf(db, sizeof(db), "%s/serve.db", w->dir);
	snprintf(log, sizeof(log), "%s/serve.log", w->dir);
	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	{
		/* the spellings Discord's guides use, without the GAMEBOT_ prefix */
		char e_pk[160], e_api[160], e_db[200], e_listen[96];
		const char *env[] = { e_pk, "DISCORD_APP_ID=" APP, "DISCORD_TOKEN=" BOT_TOKEN, e_api,
				      e_db, e_listen, "GAMEBOT_CONFIG=/dev/null", "GAMEBOT_TELEGRAM_TOKEN",
				      "TELEGRAM_TOKEN", NULL };

		snprintf(e_pk, sizeof(e_pk), "DISCORD_PUBLIC_KEY=%s", hex);
		snprintf(e_api, sizeof(e_api), "DISCORD_API_URL=%s", fake_dc_url(w->fake));
		snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", db);
		snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=%s", listen);
		pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, log, false);
	}
	assert_true(pid > 0);
	snprintf(w->url, sizeof(w->url), "http://127.0.0.1:%d/discord", port);
	snprintf(health, sizeof(health), "{\"type\":1,\"id\":\"1\",\"application_id\":\"" APP "\"}");
	for (int i = 0; i < 200 && !up; i++) {
		up = post_signed(w, health, 0, &a) == 200;
		json_decref(a);
		a = NULL;
		if (!up)
			usleep(50000);
	}
	assert_true(up);
	assert_int_equal(post_signed(w, health, 0, &a), 200);
	assert_int_equal(answer_type(a), 1);
	json_decref(a);
	assert_int_equal(post_raw(w, health, strlen(health), "00", "1", NULL), 401);
	assert_int_equal(slash(w, ALICE, MEMBER_PERMS, "new", (const char *[]){ "game=snakes", NULL },
			       &a, NULL, 0),
			 200);
	assert_int_equal(answer_type(a), 4);
	assert_non_null(strstr(answer_content(a), "```"));
	json_decref(a);
	/* its public line went out through the service's own outbox worker */
	assert_int_equal(fake_dc_wait(w->fake, "POST", "/webhooks/" APP "/tok-", 1, 5000), 1);
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	f = fopen(log, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	assert_non_null(strstr(text, "adapters: discord"));
	assert_null(strstr(text, BOT_TOKEN));
	check_calls(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ping_and_endpoint_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_missing_stale_malformed_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsigned_refused_before_its_body, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood_of_unsigned_posts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_headers_hold_no_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_over_limit_answered_without_rows, setup_limited, teardown),
		cmocka_unit_test_setup_teardown(test_replayed_interaction_answered_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_and_forged_buttons_refused_ephemerally, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_admin_rights_from_member_permissions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callbreak_one_person_three_computers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ludo_two_people, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer_found_behind_a_long_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_message_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delivery_faults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strict_limits_paced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_edited_through_original_then_by_id, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_board_reposts_and_strips_the_old_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outbox_waits_out_429, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_followup_posted_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands_only_channel_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands_only_channel_plays_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_message_interactions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct_message_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_applications_answered_and_ignored, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_settings_autocomplete_and_typed_options, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_register_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_binary_serves_discord, setup, teardown),
		cmocka_unit_test(test_message_and_component_limits),
		cmocka_unit_test(test_commands_are_the_router_table),
		cmocka_unit_test(test_config_plain_names),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER")); /* one test while debugging */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
