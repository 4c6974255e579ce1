/*
 * test_corpus_discord.c - replays every file of tests/data/discord/
 * through the real binary (tests/spawn.c starts `gamebot serve`) against
 * the fake Discord API, and checks each outcome the file states.
 *
 * A file is one JSON object: "about" (what the shape is and why its
 * outcome is right), optionally "fake" ({"deny_channel": ID} makes every
 * call as the bot into that channel answer 403, as where the app has no
 * bot user), and "steps", each sent in order to one fresh service:
 *
 *   "interaction"  the body, as Discord posts it (or "body": raw text)
 *   "signature"    "good" (default), "none", "other-key", "flipped",
 *                  "stale" (six minutes old) or "body-changed"
 *   "expect"       "status" (default 200), "type" (the answer's type),
 *                  "ephemeral", "content" (a part of the answer's text),
 *                  "buttons" (commands that must have a button),
 *                  "choices" (how many autocomplete choices), "calls"
 *                  (the calls made to the API because of the step, once
 *                  the service's outbox is empty: "METHOD /path", in any
 *                  order; [] for none)
 *
 * Strings in an interaction stand for what only the run knows: "$ID" a
 * fresh snowflake for the step, "$ID:name" one for the file, "$TOKEN" and
 * "$TOKEN:name" their interaction tokens ("tok-" and the id), "$APP" the
 * application id, "$BUTTON:cmd" the custom_id of the button for cmd in the
 * latest answer that had buttons. In "calls", $APP and $TOKEN (the step's)
 * are replaced inside the text. After the last step no outbox row may have
 * been set aside (given up) unless the file says "aside".
 *
 * The same files seed the Discord fuzzer (`make fuzz`).
 */
#include <curl/curl.h>
#include <dirent.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/bot.h"
#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_discord.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define APP "1000"
#define BOT_TOKEN "bot-token-corpus"
#define MAX_FILES 128
#define MAX_NAMES 16

struct run {
	const char *path, *file;
	json_t *doc;                    /* the file, parsed */
	char dir[64], db[128], log[128], url[96];
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	struct fake_dc *fake;
	pid_t pid;
	struct store *store;
	uint64_t seq;
	char step_id[32];
	char names[MAX_NAMES][2][32];   /* "$ID:name": name, id */
	int nnames;
	json_t *buttons;                /* components of the latest answer that had some */
};

static char files[MAX_FILES][512];

/* ---- placeholders ---- */

static void snowflake(struct run *r, char *buf, size_t n)
{
	uint64_t ms = (uint64_t)(bot_now_ms() - 1420070400000LL);

	snprintf(buf, n, "%llu", (unsigned long long)((ms << 22) | (++r->seq & 0x3fffff)));
}

/* The id a "$ID:name" stands for in this file, made on first use. */
static const char *named_id(struct run *r, const char *name)
{
	for (int i = 0; i < r->nnames; i++)
		if (strcmp(r->names[i][0], name) == 0)
			return r->names[i][1];
	assert_true(r->nnames < MAX_NAMES);
	snprintf(r->names[r->nnames][0], sizeof(r->names[0][0]), "%s", name);
	snowflake(r, r->names[r->nnames][1], sizeof(r->names[0][1]));
	return r->names[r->nnames++][1];
}

/* The custom_id of the latest answer's button for cmd (its command part starts with cmd). */
static const char *button_for(struct run *r, const char *cmd)
{
	const json_t *row, *c;
	size_t i, k;

	json_array_foreach(r->buttons, i, row) {
		json_array_foreach(json_object_get(row, "components"), k, c) {
			const char *id = json_string_value(json_object_get(c, "custom_id"));
			const char *p = id ? strchr(id, ':') : NULL;

			p = p ? strchr(p + 1, ':') : NULL;
			if (p && strncmp(p + 1, cmd, strlen(cmd)) == 0)
				return id;
		}
	}
	fail_msg("%s: no button for %s in the latest answer", r->file, cmd);
	return "";
}

