/*
 * fixture.c - the suites' shared set-up and teardown (fixture.h): the
 * temporary directory, its removal without a shell, a bot on a store
 * file in it, the Telegram adapter's settings on the fake Bot API, and
 * the coins ledger's audit at teardown.
 */
/* nftw()'s FTW_PHYS and FTW_MOUNT are X/Open's */
#define _XOPEN_SOURCE 700

#include <curl/curl.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/fixture.h"

#define FIXTURE_FDS 16   /* directories nftw() may hold open at once */

const char *fixture_root(void)
{
	const char *root = getenv("TMPDIR");

	return root && root[0] ? root : "/tmp";
}

int fixture_dir(char *dir, size_t size, const char *name)
{
	int n = snprintf(dir, size, "%s/gamebot-%s-XXXXXX", fixture_root(), name), rc = -1;

	if (n < 0 || (size_t)n >= size)
		fprintf(stderr, "fixture: '%s/gamebot-%s-XXXXXX' does not fit in %zu bytes\n", fixture_root(),
			name, size);
	else if (!mkdtemp(dir))
		fprintf(stderr, "fixture: cannot make '%s': %s\n", dir, strerror(errno));
	else
		rc = 0;
	if (rc && size)
		dir[0] = '\0';
	return rc;
}

/* nftw()'s visit, children before their directory: unlink or rmdir; stops at the first failure. */
static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	int rc = type == FTW_DP ? rmdir(path) : unlink(path);

	(void)st;
	(void)ftw;
	if (rc)
		fprintf(stderr, "fixture: cannot remove '%s': %s\n", path, strerror(errno));
	return rc ? -1 : 0;
}

int fixture_rm(const char *dir)
{
	char root[PATH_MAX], real[PATH_MAX];
	size_t len;
	int rc = -1;

	if (!dir || !dir[0]) {
		rc = 0;
	} else if (!realpath(dir, real)) {
		rc = errno == ENOENT ? 0 : -1;
		if (rc)
			fprintf(stderr, "fixture: cannot remove '%s': %s\n", dir, strerror(errno));
	} else if (!realpath(fixture_root(), root)) {
		fprintf(stderr, "fixture: no temporary root '%s': %s\n", fixture_root(), strerror(errno));
	} else {
		len = strlen(root);
		/* strictly below: "/tmp/x", never "/tmp" itself nor "/tmpx" (root "/": any "/x") */
		if (strncmp(real, root, len) != 0 || (len > 1 && real[len] != '/') || !real[len + (len > 1)])
			fprintf(stderr, "fixture: refusing to remove '%s': not below the temporary root '%s'\n",
				dir, root);
		else
			rc = nftw(real, remove_one, FIXTURE_FDS, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) == 0 ? 0 : -1;
	}
	return rc;
}

/* One breach of the ledger's rules, one line on stderr. */
static void breach_line(const struct store_breach *b, void *arg)
{
	(void)arg;
	fprintf(stderr, "fixture: coins ledger: chat %lld: %s: %s%s%lld\n", (long long)b->chat, b->rule,
		b->subject, b->subject[0] ? " " : "", (long long)b->value);
}

int fixture_audit(struct store *s)
{
	int found = 0, rc = s ? store_coins_audit_each(s, 0, 20, breach_line, NULL, &found) : GB_OK;

	if (rc == GB_EINVARIANT)
		fprintf(stderr, "fixture: the coins ledger broke its rules (%d breach%s)\n", found,
			found == 1 ? "" : "es");
	else if (rc)
		fprintf(stderr, "fixture: the coins ledger's audit failed: %s\n", gb_strerror(rc));
	return rc ? -1 : 0;
}

int fixture_audit_db(const char *db)
{
	struct store *s = NULL;
	int rc = store_open(&s, db);

	if (rc)
		fprintf(stderr, "fixture: cannot open '%s' to audit it: %s\n", db, gb_strerror(rc));
	rc = rc ? -1 : fixture_audit(s);
	store_free(s);
	return rc;
}

