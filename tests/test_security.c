/*
 * test_security.c - what an operator trusts the service with stays its own.
 *
 * Covered:
 *   - the log's one redacting formatter (gb_redact, gb_log): a URL's
 *     password, a Bot API path's token, key=value secrets, bearer tokens
 *     and every registered value become "***", whatever the line quotes;
 *   - the real `gamebot serve` (and `gamebot console`) given a PostgreSQL
 *     URL with a password and tokens for both platforms: with a database
 *     that cannot be reached (the message it dies with), and running on
 *     the test server (GAMEBOT_TEST_PG, the password added to its URL)
 *     through commands on both platforms whose deliveries fail (the fake
 *     Telegram answers 401 to another token, the fake Discord 401 to the
 *     bot and 500 to webhooks): no password, token or secret in its log
 *     or /metrics;
 *   - the SQLite database, its write-ahead log, its index and its folder
 *     made 0600/0700 whatever the umask; an existing file others may read
 *     named in one warning line per process;
 *   - a platform's answer read into at most ADAPTER_MAX_RESPONSE bytes;
 *     a strbuf whose length would wrap size_t fails instead of writing.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/adapter.h"
#include "bot/base/config.h"
#include "bot/base/log.h"
#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_discord.h"
#include "tests/fake_telegram.h"
#include "tests/pgadmin.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define PG_PASSWORD "Pg-pass-7f3c9e"
#define TG_TOKEN "6161:tg-token-a8b2c4d6e8"
#define TG_SECRET "tg-webhook-secret-51d0"
#define DC_TOKEN "dc-bot-token-MTAwMDAw.x9y8z7"
#define DC_APP "1000"

static const char *const secrets[] = { PG_PASSWORD, TG_TOKEN, TG_SECRET, DC_TOKEN, "a8b2c4d6e8" };

static const char *bin(void)
{
	const char *b = getenv("GAMEBOT_BIN");

	return b ? b : "bin/gamebot";
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* The whole file at path (caller frees); "" when it cannot be read. */
static char *slurp(const char *path)
{
	struct strbuf sb = { 0 };
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_addn(&sb, buf, n);
	if (f)
		fclose(f);
	return sb_detach(&sb);
}

/* Fail, showing where, when text holds any of the secrets. */
static void assert_no_secret(const char *what, const char *text)
{
	for (size_t i = 0; i < sizeof(secrets) / sizeof(secrets[0]); i++)
		if (strstr(text, secrets[i]))
			fail_msg("%s shows the secret '%s':\n%s", what, secrets[i], text);
}

/* ---- the formatter ---- */

static void redacts(const char *in, const char *want)
{
	char out[512];

	gb_redact(in, out, sizeof(out));
	assert_string_equal(out, want);
}