/* A placeholder string's value (a new reference), or NULL when s is none. */
static json_t *placeholder(struct run *r, const char *s)
{
	char buf[64];

	if (strcmp(s, "$ID") == 0)
		return json_string(r->step_id);
	if (strncmp(s, "$ID:", 4) == 0)
		return json_string(named_id(r, s + 4));
	if (strcmp(s, "$TOKEN") == 0 || strncmp(s, "$TOKEN:", 7) == 0) {
		snprintf(buf, sizeof(buf), "tok-%s", s[6] ? named_id(r, s + 7) : r->step_id);
		return json_string(buf);
	}
	if (strcmp(s, "$APP") == 0)
		return json_string(APP);
	if (strncmp(s, "$BUTTON:", 8) == 0)
		return json_string(button_for(r, s + 8));
	return NULL;
}

/* v with every placeholder replaced, in place. */
static void substitute(struct run *r, json_t *v)
{
	const char *key;
	json_t *child, *val;
	size_t i;
	void *tmp;

	if (json_is_object(v)) {
		json_object_foreach_safe(v, tmp, key, child) {
			val = json_is_string(child) ? placeholder(r, json_string_value(child)) : NULL;
			if (val)
				json_object_set_new(v, key, val);
			else
				substitute(r, child);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			val = json_is_string(child) ? placeholder(r, json_string_value(child)) : NULL;
			if (val)
				json_array_set_new(v, i, val);
			else
				substitute(r, child);
		}
	}
}

/* text with $APP, $TOKEN (the step's) and $TOKEN:name replaced, into out. */
static void expand(struct run *r, const char *text, struct strbuf *out)
{
	for (const char *p = text; *p;) {
		if (strncmp(p, "$APP", 4) == 0) {
			sb_add(out, APP);
			p += 4;
		} else if (strncmp(p, "$TOKEN:", 7) == 0) {
			char name[32];
			size_t n = strspn(p + 7, "abcdefghijklmnopqrstuvwxyz0123456789_");

			snprintf(name, sizeof(name), "%.*s", (int)n, p + 7);
			sb_addf(out, "tok-%s", named_id(r, name));
			p += 7 + n;
		} else if (strncmp(p, "$TOKEN", 6) == 0) {
			sb_addf(out, "tok-%s", r->step_id);
			p += 6;
		} else {
			sb_addn(out, p++, 1);
		}
	}
}

/* ---- the service ---- */

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	sb_addn(arg, p, size * n);
	return size * n;
}

/* POST body with the headers of how (see the file comment); the status, *answer the parsed answer. */
static long post(struct run *r, const char *body, const char *how, json_t **answer)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct strbuf in = { 0 }, msg = { 0 }, hs = { 0 }, ht = { 0 };
	unsigned char sig[crypto_sign_BYTES], osk[crypto_sign_SECRETKEYBYTES],
		opk[crypto_sign_PUBLICKEYBYTES];
	char hex[2 * crypto_sign_BYTES + 1], ts[32];
	const char *sent = body;
	json_error_t jerr;
	long status = 0;

	snprintf(ts, sizeof(ts), "%lld",
		 (long long)(bot_now_ms() / 1000 - (strcmp(how, "stale") == 0 ? 360 : 0)));
	sb_add(&msg, ts);
	sb_add(&msg, body);
	if (strcmp(how, "other-key") == 0) {
		crypto_sign_keypair(opk, osk);
		crypto_sign_detached(sig, NULL, (const unsigned char *)sb_str(&msg), msg.len, osk);
	} else {
		crypto_sign_detached(sig, NULL, (const unsigned char *)sb_str(&msg), msg.len, r->sk);
	}
	sodium_bin2hex(hex, sizeof(hex), sig, sizeof(sig));
	if (strcmp(how, "flipped") == 0)
		hex[7] = hex[7] == '0' ? '1' : '0';
	if (strcmp(how, "body-changed") == 0)
		sent = "{\"type\":1}";
	if (strcmp(how, "none")) {
		sb_addf(&hs, "X-Signature-Ed25519: %s", hex);
		sb_addf(&ht, "X-Signature-Timestamp: %s", ts);
		h = curl_slist_append(h, sb_str(&hs));
		h = curl_slist_append(h, sb_str(&ht));
	}
	curl_easy_setopt(c, CURLOPT_URL, r->url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, sent);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(sent));
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	*answer = json_loadb(sb_str(&in), in.len, 0, &jerr);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	sb_release(&in);
	sb_release(&msg);
	sb_release(&hs);
	sb_release(&ht);
	return status;
}

