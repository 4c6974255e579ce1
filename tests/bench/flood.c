/*
 * flood.c - `make bench` row: signed Discord interactions answered while
 * 2,000 connections post junk.
 *
 * `gamebot serve` (GAMEBOT_BIN) serves /discord on 127.0.0.1 with a key of
 * the run's own, against the fake Discord API (tests/fake_discord.c). A
 * round is five signed interactions, one after the other: two /help
 * slash commands and three pings. The slowest answer of a round is
 * measured once with the service calm, then over ROUNDS rounds while
 * 2,000 connections post 64 KiB of junk without signatures, reopened as
 * fast as they are refused (tests/rawhttp.c), every one of them open.
 *
 * Target: the flood delays a signed interaction by less than a second
 * (the slowest under the flood, less the slowest calm).
 *
 *   flood
 */
#include <curl/curl.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "games/strbuf.h"
#include "tests/bench/bench.h"
#include "tests/fake_discord.h"
#include "tests/rawhttp.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define APP "1000"
#define TOKEN "bench-bot-token"
#define CONNS 2000
#define ROUNDS 4
#define TARGET_MS 1000

struct run {
	CURL *c;
	char url[96];
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	unsigned seq;
};

/* POST body to /discord signed as Discord signs; the HTTP status (0: no answer). */
static long post_signed(struct run *x, const char *body)
{
	unsigned char sig[crypto_sign_BYTES];
	char ts[32], hex[2 * crypto_sign_BYTES + 1];
	struct strbuf msg = { 0 }, hs = { 0 }, ht = { 0 };
	struct curl_slist *h = NULL;
	long code;

	snprintf(ts, sizeof(ts), "%lld", (long long)time(NULL));
	sb_add(&msg, ts);
	sb_add(&msg, body);
	crypto_sign_detached(sig, NULL, (const unsigned char *)sb_str(&msg), msg.len, x->sk);
	sodium_bin2hex(hex, sizeof(hex), sig, sizeof(sig));
	sb_addf(&hs, "X-Signature-Ed25519: %s", hex);
	sb_addf(&ht, "X-Signature-Timestamp: %s", ts);
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, sb_str(&hs));
	h = curl_slist_append(h, sb_str(&ht));
	code = post(x->c, h, x->url, body);
	curl_slist_free_all(h);
	sb_release(&msg);
	sb_release(&hs);
	sb_release(&ht);
	return code;
}

/* The slowest answer (ms) of one round, or -1 when one was not answered 200. */
static double round_ms(struct run *x)
{
	double worst = 0;

	for (int i = 0; i < 5; i++) {
		char body[512];
		int64_t t0 = mono_us();
		double ms;

		x->seq++;
		if (i < 2)
			snprintf(body, sizeof(body),
				 "{\"type\":2,\"id\":\"%u\",\"application_id\":\"" APP "\",\"token\":\"tok-%u\","
				 "\"channel_id\":\"4000\",\"guild_id\":\"5000\",\"member\":{\"user\":{\"id\":"
				 "\"11%d\",\"username\":\"p%d\"},\"permissions\":\"0\"},\"data\":{\"id\":\"1\","
				 "\"name\":\"help\",\"type\":1,\"options\":[]}}", x->seq, x->seq, i, i);
		else
			snprintf(body, sizeof(body), "{\"type\":1,\"id\":\"1\",\"application_id\":\"" APP "\"}");
		if (post_signed(x, body) != 200)
			return -1;
		ms = (double)(mono_us() - t0) / 1000.0;
		worst = ms > worst ? ms : worst;
	}
	return worst;
}

/* `gamebot serve` for Discord on port, once it answers /healthz; -1 when it did not start. */
static pid_t serve(struct run *x, const char *dir, int port, const char *api)
{
	char e_db[160], e_listen[96], e_api[160], e_pk[160], log[160], health[96];
	char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	const char *bin = getenv("GAMEBOT_BIN") ? getenv("GAMEBOT_BIN") : "bin/gamebot";
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen, e_pk, "DISCORD_APP_ID=" APP,
			      "DISCORD_TOKEN=" TOKEN, e_api, NULL };
	pid_t pid;

	sodium_bin2hex(hex, sizeof(hex), x->pk, sizeof(x->pk));
	snprintf(e_pk, sizeof(e_pk), "DISCORD_PUBLIC_KEY=%s", hex);
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s/flood.db", dir);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api, sizeof(e_api), "DISCORD_API_URL=%s", api);
	snprintf(log, sizeof(log), "%s/service.log", dir);
	snprintf(health, sizeof(health), "http://127.0.0.1:%d/healthz", port);
	snprintf(x->url, sizeof(x->url), "http://127.0.0.1:%d/discord", port);
	pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, log, false);
	if (pid > 0 && !wait_serving(pid, health, 20000)) {
		fprintf(stderr, "flood: %s serve did not answer (log in %s)\n", bin, log);
		pid = -1;
	}
	return pid;
}

/* Rounds under the flood on port: the slowest answer, or -1. *open_all: every connection was open. */
static double flooded(struct run *x, int port, long *sent, int *open_all)
{
	struct flood *f = flood_start(port, "/discord", CONNS, 64 * 1024);
	int64_t t0 = mono_us();
	double worst = 0, r;

	*sent = 0;
	*open_all = 0;
	if (!f)
		return -1;
	/* under way: every connection open and junk arriving for a while */
	while ((flood_open(f) < CONNS || mono_us() - t0 < 2000000) && mono_us() - t0 < 20000000)
		sleep_us(10000);
	*open_all = flood_open(f) == CONNS;
	for (int i = 0; i < ROUNDS && worst >= 0; i++) {
		r = round_ms(x);
		worst = r < 0 ? -1 : r > worst ? r : worst;
	}
	*sent = flood_stop(f);
	return worst;
}

int main(void)
{
	struct run x = { 0 };
	struct fake_dc *f = NULL;
	struct rlimit rl;
	char dir[64];
	int port = free_port(), open_all = 0, status;
	double calm = -1, worst = -1;
	long sent = 0;
	pid_t pid = -1;

	signal(SIGPIPE, SIG_IGN);
	/* both the flood's 2,000 connections and the service's (which inherits the limit) */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	x.c = curl_easy_init();
	if (!x.c || sodium_init() < 0 || fixture_dir(dir, sizeof(dir), "bench-flood") || fake_dc_start(&f, TOKEN)) {
		printf("flood      cannot set up: target NOT MET\n");
		return 0;
	}
	crypto_sign_keypair(x.pk, x.sk);
	pid = port ? serve(&x, dir, port, fake_dc_url(f)) : -1;
	if (pid > 0)
		calm = round_ms(&x);
	if (calm >= 0)
		worst = flooded(&x, port, &sent, &open_all);
	if (calm < 0 || worst < 0 || !open_all)
		printf("flood      a signed interaction was not answered, or the flood never had %d "
		       "connections open: target NOT MET\n", CONNS);
	else
		printf("flood      %d junk connections (%ld posts of 64 KiB): slowest signed interaction "
		       "%.0f ms, %.0f ms calm (target: delayed < %d ms) %s\n", CONNS, sent, worst, calm,
		       TARGET_MS, worst - calm < TARGET_MS ? "met" : "NOT MET");
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
	}
	fake_dc_free(f);
	curl_easy_cleanup(x.c);
	if (fixture_rm(dir))
		fprintf(stderr, "flood: %s not removed\n", dir);
	return 0;
}
