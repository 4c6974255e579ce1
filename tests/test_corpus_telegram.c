/*
 * test_corpus_telegram.c - every update shape of tests/data/telegram/
 * replayed through the real `gamebot serve` (webhook mode) against the
 * fake Bot API (tests/fake_telegram.c), each checked for the outcome its
 * file names.
 *
 * A corpus file is one JSON object:
 *     {"about": "what the shape is and why it ends so",
 *      "members": [{"chat": "-1001", "user": "77", "status": "administrator"}],
 *      "steps": [{"update": {...Update...}  or  "body": "raw webhook body",
 *                 "status": 200,
 *                 "sends": [{"method": "sendMessage", "text": "part of the text",
 *                            "fields": {"chat_id": -1001}, "absent": ["reply_markup"]}]}]}
 * "members" (optional) are getChatMember's answers. Each step is POSTed
 * to the webhook and must be answered with "status" (200 when left out);
 * then, once everything it queued is delivered, the Bot API calls it made
 * (getMe and getChatMember aside) must be exactly "sends", in order on
 * each lane (the answers to presses and inline queries go out at once, on
 * a lane of their own, so they are matched apart from the chat's
 * messages): the method, "text" contained in the body's text, each of "fields" equal,
 * none of "absent" present. "sends": [] says the step sends nothing; a
 * step without "sends" (setting a scene) is not checked. Each file runs on
 * a service and a database of its own, so files never see each other.
 */
#include <curl/curl.h>
#include <dirent.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TOKEN "123456:CORPUS-token"
#define SECRET "corpus-s3cret"
#define MAX_FILES 256

struct run {
	const char *path;      /* the corpus file */
	char dir[64], db[96], log[96];
	struct fake_tg *f;
	pid_t pid;
	char url[96];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *bin(void)
{
	const char *b = getenv("GAMEBOT_BIN");

	return b ? b : "bin/gamebot";
}

static void corpus_dir(char *buf, size_t n)
{
	const char *src = getenv("GAMEBOT_SRC");

	snprintf(buf, n, "%s/tests/data/telegram", src ? src : ".");
}

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

/* POST body to the service's webhook with the secret; the HTTP status, 0 when nothing answered. */
static long hook(const struct run *r, const char *body, size_t len)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	long code = 0;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	curl_easy_setopt(c, CURLOPT_URL, r->url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 15L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return code;
}

static void show_log(const struct run *r)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "cat '%s' >&2", r->log);
	if (system(cmd))
		fprintf(stderr, "(no log)\n");
}

/* Wait until the service has delivered every row it queued. */
static void wait_delivered(const struct run *r, const char *name, int step)
{
	struct store *s = NULL;
	int64_t t0 = now_ms();
	int pending = 1;

	assert_int_equal(store_open(&s, r->db), GB_OK);
	while (pending) {
		assert_int_equal(store_out_count(s, "telegram", &pending, NULL, NULL), GB_OK);
		if (pending && now_ms() - t0 > 15000) {
			fake_tg_dump(r->f);
			show_log(r);
			store_free(s);
			fail_msg("%s, step %d: %d rows still undelivered", name, step, pending);
		}
		if (pending)
			usleep(5000);
	}
	store_free(s);
}

/* Calls that are the service's own business, not an answer to anybody. */
static bool housekeeping(const char *method)
{
	return !strcmp(method, "getMe") || !strcmp(method, "getChatMember") ||
	       !strcmp(method, "deleteWebhook") || !strcmp(method, "getUpdates");
}