static void test_redact_rules(void **state)
{
	(void)state;
	gb_log_secrets_clear();
	redacts("cannot open the store 'postgresql://gamebot:s3cr%40t@db:5432/gamebot': refused",
		"cannot open the store 'postgresql://gamebot:***@db:5432/gamebot': refused");
	redacts("API https://user:pw@proxy.example/api/v10 and https://discord.com/api/v10",
		"API https://user:***@proxy.example/api/v10 and https://discord.com/api/v10");
	redacts("POST https://api.telegram.org/bot123456:AAE-x_y/sendMessage failed",
		"POST https://api.telegram.org/bot***/sendMessage failed");
	redacts("host=db user=gamebot password=hunter22 dbname=g",
		"host=db user=gamebot password=*** dbname=g");
	redacts("telegram_secret=abc&metrics_token=xyz&chat=5", "telegram_secret=***&metrics_token=***&chat=5");
	redacts("Authorization: Bot MTAwMDAwMDAwMDAwMDAwMDAw.Gh7x.abc", "Authorization: Bot ***");
	redacts("Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "Authorization: Bearer ***");
	/* ordinary words are left alone */
	redacts("bot is now 'member' in chat -100; Bot 42 moved; token 3 home; /bottom",
		"bot is now 'member' in chat -100; Bot 42 moved; token 3 home; /bottom");
	redacts("http://127.0.0.1:8080/healthz", "http://127.0.0.1:8080/healthz");
	gb_log_secret("s3kr1t-value");
	gb_log_secret("ab"); /* too short to hide: it would blank out words */
	redacts("the platform said: s3kr1t-value is wrong (ab)", "the platform said: *** is wrong (ab)");
	gb_log_secrets_clear();
	redacts("s3kr1t-value", "s3kr1t-value");
	/* a short buffer is cut, never overrun, and always terminated */
	{
		char out[8];

		assert_int_equal(gb_redact("postgresql://u:p@h/d", out, sizeof(out)), 7);
		assert_string_equal(out, "postgre");
	}
}

/* The configuration's tokens, secrets and database password, word for word wherever they appear. */
static void test_config_secrets_registered(void **state)
{
	struct config c;

	(void)state;
	gb_log_secrets_clear();
	config_init(&c);
	snprintf(c.telegram_token, sizeof(c.telegram_token), "%s", TG_TOKEN);
	snprintf(c.telegram_secret, sizeof(c.telegram_secret), "%s", TG_SECRET);
	snprintf(c.discord_token, sizeof(c.discord_token), "%s", DC_TOKEN);
	snprintf(c.db, sizeof(c.db), "postgresql://gamebot:%s@db:5432/gamebot?sslmode=require", PG_PASSWORD);
	config_hide_secrets(&c);
	/* quoted bare, as a platform's error text or a libpq message might */
	redacts("a " TG_TOKEN " b " TG_SECRET " c " DC_TOKEN " d " PG_PASSWORD " e",
		"a *** b *** c *** d *** e");
	/* the public key and the application id are not secrets */
	redacts("app 1000 key abcdef0123", "app 1000 key abcdef0123");
	gb_log_secrets_clear();
}

/* gb_log() itself: the line written to standard error is the redacted one. */
static void test_log_line_redacted(void **state)
{
	char path[] = "/tmp/gamebot-security-log-XXXXXX", *text;
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	gb_log_secret(DC_TOKEN);
	dup2(fd, STDERR_FILENO);
	gb_log("cannot open the store '%s': %s", "postgresql://gamebot:" PG_PASSWORD "@h/db", "refused");
	gb_log("discord said %s to %s", DC_TOKEN, "https://x/api/bot" TG_TOKEN "/getMe");
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(fd);
	text = slurp(path);
	unlink(path);
	gb_log_secrets_clear();
	assert_no_secret("the log", text);
	assert_non_null(strstr(text, "postgresql://gamebot:***@h/db"));
	assert_non_null(strstr(text, "discord said *** to https://x/api/bot***/getMe"));
	free(text);
}

/* ---- the service ---- */

/* The test server's URL with PG_PASSWORD as its user's password, in out. */
static void with_password(const char *base, char *out, size_t n)
{
	const char *a = strstr(base, "://");
	const char *at = a ? strchr(a + 3, '@') : NULL;

	assert_non_null(a);
	if (at)
		snprintf(out, n, "%.*s:" PG_PASSWORD "%s", (int)(at - base), base, at);
	else
		snprintf(out, n, "%.*spostgres:" PG_PASSWORD "@%s", (int)(a + 3 - base), base, a + 3);
}

struct svc {
	char dir[64], log[128], db[1024];
	char url_tg[96], url_dc[96], url_health[96], url_metrics[96];
	struct fake_tg *tg;
	struct fake_dc *dc;
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	pid_t pid;
	long long next_update;
	unsigned seq;
};

/* The service a test runs, for its teardown to stop when an assertion ends the test early. */
static pid_t running = -1;

static int stop_running(void **state)
{
	(void)state;
	if (running > 0) {
		kill(running, SIGKILL);
		waitpid(running, NULL, 0);
	}
	running = -1;
	return 0;
}

/* Run the binary with verb and the service's environment; its pid. */
static pid_t run_with_secrets(struct svc *x, const char *verb, int port)
{
	char e_db[1100], e_listen[64], e_api_tg[160], e_api_dc[160], e_pk[160];
	char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen, "TELEGRAM_TOKEN=" TG_TOKEN,
			      "TELEGRAM_SECRET=" TG_SECRET, e_api_tg, "TELEGRAM_MODE=webhook",
			      "GAMEBOT_TELEGRAM_PACING=off", "DISCORD_APP_ID=" DC_APP, e_pk,
			      "DISCORD_TOKEN=" DC_TOKEN, e_api_dc, NULL };

	sodium_bin2hex(hex, sizeof(hex), x->pk, sizeof(x->pk));
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", x->db);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api_tg, sizeof(e_api_tg), "TELEGRAM_API_URL=%s",
		 x->tg ? fake_tg_url(x->tg) : "http://127.0.0.1:1");
	snprintf(e_api_dc, sizeof(e_api_dc), "DISCORD_API_URL=%s",
		 x->dc ? fake_dc_url(x->dc) : "http://127.0.0.1:1");
	snprintf(e_pk, sizeof(e_pk), "DISCORD_PUBLIC_KEY=%s", hex);
	running = spawn(bin(), (char *const[]){ (char *)bin(), (char *)verb, NULL }, env, x->log, true);
	return running;
}

