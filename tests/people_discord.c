/*
 * people_discord.c - people_discord_play() of people.h: people at Discord
 * tables, against the real service and the fake Discord API in strict
 * mode (tests/fake_discord.c: Discord's buckets and global limit, its 429
 * bodies). One thread plays every table: it signs each interaction with
 * the service's test key and POSTs it to /discord as Discord would,
 * reads the answer (a press's answer is the table updated in place), and
 * reads what the fake received since it last looked (the boards a
 * computer's move sent as edits).
 */
#include "people.h"

#include <curl/curl.h>
#include <jansson.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "games/game.h"
#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_discord.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define APP "1000"
#define TOKEN "people-bot-token"
#define CHANNEL_BASE 6000000LL  /* table i plays in channel CHANNEL_BASE + i */
#define MESSAGE_BASE 800000000000000000LL
#define DC_EPOCH 1420070400000LL
#define MAX_SEATS 8

struct dtable {
	char channel[32];
	char msg[32];               /* the table message's id, as the people's client shows it */
	char users[MAX_SEATS][16];
	json_t *component;          /* the first component of the newest board shown (owned) */
	long long board_ms, press_ms;
	bool fresh, playing, over;
};

struct dpress {
	int table, turn;
	long long sent, answered, shown;
};

struct drun {
	const struct people_opts *o;
	struct people_result *r;
	struct fake_dc *f;
	struct store *s;
	CURL *c;
	char url[96];
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	struct dtable *t;
	struct dpress *p;
	int np, capp;
	long long *gaps;
	int ngaps, capgaps;
	unsigned seq;
	int seen;
};

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long long wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t keep(char *p, size_t size, size_t n, void *arg)
{
	sb_addn(arg, p, size * n);
	return size * n;
}