static bool call_matches(const char *method, const json_t *body, const json_t *want, char *why,
			 size_t n)
{
	const char *wm = json_string_value(json_object_get(want, "method"));
	const char *wt = json_string_value(json_object_get(want, "text"));
	const char *text = json_string_value(json_object_get(body, "text"));
	const json_t *fields = json_object_get(want, "fields"), *absent = json_object_get(want, "absent");
	const char *key;
	json_t *v;
	size_t i;

	if (!wm || strcmp(wm, method)) {
		snprintf(why, n, "method %s, expected %s", method, wm ? wm : "?");
		return false;
	}
	if (wt && (!text || !strstr(text, wt))) {
		snprintf(why, n, "%s text '%s' lacks '%s'", method, text ? text : "", wt);
		return false;
	}
	json_object_foreach((json_t *)fields, key, v) {
		if (!json_equal(json_object_get(body, key), v)) {
			snprintf(why, n, "%s field '%s' differs", method, key);
			return false;
		}
	}
	json_array_foreach(absent, i, v) {
		if (json_object_get(body, json_string_value(v))) {
			snprintf(why, n, "%s has '%s'", method, json_string_value(v));
			return false;
		}
	}
	return true;
}

/* An answer to a press or an inline query: its own lane, apart from the chat's messages. */
static bool is_answer(const char *method)
{
	return strncmp(method, "answer", 6) == 0;
}

/* The index of the next expected call at or after k in sends on the lane of answers (or not). */
static size_t next_on_lane(const json_t *sends, size_t k, bool answer)
{
	while (k < json_array_size(sends) &&
	       is_answer(json_string_value(json_object_get(json_array_get(sends, k), "method"))) != answer)
		k++;
	return k;
}

/*
 * The calls made since call number from (housekeeping aside) against the
 * step's "sends": in order on each lane, the chat's messages on one and
 * the answers to presses on the other (an answer goes out at once, so it
 * may come before the messages of its own command or after them).
 */
static void check_sends(const struct run *r, int from, const json_t *sends, const char *name, int step)
{
	size_t lane[2] = { next_on_lane(sends, 0, false), next_on_lane(sends, 0, true) }, made = 0;
	int total = fake_tg_count(r->f, NULL);
	char why[300] = "";
	bool ok = true;

	for (int i = from; i < total && ok; i++) {
		char method[64];
		json_t *body = fake_tg_call(r->f, i, method, sizeof(method), NULL);
		bool a = is_answer(method);

		if (housekeeping(method)) {
			json_decref(body);
			continue;
		}
		if (lane[a] >= json_array_size(sends)) {
			snprintf(why, sizeof(why), "unexpected %s", method);
			ok = false;
		} else {
			ok = call_matches(method, body, json_array_get(sends, lane[a]), why, sizeof(why));
			lane[a] = next_on_lane(sends, lane[a] + 1, a);
		}
		made++;
		json_decref(body);
	}
	if (ok && made < json_array_size(sends)) {
		snprintf(why, sizeof(why), "%zu calls, expected %zu", made, json_array_size(sends));
		ok = false;
	}
	if (!ok) {
		fake_tg_dump(r->f);
		fail_msg("%s, step %d: %s", name, step, why);
	}
}

static void start_service(struct run *r, const json_t *doc)
{
	char e_db[160], e_listen[96], e_api[160], health[96];
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen,
			      "GAMEBOT_TELEGRAM_TOKEN=" TOKEN, e_api, "GAMEBOT_TELEGRAM_MODE=webhook",
			      "GAMEBOT_TELEGRAM_SECRET=" SECRET, "GAMEBOT_TELEGRAM_PACING=off",
			      "GAMEBOT_DISCORD_TOKEN", "DISCORD_TOKEN", NULL };
	int port = free_port();
	const json_t *m;
	size_t i;

	assert_int_equal(fixture_dir(r->dir, sizeof(r->dir), "corpus"), 0);
	snprintf(r->db, sizeof(r->db), "%s/c.db", r->dir);
	snprintf(r->log, sizeof(r->log), "%s/log", r->dir);
	assert_int_equal(fake_tg_start(&r->f, TOKEN, "gb_test_bot"), 0);
	json_array_foreach(json_object_get(doc, "members"), i, m)
		fake_tg_member(r->f, json_string_value(json_object_get(m, "chat")),
			       json_string_value(json_object_get(m, "user")),
			       json_string_value(json_object_get(m, "status")));
	assert_true(port > 0);
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", r->db);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api, sizeof(e_api), "GAMEBOT_TELEGRAM_API_URL=%s", fake_tg_url(r->f));
	snprintf(health, sizeof(health), "http://127.0.0.1:%d/healthz", port);
	snprintf(r->url, sizeof(r->url), "http://127.0.0.1:%d/telegram", port);
	r->pid = spawn(bin(), (char *const[]){ (char *)bin(), "serve", NULL }, env, r->log, false);
	assert_true(r->pid > 0);
	if (!wait_serving(r->pid, health, 20000)) {
		show_log(r);
		fail_msg("gamebot serve did not answer /healthz");
	}
}