/* Start the fake API and the service; the file's "fake" settings applied. */
static void start(struct run *r, const json_t *fake)
{
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	char hex[2 * crypto_sign_PUBLICKEYBYTES + 1], e_pk[160], e_api[160], e_db[200], e_listen[96],
		health[96];
	const char *env[] = { e_pk, "DISCORD_APP_ID=" APP, "DISCORD_TOKEN=" BOT_TOKEN, e_api, e_db,
			      e_listen, "GAMEBOT_CONFIG=/dev/null", "GAMEBOT_TELEGRAM_TOKEN",
			      "TELEGRAM_TOKEN", NULL };
	const char *deny = json_string_value(json_object_get(fake, "deny_channel"));
	int port = free_port();

	assert_int_equal(fixture_dir(r->dir, sizeof(r->dir), "corpus"), 0);
	snprintf(r->db, sizeof(r->db), "%s/dc.db", r->dir);
	snprintf(r->log, sizeof(r->log), "%s/serve.log", r->dir);
	crypto_sign_keypair(r->pk, r->sk);
	sodium_bin2hex(hex, sizeof(hex), r->pk, sizeof(r->pk));
	assert_int_equal(fake_dc_start(&r->fake, BOT_TOKEN), 0);
	if (deny)
		fake_dc_deny_channel(r->fake, deny, 50001);
	snprintf(e_pk, sizeof(e_pk), "DISCORD_PUBLIC_KEY=%s", hex);
	snprintf(e_api, sizeof(e_api), "DISCORD_API_URL=%s", fake_dc_url(r->fake));
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", r->db);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	r->pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, r->log, false);
	assert_true(r->pid > 0);
	snprintf(r->url, sizeof(r->url), "http://127.0.0.1:%d/discord", port);
	snprintf(health, sizeof(health), "http://127.0.0.1:%d/healthz", port);
	assert_true(wait_serving(r->pid, health, 20000));
	assert_int_equal(store_open(&r->store, r->db), GB_OK);
}