/* POST interaction ia (consumed), signed as Discord signs; its answer (caller decrefs) or NULL. */
static json_t *send_ia(struct drun *x, json_t *ia)
{
	char *body = json_dumps(ia, JSON_COMPACT), ts[32], hex[2 * crypto_sign_BYTES + 1];
	unsigned char sig[crypto_sign_BYTES];
	struct strbuf msg = { 0 }, in = { 0 }, hs = { 0 }, ht = { 0 };
	struct curl_slist *h = NULL;
	json_error_t jerr;
	json_t *answer = NULL;
	long code = 0;

	json_decref(ia);
	if (!body)
		return NULL;
	snprintf(ts, sizeof(ts), "%lld", wall_ms() / 1000);
	sb_add(&msg, ts);
	sb_add(&msg, body);
	crypto_sign_detached(sig, NULL, (const unsigned char *)sb_str(&msg), msg.len, x->sk);
	sodium_bin2hex(hex, sizeof(hex), sig, sizeof(sig));
	sb_addf(&hs, "X-Signature-Ed25519: %s", hex);
	sb_addf(&ht, "X-Signature-Timestamp: %s", ts);
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, sb_str(&hs));
	h = curl_slist_append(h, sb_str(&ht));
	curl_easy_reset(x->c);
	curl_easy_setopt(x->c, CURLOPT_URL, x->url);
	curl_easy_setopt(x->c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(x->c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(x->c, CURLOPT_WRITEFUNCTION, keep);
	curl_easy_setopt(x->c, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(x->c, CURLOPT_TIMEOUT, 30L);
	if (curl_easy_perform(x->c) == CURLE_OK)
		curl_easy_getinfo(x->c, CURLINFO_RESPONSE_CODE, &code);
	if (code == 200)
		answer = json_loadb(sb_str(&in), in.len, 0, &jerr);
	curl_slist_free_all(h);
	sb_release(&msg);
	sb_release(&in);
	sb_release(&hs);
	sb_release(&ht);
	free(body);
	return answer;
}

/* An interaction of type with data (consumed) by person of table. */
static json_t *interaction(struct drun *x, int table, int person, int type, json_t *data)
{
	char id[32], tok[64];

	snprintf(id, sizeof(id), "%llu",
		 (unsigned long long)(((uint64_t)(wall_ms() - DC_EPOCH) << 22) | (++x->seq & 0x3fffff)));
	snprintf(tok, sizeof(tok), "tok-%d-%s", table, id);
	return json_pack("{sisssssssssss{s{ssss}ss}so}", "type", type, "id", id, "application_id", APP,
			 "token", tok, "channel_id", x->t[table].channel, "guild_id", "5000", "member",
			 "user", "id", x->t[table].users[person], "username", x->t[table].users[person],
			 "permissions", "0", "data", data);
}

static void add_gap(struct drun *x, long long gap)
{
	if (x->ngaps == x->capgaps) {
		int cap = x->capgaps ? x->capgaps * 2 : 256;
		long long *g = realloc(x->gaps, (size_t)cap * sizeof(*g));

		if (!g)
			return;
		x->gaps = g;
		x->capgaps = cap;
	}
	x->gaps[x->ngaps++] = gap;
	if (gap > x->r->max_gap_ms)
		x->r->max_gap_ms = gap;
}

/*
 * Who is to move at table: a person's user id into user, "" a computer.
 * Returns the table's status, -1 when it has none yet.
 */
static int mover(struct drun *x, int table, char *user, size_t n)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	struct store_seat seats[MAX_SEATS];
	int status = -1, ns = 0, rc;

	user[0] = '\0';
	rc = store_chat_get(x->s, "discord", x->t[table].channel, "en", &c);
	if (!rc)
		rc = store_table_open_get(x->s, c.id, &t);
	if (!rc) {
		const struct gb_game *g = gb_game_find(t.game);
		json_error_t err;
		json_t *w = t.state ? json_loads(t.state, 0, &err) : NULL;
		void *st = g ? calloc(1, g->state_size) : NULL;

		status = t.status;
		if (status == STORE_PLAYING && st && w &&
		    g->from_json(st, json_object_get(w, "game")) == GB_OK &&
		    store_seats_get(x->s, t.id, seats, MAX_SEATS, &ns) == GB_OK) {
			int turn = g->turn(st);

			if (turn >= 0 && turn < ns && seats[turn].level < 0)
				snprintf(user, n, "%s", seats[turn].user);
		}
		free(st);
		json_decref(w);
	} else if (rc == GB_ENOTFOUND && c.id) {
		status = STORE_OVER;
	}
	store_table_release(&t);
	store_chat_release(&c);
	return status;
}

/* The turn a component's custom_id "TABLE:TURN:..." was drawn at (huge when none). */
static int turn_of(const json_t *comp)
{
	const char *id = json_string_value(json_object_get(comp, "custom_id"));
	const char *colon = id ? strchr(id, ':') : NULL;

	return colon ? (int)strtol(colon + 1, NULL, 10) : 1 << 30;
}

/* A message (content and components) showing table's board reached its people at ms. */
static void board(struct drun *x, int table, const json_t *m, long long ms)
{
	struct dtable *t = &x->t[table];
	const char *content = json_string_value(json_object_get(m, "content"));
	const json_t *comp = json_array_get(
		json_object_get(json_array_get(json_object_get(m, "components"), 0), "components"), 0);
	char user[16];
	int status, turn = turn_of(comp);

	if (!content || strncmp(content, "```", 3))
		return;
	x->r->boards++;
	snprintf(x->r->last_board, sizeof(x->r->last_board), "%s", content);
	if (t->playing && t->board_ms)
		add_gap(x, ms - t->board_ms);
	t->board_ms = ms;
	json_decref(t->component);
	t->component = comp ? json_deep_copy(comp) : NULL;
	t->fresh = true;
	for (int i = 0; i < x->np; i++)
		if (x->p[i].table == table && !x->p[i].shown && x->p[i].turn < turn)
			x->p[i].shown = ms;
	status = mover(x, table, user, sizeof(user));
	if (status == STORE_PLAYING)
		t->playing = true;
	if (status == STORE_OVER && !t->over) {
		t->over = true;
		t->playing = false;
		x->r->over++;
	}
}

/* A slash command by person at table; its answer's message becomes the table's board when one. */
static void slash(struct drun *x, int table, int person, const char *name, json_t *options)
{
	json_t *a = send_ia(x, interaction(x, table, person, 2,
					   json_pack("{sssssiso}", "id", "1", "name", name, "type", 1,
						     "options", options ? options : json_array())));

	if (a)
		board(x, table, json_object_get(a, "data"), mono_ms());
	json_decref(a);
}

static void press(struct drun *x, int table, int person, long long now)
{
	struct dtable *t = &x->t[table];
	const json_t *comp = t->component;
	json_t *data, *ia, *a;
	struct dpress *p;

	if (x->np == x->capp) {
		int cap = x->capp ? x->capp * 2 : 256;
		struct dpress *np = realloc(x->p, (size_t)cap * sizeof(*np));

		if (!np)
			return;
		x->p = np;
		x->capp = cap;
	}
	p = &x->p[x->np++];
	*p = (struct dpress){ .table = table, .turn = turn_of(comp), .sent = now };
	data = json_pack("{sOsI}", "custom_id", json_object_get(comp, "custom_id"), "component_type",
			 json_integer_value(json_object_get(comp, "type")));
	if (json_integer_value(json_object_get(comp, "type")) == 3)
		/* a select menu: its first option */
		json_object_set_new(data, "values",
				    json_pack("[O]", json_object_get(json_array_get(
						     json_object_get(comp, "options"), 0), "value")));
	ia = interaction(x, table, person, 3, data);
	json_object_set_new(ia, "message", json_pack("{sssiss}", "id", t->msg, "flags", 0, "content", ""));
	t->press_ms = now;
	a = send_ia(x, ia);
	p->answered = mono_ms();
	if (p->answered - p->sent > 3000)
		x->r->too_old++;
	if (a && json_integer_value(json_object_get(a, "type")) == 7)
		board(x, table, json_object_get(a, "data"), p->answered);
	json_decref(a);
}

/* The table a call's path is for, -1 none: its channel, or the token of its interaction. */
static int table_of(struct drun *x, const char *path)
{
	long long v = -1;

	if (!strncmp(path, "/channels/", 10))
		v = strtoll(path + 10, NULL, 10) - CHANNEL_BASE;
	else if (!strncmp(path, "/webhooks/" APP "/tok-", 10 + strlen(APP) + 5))
		v = strtoll(path + 10 + strlen(APP) + 5, NULL, 10);
	return v >= 0 && v < x->o->tables ? (int)v : -1;
}

/* Read what the fake received since the last look. */
static void look(struct drun *x)
{
	int n = fake_dc_count(x->f, NULL, NULL);

	for (; x->seen < n; x->seen++) {
		char method[16], path[512];
		int status = 0, table;
		json_t *b = fake_dc_call(x->f, x->seen, method, sizeof(method), path, sizeof(path), NULL,
					 0, &status);

		table = table_of(x, path);
		if (status == 200 && table >= 0 && (!strcmp(method, "PATCH") || !strcmp(method, "POST")))
			board(x, table, b, fake_dc_call_at(x->f, x->seen));
		json_decref(b);
	}
	fake_dc_strict_counts(x->f, &x->r->refused_429, NULL);
}

static void act(struct drun *x, long long now)
{
	for (int i = 0; i < x->o->tables; i++) {
		struct dtable *t = &x->t[i];
		char user[16];

		if (t->over || !t->component)
			continue;
		if (x->o->every_ms > 0 ? now - t->press_ms < x->o->every_ms
				       : !t->fresh || now < t->board_ms + x->o->press_ms)
			continue;
		t->fresh = false;
		if (mover(x, i, user, sizeof(user)) == STORE_PLAYING && user[0]) {
			for (int k = 0; k < x->o->persons && k < MAX_SEATS; k++)
				if (!strcmp(user, t->users[k]))
					press(x, i, k, now);
		} else if (x->o->every_ms > 0) {
			t->press_ms = now;
		}
	}
}

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static long long pct(long long *v, int n, int p)
{
	if (!n)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
	return v[(int)((long long)(n - 1) * p / 100)];
}

static void sum_up(struct drun *x, long long now)
{
	struct people_result *r = x->r;
	long long *ans = calloc((size_t)x->np + 1, sizeof(*ans));
	long long *shown = calloc((size_t)x->np + 1, sizeof(*shown));
	int na = 0, ns = 0;

	for (int i = 0; i < x->o->tables; i++)
		if (x->t[i].playing && !x->t[i].over && x->t[i].board_ms)
			add_gap(x, now - x->t[i].board_ms);
	r->gap_p99_ms = pct(x->gaps, x->ngaps, 99);
	r->presses = x->np;
	for (int i = 0; ans && shown && i < x->np; i++) {
		if (x->p[i].answered)
			ans[na++] = x->p[i].answered - x->p[i].sent;
		if (x->p[i].shown)
			shown[ns++] = x->p[i].shown - x->p[i].sent;
	}
	r->answered = na;
	r->answer_p50_ms = pct(ans, na, 50);
	r->answer_p99_ms = pct(ans, na, 99);
	r->answer_max_ms = pct(ans, na, 100);
	r->shown_p99_ms = pct(shown, ns, 99);
	r->shown_max_ms = pct(shown, ns, 100);
	free(ans);
	free(shown);
}

static void open_tables(struct drun *x)
{
	const struct people_opts *o = x->o;

	for (int i = 0; i < o->tables; i++) {
		struct dtable *t = &x->t[i];

		snprintf(t->channel, sizeof(t->channel), "%lld", CHANNEL_BASE + i);
		snprintf(t->msg, sizeof(t->msg), "%lld", MESSAGE_BASE + i);
		for (int k = 0; k < o->persons && k < MAX_SEATS; k++)
			snprintf(t->users[k], sizeof(t->users[k]), "%d", 7000000 + i * 10 + k);
		slash(x, i, 0, "new", json_pack("[{sssiss}]", "name", "game", "type", 3, "value", o->game));
		for (int k = 1; k < o->persons && k < MAX_SEATS; k++)
			slash(x, i, k, "join", NULL);
		for (int k = 0; k < o->computers; k++)
			slash(x, i, 0, "addbot", NULL);
		slash(x, i, 0, "start", NULL);
	}
}

static void play(struct drun *x, pid_t pid)
{
	long long t0 = mono_ms(), now = t0, next_count = t0, next_say = t0 + 5000;
	long long end = x->o->seconds > 0 ? t0 + x->o->seconds * 1000LL : 0;

	x->r->rss_first_kb = rss_kb(pid);
	while ((!end || now < end) && x->r->over < x->o->tables) {
		struct timespec ts = { 0, 10000000L };

		look(x);
		act(x, now);
		if (now >= next_count) {
			int pending = 0;

			if (!store_out_count(x->s, "discord", &pending, NULL, NULL) &&
			    pending > x->r->max_pending)
				x->r->max_pending = pending;
			next_count = now + 500;
		}
		if (now - t0 >= 60000 && now - t0 < 60100)
			x->r->rss_first_kb = rss_kb(pid);
		if (x->o->verbose && now >= next_say) {
			fprintf(stderr, "  %4llds: %d boards, %d presses, %d over, max gap %lld ms, %d 429s\n",
				(now - t0) / 1000, x->r->boards, x->np, x->r->over, x->r->max_gap_ms,
				x->r->refused_429);
			next_say = now + 5000;
		}
		nanosleep(&ts, NULL);
		now = mono_ms();
	}
	look(x);
	x->r->rss_last_kb = rss_kb(pid);
	x->r->seconds = (double)(now - t0) / 1000.0;
	sum_up(x, now);
}

static pid_t serve(struct drun *x, const char *dir, int port)
{
	char e_db[160], e_listen[96], e_api[160], e_pk[160], log[160], health[96];
	char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];
	const char *bin = x->o->bin ? x->o->bin : getenv("GAMEBOT_BIN");
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen, e_pk, "DISCORD_APP_ID=" APP,
			      "DISCORD_TOKEN=" TOKEN, e_api, NULL };
	pid_t pid;

	if (!bin)
		bin = "bin/gamebot";
	sodium_bin2hex(hex, sizeof(hex), x->pk, sizeof(x->pk));
	snprintf(e_pk, sizeof(e_pk), "DISCORD_PUBLIC_KEY=%s", hex);
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s/p.db", dir);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api, sizeof(e_api), "DISCORD_API_URL=%s", fake_dc_url(x->f));
	snprintf(log, sizeof(log), "%s/service.log", dir);
	snprintf(health, sizeof(health), "http://127.0.0.1:%d/healthz", port);
	snprintf(x->url, sizeof(x->url), "http://127.0.0.1:%d/discord", port);
	pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, log, false);
	if (pid > 0 && !wait_serving(pid, health, 20000)) {
		fprintf(stderr, "people: %s serve did not answer (log in %s)\n", bin, log);
		pid = -1;
	}
	return pid;
}