/* Stop the service (it must end cleanly) and the fake; a failed test's too (teardown). */
static int stop_service(void **state)
{
	struct run *r = *state;
	int status = 0, rc = 0;

	if (r->pid > 0) {
		kill(r->pid, SIGTERM);
		waitpid(r->pid, &status, 0);
		r->pid = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			show_log(r);
			fprintf(stderr, "%s: gamebot serve did not stop cleanly\n", r->path);
			rc = -1;
		}
	}
	fake_tg_free(r->f);
	r->f = NULL;
	if (r->dir[0]) {
		if (fixture_rm(r->dir))
			fprintf(stderr, "%s left behind\n", r->dir);
		r->dir[0] = '\0';
	}
	return rc;
}

/* One corpus file (the test's state names it). */
static void replay(void **state)
{
	struct run *rp = *state;
	const char *name = strrchr(rp->path, '/') + 1;
	json_error_t jerr;
	json_t *doc = json_load_file(rp->path, JSON_ALLOW_NUL, &jerr), *step;
	size_t i;

	if (!json_is_object(doc) || !json_array_size(json_object_get(doc, "steps")))
		fail_msg("%s: not a corpus file (%s, line %d)", name, jerr.text, jerr.line);
	start_service(rp, doc);
	json_array_foreach(json_object_get(doc, "steps"), i, step) {
		const json_t *upd = json_object_get(step, "update"), *sends = json_object_get(step, "sends");
		const char *raw = json_string_value(json_object_get(step, "body"));
		long want = json_is_integer(json_object_get(step, "status"))
			? (long)json_integer_value(json_object_get(step, "status")) : 200;
		char *text = upd ? json_dumps(upd, JSON_COMPACT) : NULL;
		int from = fake_tg_count(rp->f, NULL);
		long got;

		assert_true(text || raw);
		got = hook(rp, text ? text : raw, strlen(text ? text : raw));
		free(text);
		if (got != want) {
			show_log(rp);
			fail_msg("%s, step %zu: HTTP %ld, expected %ld", name, i, got, want);
		}
		wait_delivered(rp, name, (int)i);
		if (sends)
			check_sends(rp, from, sends, name, (int)i);
	}
	json_decref(doc);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	static struct run runs[MAX_FILES];
	struct CMUnitTest tests[MAX_FILES];
	char dir[512], *paths[MAX_FILES];
	struct dirent *e;
	DIR *d;
	int n = 0, rc;

	corpus_dir(dir, sizeof(dir));
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "no corpus at %s\n", dir);
		return 1;
	}
	while ((e = readdir(d)) && n < MAX_FILES) {
		size_t len = strlen(e->d_name);
		struct strbuf sb = { 0 };

		if (len < 6 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		sb_addf(&sb, "%s/%s", dir, e->d_name);
		paths[n++] = sb_detach(&sb);
	}
	closedir(d);
	qsort(paths, (size_t)n, sizeof(paths[0]), by_name);
	for (int i = 0; i < n; i++) {
		runs[i].path = paths[i];
		tests[i] = (struct CMUnitTest){ strrchr(paths[i], '/') + 1, replay, NULL, stop_service,
						&runs[i] };
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = n ? _cmocka_run_group_tests("corpus_telegram", tests, (size_t)n, NULL, NULL) : 1;
	curl_global_cleanup();
	for (int i = 0; i < n; i++)
		free(paths[i]);
	return rc;
}
