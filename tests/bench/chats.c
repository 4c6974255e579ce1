/*
 * chats.c - `make bench` row: what `gamebot serve` holds in memory with
 * many chats playing at once.
 *
 * Starts the real binary (GAMEBOT_BIN) in Telegram webhook mode on a fresh
 * SQLite file, delivering to the fake Bot API (tests/fake_telegram.c) with
 * pacing off and rate limits as configured by default, then opens a Ludo
 * table in each of CHATS chats (/new, /join, /start: two people each) and
 * makes one move in each, from 16 client threads. At steps along the way
 * it reads the process's resident memory (/proc/PID/status: VmRSS, and of
 * it RssAnon, the process's own, and RssFile, pages of files it maps) and
 * the caches' figures from /metrics (decoded states kept and their bytes,
 * the rate limits' windows).
 *
 *   chats [--chats C] [--threads T]
 */
#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/bench/bench.h"
#include "tests/fake_telegram.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TOKEN "4242:bench-token"
#define SECRET "bench-secret"
#define MAX_THREADS 64

struct run {
	char url[96];
	int first, count;               /* chats of this thread */
	const char *what;               /* "open" or "move" */
	atomic_llong *update_id;
	long errors;
};

static void post_text(CURL *c, struct curl_slist *h, struct run *r, int chat, int user, const char *text)
{
	char buf[512];
	long long id = atomic_fetch_add(r->update_id, 1);

	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%d,"
		 "\"first_name\":\"P%d\"},\"chat\":{\"id\":-100%d,\"type\":\"supergroup\"},\"text\":\"%s\"}}",
		 id, id, user, user, 1000 + chat, text);
	if (post(c, h, r->url, buf) != 200)
		r->errors++;
}