int people_discord_play(const struct people_opts *o, struct people_result *r)
{
	struct drun x = { .o = o, .r = r };
	char dir[64], db[128];
	pid_t pid = -1;
	int rc = -1, status;

	memset(r, 0, sizeof(*r));
	x.t = calloc((size_t)o->tables, sizeof(*x.t));
	x.c = curl_easy_init();
	if (!x.t || !x.c || sodium_init() < 0 || fixture_dir(dir, sizeof(dir), "people-dc") ||
	    fake_dc_start(&x.f, TOKEN) || fake_dc_strict(x.f, true)) {
		fprintf(stderr, "people: cannot set up\n");
		goto out;
	}
	crypto_sign_keypair(x.pk, x.sk);
	pid = serve(&x, dir, free_port());
	snprintf(db, sizeof(db), "%s/p.db", dir);
	if (pid <= 0 || store_open(&x.s, db))
		goto out;
	open_tables(&x);
	play(&x, pid);
	rc = 0;
out:
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, &status, 0);
	}
	store_free(x.s);
	fake_dc_free(x.f);
	if (x.c)
		curl_easy_cleanup(x.c);
	for (int i = 0; x.t && i < o->tables; i++)
		json_decref(x.t[i].component);
	free(x.t);
	free(x.p);
	free(x.gaps);
	if (!getenv("PEOPLE_KEEP")) {
		if (fixture_rm(dir))
			fprintf(stderr, "people: %s not removed\n", dir);
	}
	return rc;
}