static void svc_init(struct svc *x)
{
	memset(x, 0, sizeof(*x));
	assert_true(sodium_init() >= 0);
	crypto_sign_keypair(x->pk, x->sk);
	assert_int_equal(fixture_dir(x->dir, sizeof(x->dir), "security"), 0);
	snprintf(x->log, sizeof(x->log), "%s/serve.log", x->dir);
	x->next_update = 700000;
}

static void svc_cleanup(struct svc *x)
{
	fake_tg_free(x->tg);
	fake_dc_free(x->dc);
	assert_int_equal(fixture_rm(x->dir), 0);
}

/* Wait (bounded) for pid to end; its exit status, or -1 if it had to be killed. */
static int wait_exit(pid_t pid, int timeout_ms)
{
	int status = 0;

	for (int waited = 0; waited < timeout_ms; waited += 20) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			running = -1;
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		}
		sleep_ms(20);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	running = -1;
	return -1;
}

/*
 * A database that cannot be reached: serve and console both die saying
 * which store they could not open, and the line shows no password.
 */
static void test_unreachable_database_message(void **state)
{
	struct svc x;
	char *text;
	int rc;

	(void)state;
	svc_init(&x);
	snprintf(x.db, sizeof(x.db),
		 "postgresql://gamebot:" PG_PASSWORD "@127.0.0.1:1/gamebot?connect_timeout=2");
	x.pid = run_with_secrets(&x, "serve", free_port());
	assert_true(x.pid > 0);
	rc = wait_exit(x.pid, 30000);
	assert_true(rc > 0);
	x.pid = run_with_secrets(&x, "console", free_port());
	assert_true(x.pid > 0);
	rc = wait_exit(x.pid, 30000);
	assert_true(rc > 0);
	text = slurp(x.log);
	assert_no_secret("the failed start's messages", text);
	/* both said what they could not open, with the password hidden */
	assert_non_null(strstr(text, "postgresql://gamebot:***@127.0.0.1:1/gamebot"));
	assert_non_null(strstr(strstr(text, "postgresql://gamebot:***@") + 1, "postgresql://gamebot:***@"));
	free(text);
	svc_cleanup(&x);
}

/* ---- requests as the platforms send them ---- */

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	if (arg)
		sb_addn(arg, p, size * n);
	return size * n;
}

static long request(const char *url, struct curl_slist *h, const char *body, struct strbuf *answer)
{
	CURL *c = curl_easy_init();
	long code = 0;

	curl_easy_setopt(c, CURLOPT_URL, url);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, answer);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	return code;
}

static long tg_text(struct svc *x, const char *chat, const char *user, const char *text)
{
	json_t *u = json_pack("{sIs{sIs{sIss}s{sIss}ss}}", "update_id", (json_int_t)x->next_update,
			      "message", "message_id", (json_int_t)x->next_update, "from", "id",
			      (json_int_t)strtoll(user, NULL, 10), "first_name", "P", "chat", "id",
			      (json_int_t)strtoll(chat, NULL, 10), "type", "supergroup", "text", text);
	char *body = json_dumps(u, JSON_COMPACT);
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	long code;

	x->next_update++;
	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " TG_SECRET);
	code = request(x->url_tg, h, body, NULL);
	curl_slist_free_all(h);
	free(body);
	json_decref(u);
	return code;
}