/* Stop the service and the fake; true when the service ended cleanly. */
static bool finish(struct run *r)
{
	int status = 0;

	if (r->pid > 0) {
		kill(r->pid, SIGTERM);
		waitpid(r->pid, &status, 0);
		r->pid = 0;
	}
	store_free(r->store);
	r->store = NULL;
	fake_dc_free(r->fake);
	r->fake = NULL;
	json_decref(r->buttons);
	r->buttons = NULL;
	if (r->dir[0]) {
		if (fixture_rm(r->dir)) {
			/* a temporary directory left behind */
		}
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Wait (bounded) until the service's outbox has nothing pending. */
static void drain(struct run *r)
{
	for (int i = 0; i < 1000; i++) {
		int pending = 0;

		if (!store_out_count(r->store, "discord", &pending, NULL, NULL) && !pending)
			return;
		usleep(5000);
	}
	fail_msg("%s: the outbox did not drain", r->file);
}

/* ---- checking ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The calls from the fake's n0-th on, as sorted "METHOD /path", against want (sorted too). */
static void check_calls(struct run *r, int n0, const json_t *want)
{
	int n = fake_dc_count(r->fake, NULL, NULL) - n0;
	size_t nw = json_array_size(want);
	char **got = calloc((size_t)n + 1, sizeof(*got)), **exp = calloc(nw + 1, sizeof(*exp));
	bool same = (size_t)n == nw;

	for (int i = 0; i < n; i++) {
		char method[16], path[512];
		struct strbuf sb = { 0 };

		json_decref(fake_dc_call(r->fake, n0 + i, method, sizeof(method), path, sizeof(path),
					 NULL, 0, NULL));
		sb_addf(&sb, "%s %s", method, path);
		got[i] = sb_detach(&sb);
	}
	for (size_t i = 0; i < nw; i++) {
		struct strbuf sb = { 0 };

		expand(r, json_string_value(json_array_get(want, i)), &sb);
		exp[i] = sb_detach(&sb);
	}
	qsort(got, (size_t)n, sizeof(*got), cmp_str);
	qsort(exp, nw, sizeof(*exp), cmp_str);
	for (size_t i = 0; same && i < nw; i++)
		same = strcmp(got[i], exp[i]) == 0;
	if (!same) {
		fprintf(stderr, "%s: calls made:\n", r->file);
		for (int i = 0; i < n; i++)
			fprintf(stderr, "  %s\n", got[i]);
		fprintf(stderr, "expected:\n");
		for (size_t i = 0; i < nw; i++)
			fprintf(stderr, "  %s\n", exp[i]);
	}
	for (int i = 0; i < n; i++)
		free(got[i]);
	for (size_t i = 0; i < nw; i++)
		free(exp[i]);
	free(got);
	free(exp);
	assert_true(same);
}

/* Does the answer offer a button for cmd? */
static bool has_button(const json_t *components, const char *cmd)
{
	const json_t *row, *c;
	size_t i, k;

	json_array_foreach(components, i, row) {
		json_array_foreach(json_object_get(row, "components"), k, c) {
			const char *id = json_string_value(json_object_get(c, "custom_id"));
			const char *p = id ? strchr(id, ':') : NULL;

			p = p ? strchr(p + 1, ':') : NULL;
			if (p && strncmp(p + 1, cmd, strlen(cmd)) == 0)
				return true;
		}
	}
	return false;
}

/* The answer against expect. */
static void check_answer(struct run *r, int k, const json_t *expect, json_t *a)
{
	const json_t *data = json_object_get(a, "data"), *v, *b;
	const char *content = json_string_value(json_object_get(data, "content"));
	bool eph = (json_integer_value(json_object_get(data, "flags")) & 64) != 0;
	size_t i;

	v = json_object_get(expect, "type");
	if (v && json_integer_value(json_object_get(a, "type")) != json_integer_value(v))
		fail_msg("%s step %d: answer type %lld, expected %lld", r->file, k,
			 (long long)json_integer_value(json_object_get(a, "type")),
			 (long long)json_integer_value(v));
	v = json_object_get(expect, "ephemeral");
	if (v && json_is_true(v) != eph)
		fail_msg("%s step %d: ephemeral %d, expected %d", r->file, k, eph, json_is_true(v));
	v = json_object_get(expect, "content");
	if (v && (!content || !strstr(content, json_string_value(v))))
		fail_msg("%s step %d: content \"%s\" lacks \"%s\"", r->file, k, content ? content : "",
			 json_string_value(v));
	json_array_foreach(json_object_get(expect, "buttons"), i, b)
		if (!has_button(json_object_get(data, "components"), json_string_value(b)))
			fail_msg("%s step %d: no button for %s", r->file, k, json_string_value(b));
	v = json_object_get(expect, "choices");
	if (v && json_array_size(json_object_get(data, "choices")) != (size_t)json_integer_value(v))
		fail_msg("%s step %d: %zu choices, expected %lld", r->file, k,
			 json_array_size(json_object_get(data, "choices")), (long long)json_integer_value(v));
	if (json_array_size(json_object_get(data, "components"))) {
		json_decref(r->buttons);
		r->buttons = json_incref(json_object_get(data, "components"));
	}
}

static void run_step(struct run *r, int k, json_t *step)
{
	const json_t *expect = json_object_get(step, "expect");
	const char *how = json_string_value(json_object_get(step, "signature"));
	json_t *ia = json_deep_copy(json_object_get(step, "interaction")), *a = NULL;
	char *body;
	long status, want = json_is_integer(json_object_get(expect, "status"))
				    ? (long)json_integer_value(json_object_get(expect, "status"))
				    : 200;
	int n0 = fake_dc_count(r->fake, NULL, NULL);

	snowflake(r, r->step_id, sizeof(r->step_id));
	if (ia) {
		substitute(r, ia);
		body = json_dumps(ia, JSON_COMPACT);
	} else {
		const char *raw = json_string_value(json_object_get(step, "body"));

		body = strdup(raw ? raw : "");
	}
	assert_non_null(body);
	status = post(r, body, how ? how : "good", &a);
	if (status != want)
		fail_msg("%s step %d: status %ld, expected %ld", r->file, k, status, want);
	if (status == 200)
		check_answer(r, k, expect, a);
	drain(r);
	if (json_object_get(expect, "calls"))
		check_calls(r, n0, json_object_get(expect, "calls"));
	json_decref(a);
	json_decref(ia);
	free(body);
}

/* The run of one file: *state is the file's path, then the run. */
static int setup(void **state)
{
	struct run *r = calloc(1, sizeof(*r));
	const char *path = *state;

	if (!r)
		return -1;
	r->path = path;
	r->file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct run *r = *state;
	bool clean = finish(r);

	json_decref(r->doc);
	free(r);
	return clean ? 0 : -1;
}

static void test_file(void **state)
{
	struct run *r = *state;
	json_error_t jerr;
	json_t *step;
	int aside = 0;
	size_t k;

	r->doc = json_load_file(r->path, 0, &jerr);
	if (!r->doc)
		fail_msg("%s: %s (line %d)", r->file, jerr.text, jerr.line);
	assert_true(json_is_string(json_object_get(r->doc, "about")));
	assert_true(json_array_size(json_object_get(r->doc, "steps")) > 0);
	start(r, json_object_get(r->doc, "fake"));
	json_array_foreach(json_object_get(r->doc, "steps"), k, step)
		run_step(r, (int)k, step);
	assert_int_equal(store_out_count(r->store, "discord", NULL, &aside, NULL), GB_OK);
	if (aside != json_integer_value(json_object_get(r->doc, "aside")))
		fail_msg("%s: %d rows set aside", r->file, aside);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int main(void)
{
	const char *src = getenv("GAMEBOT_SRC") ? getenv("GAMEBOT_SRC") : ".";
	struct CMUnitTest tests[MAX_FILES];
	char dir[400];
	struct dirent *e;
	DIR *dp;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/tests/data/discord", src);
	dp = opendir(dir);
	if (!dp) {
		fprintf(stderr, "%s: cannot open\n", dir);
		return 1;
	}
	while ((e = readdir(dp)) && n < MAX_FILES) {
		size_t len = strlen(e->d_name);

		/* a path too long for its slot is left out rather than cut */
		if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 &&
		    snprintf(files[n], sizeof(files[0]), "%s/%s", dir, e->d_name) < (int)sizeof(files[0]))
			n++;
	}
	closedir(dp);
	qsort(files, (size_t)n, sizeof(files[0]), by_name);
	for (int i = 0; i < n; i++)
		tests[i] = (struct CMUnitTest){ .name = strrchr(files[i], '/') + 1,
						.test_func = test_file,
						.setup_func = setup,
						.teardown_func = teardown,
						.initial_state = files[i] };
	if (sodium_init() < 0)
		return 1;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	return _cmocka_run_group_tests("corpus_discord", tests, (size_t)n, NULL, NULL);
}