static void *client(void *arg)
{
	struct run *r = arg;
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	for (int i = r->first; i < r->first + r->count; i++) {
		if (!strcmp(r->what, "open")) {
			post_text(c, h, r, i, 2 * i + 1, "/new ludo");
			post_text(c, h, r, i, 2 * i + 2, "/join");
			post_text(c, h, r, i, 2 * i + 1, "/start");
		} else {
			/* the first player rolls: the state is read, decoded, kept */
			post_text(c, h, r, i, 2 * i + 1, "/roll");
		}
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return NULL;
}

/* Chats [from, to) do what, from threads threads; errors returned. */
static long drive(const char *url, int from, int to, int threads, const char *what, atomic_llong *id)
{
	struct run r[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	int n = to - from, per = n / threads, extra = n % threads, at = from;
	long errors = 0;

	for (int i = 0; i < threads; i++) {
		r[i] = (struct run){ .first = at, .count = per + (i < extra), .what = what, .update_id = id };
		snprintf(r[i].url, sizeof(r[i].url), "%s", url);
		at += r[i].count;
		pthread_create(&th[i], NULL, client, &r[i]);
	}
	for (int i = 0; i < threads; i++) {
		pthread_join(th[i], NULL);
		errors += r[i].errors;
	}
	return errors;
}

/* kB of a /proc/PID/status line (VmRSS, RssAnon, RssFile); -1 when absent. */
static long status_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			kb = strtol(line + strlen(key) + 1, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	struct { char *buf; size_t len, cap; } *b = arg;
	size_t k = size * n;

	if (b->len + k + 1 > b->cap) {
		size_t cap = (b->len + k + 1) * 2;
		char *nb = realloc(b->buf, cap);

		if (!nb)
			return 0;
		b->buf = nb;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, p, k);
	b->len += k;
	b->buf[b->len] = '\0';
	return k;
}

/* The value of series (name and labels as /metrics writes them), 0 when absent. */
static double metric(const char *metrics, const char *series)
{
	const char *p = metrics;
	size_t n = strlen(series);

	while ((p = strstr(p, series))) {
		if ((p == metrics || p[-1] == '\n') && p[n] == ' ')
			return strtod(p + n + 1, NULL);
		p += n;
	}
	return 0;
}

static void report(pid_t pid, int port, int chats, const char *step)
{
	struct { char *buf; size_t len, cap; } b = { 0 };
	CURL *c = curl_easy_init();
	char url[64];
	double hit, miss;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
	/* the gauges are kept by a thread every 2 s */
	sleep_us(2500000);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_perform(c);
	curl_easy_cleanup(c);
	hit = metric(b.buf ? b.buf : "", "gamebot_cache_hits_total{cache=\"sqlite_pages\"}");
	miss = metric(b.buf ? b.buf : "", "gamebot_cache_misses_total{cache=\"sqlite_pages\"}");

	printf("chats      %6d chats %-28s RSS %6.1f MB (own %6.1f MB, files mapped %5.1f MB);"
	       " SQLite pages found in a connection's cache %4.1f%%;"
	       " decoded states %6.0f kept, %5.1f MB; rate-limit windows %6.0f live of %6.0f, %4.1f MB\n",
	       chats, step, status_kb(pid, "VmRSS") / 1024.0, status_kb(pid, "RssAnon") / 1024.0,
	       status_kb(pid, "RssFile") / 1024.0, hit + miss > 0 ? 100 * hit / (hit + miss) : 0,
	       metric(b.buf ? b.buf : "", "gamebot_cache_entries{cache=\"states\"}"),
	       metric(b.buf ? b.buf : "", "gamebot_cache_bytes{cache=\"states\"}") / 1048576.0,
	       metric(b.buf ? b.buf : "", "gamebot_cache_entries{cache=\"rate_limits\"}"),
	       metric(b.buf ? b.buf : "", "gamebot_cache_capacity{cache=\"rate_limits\"}"),
	       metric(b.buf ? b.buf : "", "gamebot_cache_bytes{cache=\"rate_limits\"}") / 1048576.0);
	free(b.buf);
}

int main(int argc, char **argv)
{
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	int chats = 20000, threads = 16, port = free_port(), done = 0;
	char dir[64], e_db[128], e_listen[64], e_api[128], hook[96],
	     health[64];
	struct fake_tg *f = NULL;
	atomic_llong id;
	long errors = 0;
	pid_t pid;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--chats"))
			chats = (int)strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--threads"))
			threads = (int)strtol(argv[i + 1], NULL, 10);
	}
	if (chats < 1 || threads < 1 || threads > MAX_THREADS || !port ||
	    fixture_dir(dir, sizeof(dir), "bench-chats") || fake_tg_start(&f, TOKEN, "gb_bench_bot"))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	atomic_init(&id, 1);
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s/gamebot.db", dir);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api, sizeof(e_api), "GAMEBOT_TELEGRAM_API_URL=%s", fake_tg_url(f));
	snprintf(hook, sizeof(hook), "http://127.0.0.1:%d/telegram", port);
	snprintf(health, sizeof(health), "http://127.0.0.1:%d/healthz", port);
	pid = spawn(bin, (char *const[]){ "gamebot", "serve", NULL },
		    (const char *const[]){ "GAMEBOT_CONFIG=/dev/null", e_db, e_listen,
					   "GAMEBOT_TELEGRAM_TOKEN=" TOKEN, e_api,
					   "GAMEBOT_TELEGRAM_MODE=webhook", "GAMEBOT_TELEGRAM_SECRET=" SECRET,
					   "GAMEBOT_TELEGRAM_PACING=off", NULL },
		    "/dev/null", false);
	if (pid < 0 || !wait_serving(pid, health, 20000))
		return 1;
	report(pid, port, 0, "started");
	/* tables opened in tenths, a tenth, a half, all; then a move in each */
	for (int k = 1; k <= 3; k++) {
		int to = k == 1 ? chats / 10 : k == 2 ? chats / 2 : chats;

		errors += drive(hook, done, to, threads, "open", &id);
		done = to;
		report(pid, port, done, "with open tables");
	}
	errors += drive(hook, 0, chats, threads, "move", &id);
	report(pid, port, chats, "after a move in each");
	printf("chats      %ld errors\n", errors);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	fake_tg_free(f);
	return fixture_rm(dir) ? 1 : 0;
}