void fixture_tg_env(struct config *cfg, struct adapter_env *env, const struct fake_tg *f,
		    const char *token, const char *mode, bool pacing, const char *db)
{
	config_init(cfg);
	snprintf(cfg->telegram_token, sizeof(cfg->telegram_token), "%s", token);
	snprintf(cfg->telegram_api, sizeof(cfg->telegram_api), "%s", fake_tg_url(f));
	snprintf(cfg->telegram_mode, sizeof(cfg->telegram_mode), "%s", mode);
	snprintf(cfg->telegram_secret, sizeof(cfg->telegram_secret), "%s", FIXTURE_TG_SECRET);
	snprintf(cfg->telegram_pacing, sizeof(cfg->telegram_pacing), "%s", pacing ? "on" : "off");
	snprintf(cfg->db, sizeof(cfg->db), "%s", db);
	memset(env, 0, sizeof(*env));
	env->cfg = cfg;
	bot_config_init(&env->bot);
	env->db = db;
}

int fixture_listen(const struct adapter *a, void *self, struct http_server **http, char *url, size_t size)
{
	struct http_route routes[8];
	struct http_options ho;
	int n = a->routes ? a->routes(self, routes, 8) : 0, rc;

	http_options_init(&ho);
	ho.listen = "127.0.0.1:0";
	ho.routes = routes;
	ho.nroutes = n;
	rc = n > 0 ? http_start(http, &ho) : GB_ENOTFOUND;
	if (rc)
		fprintf(stderr, "fixture: no listener for the adapter's %d route%s: %s\n", n, n == 1 ? "" : "s",
			gb_strerror(rc));
	else
		snprintf(url, size, "http://127.0.0.1:%d%s", http_port(*http), routes[0].path);
	return rc ? -1 : 0;
}

int fixture_bot_open(struct bot *b, char *dir, size_t dir_size, char *db, size_t db_size,
		     const char *name, uint64_t seed)
{
	int n, rc = fixture_dir(dir, dir_size, name);

	if (rc)
		goto out;
	n = snprintf(db, db_size, "%s/bot.db", dir);
	if (n < 0 || (size_t)n >= db_size) {
		fprintf(stderr, "fixture: '%s/bot.db' does not fit in %zu bytes\n", dir, db_size);
		rc = -1;
		goto out;
	}
	bot_config_init(&b->cfg);
	b->cfg.seed = seed;
	rc = store_open(&b->store, db);
	if (rc) {
		fprintf(stderr, "fixture: cannot open the store '%s': %s\n", db, gb_strerror(rc));
		rc = -1;
	}
out:
	if (rc)
		fixture_rm(dir);
	return rc;
}

int fixture_bot_close(struct bot *b, const char *dir, int flags)
{
	int rc = 0;

	if (flags & FIXTURE_AUDIT)
		rc |= fixture_audit(b->store);
	store_free(b->store);
	b->store = NULL;
	rc |= fixture_rm(dir);
	return rc ? -1 : 0;
}

/* ---- a platform's side of the service ---- */

static size_t fixture_sink(char *p, size_t size, size_t n, void *arg)
{
	sb_addn(arg, p, size * n);
	return size * n;
}

long fixture_post_json(const char *url, const char *header, const char *body)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct strbuf in = { 0 };
	long code = 0;

	if (header)
		h = curl_slist_append(h, header);
	if (c && h) {
		curl_easy_setopt(c, CURLOPT_URL, url);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, fixture_sink);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
		curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
		if (curl_easy_perform(c) == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	sb_release(&in);
	return code;
}

int fixture_deliver_all(struct store *s, const struct adapter *a, void *self, const char *platform)
{
	int rc = 0;

	for (int round = 0; round < 100 && !rc; round++) {
		struct store_out rows[32];
		int n = 0;

		if (store_out_claim(s, platform, INT64_MAX / 2, 30000, rows, 32, &n))
			return -1;
		if (!n)
			break;
		for (int i = 0; i < n; i++) {
			struct delivery d;

			if (!rc) {
				a->deliver(self, s, &rows[i], &d);
				if (d.result != DELIVERY_OK) {
					fprintf(stderr, "row not delivered: %s: %s\n", d.why, rows[i].payload);
					rc = -1;
				} else if (store_out_done(s, rows[i].id)) {
					rc = -1;
				}
			}
			store_out_release(&rows[i]);
		}
	}
	return rc;
}

int fixture_sql(const char *db, const char *text)
{
	sqlite3 *h = NULL;
	char *why = NULL;
	int rc = -1;

	if (sqlite3_open(db, &h) == SQLITE_OK) {
		sqlite3_busy_timeout(h, 5000);
		if (sqlite3_exec(h, text, NULL, NULL, &why) == SQLITE_OK)
			rc = 0;
		else
			fprintf(stderr, "fixture_sql: %s: %s\n", text, why ? why : "?");
	}
	sqlite3_free(why);
	sqlite3_close(h);
	return rc;
}