static long dc_slash(struct svc *x, const char *channel, const char *user, const char *cmd, const char *game)
{
	char id[32], tok[48], ts[32], hdr[200], sig[2 * crypto_sign_BYTES + 1];
	unsigned char bin_sig[crypto_sign_BYTES];
	struct strbuf msg = { 0 };
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct timespec now;
	json_t *ia, *options = json_array();
	char *body;
	uint64_t ms;
	long code;

	clock_gettime(CLOCK_REALTIME, &now);
	ms = (uint64_t)((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 - 1420070400000LL);
	snprintf(id, sizeof(id), "%llu", (unsigned long long)((ms << 22) | (++x->seq & 0x3fffff)));
	snprintf(tok, sizeof(tok), "tok-%s", id);
	if (game)
		json_array_append_new(options, json_pack("{sssiss}", "name", "game", "type", 3, "value", game));
	ia = json_pack("{sisssssssssss{s{ssss}ss}s{sssssiso}}", "type", 2, "id", id, "application_id", DC_APP,
		       "token", tok, "channel_id", channel, "guild_id", "5000", "member", "user", "id", user,
		       "username", "p", "permissions", "0", "data", "id", "1", "name", cmd, "type", 1,
		       "options", options);
	body = json_dumps(ia, JSON_COMPACT);
	json_decref(ia);
	snprintf(ts, sizeof(ts), "%lld", (long long)now.tv_sec);
	sb_add(&msg, ts);
	sb_add(&msg, body);
	crypto_sign_detached(bin_sig, NULL, (const unsigned char *)sb_str(&msg), msg.len, x->sk);
	sodium_bin2hex(sig, sizeof(sig), bin_sig, sizeof(bin_sig));
	snprintf(hdr, sizeof(hdr), "X-Signature-Ed25519: %s", sig);
	h = curl_slist_append(h, hdr);
	snprintf(hdr, sizeof(hdr), "X-Signature-Timestamp: %s", ts);
	h = curl_slist_append(h, hdr);
	code = request(x->url_dc, h, body, NULL);
	curl_slist_free_all(h);
	sb_release(&msg);
	free(body);
	return code;
}

/* Wait (bounded) until the log holds needle. */
static bool log_says(const char *path, const char *needle, int timeout_ms)
{
	for (int waited = 0;; waited += 50) {
		char *text = slurp(path);
		bool found = strstr(text, needle) != NULL;

		free(text);
		if (found || waited >= timeout_ms)
			return found;
		sleep_ms(50);
	}
}

/*
 * The service running on PostgreSQL with a password, both platforms
 * configured: commands on each, every delivery refused (401) or failing
 * (500). Nothing it writes or serves shows a secret.
 */
static void test_running_service_hides_secrets(void **state)
{
	const char *base = getenv("GAMEBOT_TEST_PG");
	char schema[64], sql[200], plain[1024];
	struct strbuf metrics = { 0 };
	struct svc x;
	char *text;
	int port, status = 0;

	(void)state;
	if (!base || !base[0])
		fail_msg("GAMEBOT_TEST_PG is not set: no PostgreSQL server to run the service on"
			 " (make test starts one through tests/pg.sh)");
	svc_init(&x);
	snprintf(schema, sizeof(schema), "security_%ld", (long)getpid());
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema);
	assert_int_equal(pg_admin(base, sql), 0);
	snprintf(plain, sizeof(plain), "%s%soptions=-csearch_path%%3D%s", base, strchr(base, '?') ? "&" : "?",
		 schema);
	with_password(plain, x.db, sizeof(x.db));
	/* Telegram knows another token (401 to every call); Discord another bot (401) and 500 to webhooks */
	assert_int_equal(fake_tg_start(&x.tg, "7171:another-token", "gamebot_security_bot"), 0);
	assert_int_equal(fake_dc_start(&x.dc, "another-bot-token"), 0);
	fake_dc_fault(x.dc, NULL, "/webhooks", 0, 100000, FAKE_DC_500, 0);
	port = free_port();
	snprintf(x.url_tg, sizeof(x.url_tg), "http://127.0.0.1:%d/telegram", port);
	snprintf(x.url_dc, sizeof(x.url_dc), "http://127.0.0.1:%d/discord", port);
	snprintf(x.url_health, sizeof(x.url_health), "http://127.0.0.1:%d/healthz", port);
	snprintf(x.url_metrics, sizeof(x.url_metrics), "http://127.0.0.1:%d/metrics", port);
	x.pid = run_with_secrets(&x, "serve", port);
	assert_true(x.pid > 0);
	if (!wait_serving(x.pid, x.url_health, 20000)) {
		text = slurp(x.log);
		fail_msg("gamebot serve did not answer; it said:\n%s", text);
	}
	assert_int_equal(tg_text(&x, "-100777", "11", "/new snakes"), 200);
	assert_int_equal(tg_text(&x, "-100777", "12", "/join"), 200);
	assert_int_equal(tg_text(&x, "-100777", "11", "/help"), 200);
	assert_int_equal(dc_slash(&x, "6000", "21", "new", "snakes"), 200);
	assert_int_equal(dc_slash(&x, "6000", "22", "join", NULL), 200);
	/* the deliveries were tried, refused (the token: each platform paused), and said so in the log */
	assert_true(log_says(x.log, "telegram refuses the service's credentials", 10000));
	assert_true(fake_dc_wait(x.dc, NULL, "/webhooks", 1, 10000) >= 1);
	assert_true(log_says(x.log, "discord refuses the service's credentials", 10000));
	/* /healthz says so: only an operator can cure a refused token */
	assert_int_equal(request(x.url_health, NULL, NULL, NULL), 503);
	assert_int_equal(request(x.url_metrics, NULL, NULL, &metrics), 200);
	assert_no_secret("/metrics", sb_str(&metrics));
	sb_release(&metrics);
	kill(x.pid, SIGTERM);
	waitpid(x.pid, &status, 0);
	running = -1;
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	text = slurp(x.log);
	assert_no_secret("the service's log", text);
	free(text);
	snprintf(sql, sizeof(sql), "DROP SCHEMA IF EXISTS %s CASCADE", schema);
	assert_int_equal(pg_admin(base, sql), 0);
	svc_cleanup(&x);
}

/* ---- files ---- */

static unsigned mode_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		fail_msg("%s: %s", path, strerror(errno));
	return (unsigned)(st.st_mode & 0777);
}

/* Under the given umask, a new database, its log, index and folder are private. */
static void private_under(mode_t mask)
{
	char dir[64], sub[128], db[160], side[176];
	struct store *s = NULL;
	mode_t old;

	assert_int_equal(fixture_dir(dir, sizeof(dir), "security-db"), 0);
	snprintf(sub, sizeof(sub), "%s/var", dir);
	snprintf(db, sizeof(db), "%s/gamebot.db", sub);
	old = umask(mask);
	assert_int_equal(store_open(&s, db), 0);
	/* a write, so the write-ahead log and its index exist */
	assert_int_equal(store_meta_set(s, "security-test", "1"), 0);
	umask(old);
	assert_int_equal(mode_of(sub), 0700);
	assert_int_equal(mode_of(db), 0600);
	snprintf(side, sizeof(side), "%s-wal", db);
	assert_int_equal(mode_of(side), 0600);
	snprintf(side, sizeof(side), "%s-shm", db);
	assert_int_equal(mode_of(side), 0600);
	store_free(s);
	assert_int_equal(fixture_rm(dir), 0);
}

static void test_sqlite_files_private(void **state)
{
	(void)state;
	private_under(0);     /* a umask that would let everyone read */
	private_under(022);   /* the usual one */
	private_under(0277);  /* one that would lock the owner out */
}

static int warnings;
static char last_warning[512];

static void count_warning(const char *message)
{
	warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", message);
}

/* An existing file others may read: one warning line, then none; a private one: none. */
static void test_sqlite_wide_file_warned_once(void **state)
{
	char dir[64], db[96], wide[96];
	struct store *s = NULL;
	int fd;

	(void)state;
	assert_int_equal(fixture_dir(dir, sizeof(dir), "security-db"), 0);
	snprintf(db, sizeof(db), "%s/private.db", dir);
	snprintf(wide, sizeof(wide), "%s/wide.db", dir);
	store_set_warn(count_warning);
	assert_int_equal(store_open(&s, db), 0);
	store_free(s);
	assert_int_equal(store_open(&s, db), 0);
	store_free(s);
	assert_int_equal(warnings, 0);
	fd = open(wide, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	close(fd);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(store_open(&s, wide), 0);
		store_free(s);
	}
	assert_int_equal(warnings, 1);
	assert_non_null(strstr(last_warning, wide));
	assert_non_null(strstr(last_warning, "0644"));
	/* the operator's choice stands: warned about, not changed */
	assert_int_equal(mode_of(wide), 0644);
	store_set_warn(NULL);
	assert_int_equal(fixture_rm(dir), 0);
}

/* ---- memory ---- */

/* A file of n bytes read through adapter_curl_sink (file://): curl's result and what was kept. */
static CURLcode fetch_file(size_t n, struct strbuf *in)
{
	char path[] = "/tmp/gamebot-security-body-XXXXXX", url[96];
	int fd = mkstemp(path);
	char *block = malloc(n + 1);
	CURL *c = curl_easy_init();
	CURLcode rc;

	assert_true(fd >= 0 && block && c);
	memset(block, 'x', n);
	assert_int_equal(write(fd, block, n), (ssize_t)n);
	close(fd);
	snprintf(url, sizeof(url), "file://%s", path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, adapter_curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, in);
	rc = curl_easy_perform(c);
	curl_easy_cleanup(c);
	unlink(path);
	free(block);
	return rc;
}

static void test_platform_answer_bounded(void **state)
{
	struct strbuf in = { 0 };

	(void)state;
	assert_int_equal(fetch_file(ADAPTER_MAX_RESPONSE, &in), CURLE_OK);
	assert_int_equal(in.len, ADAPTER_MAX_RESPONSE);
	sb_release(&in);
	assert_int_equal(fetch_file(ADAPTER_MAX_RESPONSE + 1, &in), CURLE_WRITE_ERROR);
	assert_true(in.len <= ADAPTER_MAX_RESPONSE);
	sb_release(&in);
	assert_int_equal(fetch_file(8 * ADAPTER_MAX_RESPONSE, &in), CURLE_WRITE_ERROR);
	assert_true(in.len <= ADAPTER_MAX_RESPONSE);
	sb_release(&in);
}

static void test_strbuf_length_never_wraps(void **state)
{
	char small[16] = "abc";
	struct strbuf sb = { .buf = small, .len = SIZE_MAX - 8, .cap = SIZE_MAX - 4 };
	struct strbuf sb2 = { .buf = small, .len = PTRDIFF_MAX - 8, .cap = PTRDIFF_MAX - 4 };

	(void)state;
	/* the sum would wrap to a small number that seems to fit: refused, nothing written */
	sb_addn(&sb, "0123456789abcdef", 16);
	assert_true(sb.failed);
	assert_int_equal(sb.len, SIZE_MAX - 8);
	assert_string_equal(small, "abc");
	/* past what any allocation can be (PTRDIFF_MAX): refused without asking for it */
	sb_addn(&sb2, "0123456789abcdef", 16);
	assert_true(sb2.failed);
	assert_string_equal(small, "abc");
	/* an ordinary buffer still grows */
	{
		struct strbuf ok = { 0 };

		for (int i = 0; i < 1000; i++)
			sb_add(&ok, "0123456789");
		assert_false(ok.failed);
		assert_int_equal(ok.len, 10000);
		sb_release(&ok);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redact_rules),
		cmocka_unit_test(test_config_secrets_registered),
		cmocka_unit_test(test_log_line_redacted),
		cmocka_unit_test(test_strbuf_length_never_wraps),
		cmocka_unit_test(test_platform_answer_bounded),
		cmocka_unit_test(test_sqlite_files_private),
		cmocka_unit_test(test_sqlite_wide_file_warned_once),
		cmocka_unit_test_teardown(test_unreachable_database_message, stop_running),
		cmocka_unit_test_teardown(test_running_service_hides_secrets, stop_running),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
