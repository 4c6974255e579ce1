/*
 * people.c - see people.h. One thread plays every table: it reads what
 * the fake Bot API received since it last looked, and posts the presses
 * that are due to the service's webhook, as Telegram would.
 */
#include "people.h"

#include <curl/curl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "games/game.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

#define TOKEN "4242:people-token"
#define SECRET "people-secret"
#define CHAT_BASE 1000000LL     /* table i plays in group -(CHAT_BASE + i) */
#define MAX_SEATS 8

struct table {
	char chat[32];          /* the group's chat id */
	long long thread;       /* its topic (one_group), else 0 */
	long long id;           /* the store's id of its table, 0 until known */
	char users[MAX_SEATS][16];
	char data[80];          /* the first button of the newest board shown, "" none */
	long long board_ms;     /* when the newest board was shown, 0 none */
	long long press_ms;     /* when its people last pressed */
	bool fresh;             /* a board not yet looked at */
	bool playing, over;
};

struct press {
	int table;
	int turn;               /* of the board pressed */
	long long sent, answered, shown;
};

struct run {
	const struct people_opts *o;
	struct people_result *r;
	struct fake_tg *f;
	struct store *s;
	CURL *c;
	char url[96];
	struct table *t;
	struct press *p;
	int np, capp;
	long long *gaps, *gap_ends;     /* each gap, and when it ended */
	int ngaps, capgaps;
	long long t0;                   /* when play began */
	int last_table, run;            /* the table of the last board, and its boards in a row */
	long long next_update;
	int seen;               /* fake calls read so far */
};

void people_opts_init(struct people_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->game = "snakes";
	o->tables = 1;
	o->persons = 2;
	o->computers = 2;
	o->press_ms = 800;
	o->seconds = 20;
	o->pacing = true;
}

static void ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

/* A message's topic fields for table (one_group): "" for a group without topics. */
static const char *topic_fields(const struct table *t)
{
	static char buf[96];

	if (!t->thread)
		return "";
	snprintf(buf, sizeof(buf), "\"message_thread_id\":%lld,\"is_topic_message\":true,", t->thread);
	return buf;
}

/* POST one update to the service's webhook; its HTTP status. */
static long post(struct run *x, const char *json)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	long code = 0;

	h = curl_slist_append(h, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	curl_easy_reset(x->c);
	curl_easy_setopt(x->c, CURLOPT_URL, x->url);
	curl_easy_setopt(x->c, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(x->c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(x->c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(x->c, CURLOPT_TIMEOUT, 30L);
	if (curl_easy_perform(x->c) == CURLE_OK)
		curl_easy_getinfo(x->c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	return code;
}

static void say(struct run *x, int table, int person, const char *text)
{
	char buf[512];
	long long id = x->next_update++;

	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":"
		 "{\"id\":%s,\"first_name\":\"P%d\"},\"chat\":{\"id\":%s,\"type\":\"supergroup\"%s},"
		 "%s\"text\":\"%s\"}}", id, id, x->t[table].users[person], person, x->t[table].chat,
		 x->t[table].thread ? ",\"is_forum\":true" : "", topic_fields(&x->t[table]), text);
	post(x, buf);
}

/* Press data on table's newest board as user. */
static void press(struct run *x, int table, const char *user, long long now)
{
	struct table *t = &x->t[table];
	char buf[640], qid[32];
	long long id = x->next_update++;
	const char *colon = strchr(t->data, ':');

	if (x->np == x->capp) {
		int cap = x->capp ? x->capp * 2 : 256;
		struct press *p = realloc(x->p, (size_t)cap * sizeof(*p));

		if (!p)
			return;
		x->p = p;
		x->capp = cap;
	}
	x->p[x->np] = (struct press){ .table = table, .turn = colon ? (int)strtol(colon + 1, NULL, 10) : 0,
				      .sent = now };
	snprintf(qid, sizeof(qid), "cq%d", x->np);
	x->np++;
	fake_tg_query(x->f, qid);
	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"callback_query\":{\"id\":\"%s\",\"from\":"
		 "{\"id\":%s,\"first_name\":\"P\"},\"message\":{%s\"message_id\":100,\"chat\":{\"id\":%s,"
		 "\"type\":\"supergroup\"%s}},\"chat_instance\":\"1\",\"data\":\"%s\"}}", id, qid, user,
		 topic_fields(t), t->chat, t->thread ? ",\"is_forum\":true" : "", t->data);
	t->press_ms = now;
	post(x, buf);
}

/*
 * Who is to move at table: a person's user id into user (n bytes), or ""
 * for a computer. Returns the table's status (STORE_PLAYING, ...), -1 when
 * it has none yet.
 */
static int mover(struct run *x, int table, char *user, size_t n)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	struct store_seat seats[MAX_SEATS];
	int status = -1, ns = 0, rc;

	char place[64];

	user[0] = '\0';
	if (x->t[table].thread)
		snprintf(place, sizeof(place), "%s#%lld", x->t[table].chat, x->t[table].thread);
	else
		snprintf(place, sizeof(place), "%s", x->t[table].chat);
	rc = store_chat_get(x->s, "telegram", place, "en", &c);
	if (!rc)
		rc = store_table_open_get(x->s, c.id, &t);
	if (!rc) {
		x->t[table].id = t.id;
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
		status = STORE_OVER; /* no open table: its game ended */
	}
	store_table_release(&t);
	store_chat_release(&c);
	return status;
}

static void add_gap(struct run *x, long long gap, long long end)
{
	if (x->ngaps == x->capgaps) {
		int cap = x->capgaps ? x->capgaps * 2 : 256;
		long long *g = realloc(x->gaps, (size_t)cap * sizeof(*g));
		long long *e = g ? realloc(x->gap_ends, (size_t)cap * sizeof(*e)) : NULL;

		if (g)
			x->gaps = g;
		if (!g || !e)
			return;
		x->gap_ends = e;
		x->capgaps = cap;
	}
	x->gap_ends[x->ngaps] = end;
	x->gaps[x->ngaps++] = gap;
	if (gap > x->r->max_gap_ms)
		x->r->max_gap_ms = gap;
}

/* A board (a message whose text is a <pre> block) reached table's group at ms. */
static void board(struct run *x, int table, const json_t *body, long long ms)
{
	struct table *t = &x->t[table];
	const json_t *kb = json_object_get(json_object_get(body, "reply_markup"), "inline_keyboard");
	const char *data = json_string_value(
		json_object_get(json_array_get(json_array_get(kb, 0), 0), "callback_data"));
	const char *colon = data ? strchr(data, ':') : NULL;
	int turn = colon ? (int)strtol(colon + 1, NULL, 10) : 1 << 30;
	char user[16];
	int status;

	bool all = true;

	x->r->boards++;
	x->run = x->last_table == table ? x->run + 1 : 1;
	x->last_table = table;
	for (int i = 0; i < x->o->tables; i++)
		all = all && x->t[i].playing && !x->t[i].over;
	if (all && x->run > x->r->max_run)
		x->r->max_run = x->run;
	snprintf(x->r->last_board, sizeof(x->r->last_board), "%s",
		 json_string_value(json_object_get(body, "text")));
	if (t->playing && t->board_ms)
		add_gap(x, ms - t->board_ms, ms);
	t->board_ms = ms;
	snprintf(t->data, sizeof(t->data), "%s", data ? data : "");
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

/*
 * The table a call's body is for: its group, or in one forum group its
 * topic (a new message) or the table its buttons name (an edit); -1 none.
 */
static int table_of(struct run *x, const json_t *b)
{
	long long chat = -json_integer_value(json_object_get(b, "chat_id")) - CHAT_BASE;
	long long thread = json_integer_value(json_object_get(b, "message_thread_id"));
	const json_t *kb = json_object_get(json_object_get(b, "reply_markup"), "inline_keyboard");
	const char *data = json_string_value(
		json_object_get(json_array_get(json_array_get(kb, 0), 0), "callback_data"));
	long long id = data ? strtoll(data, NULL, 10) : 0;

	if (!x->o->one_group)
		return chat >= 0 && chat < x->o->tables ? (int)chat : -1;
	for (int i = 0; chat == 0 && i < x->o->tables; i++)
		if ((thread && x->t[i].thread == thread) || (!thread && id && x->t[i].id == id))
			return i;
	return -1;
}

/* Read what the fake received since the last look. */
static void look(struct run *x)
{
	int n = fake_tg_count(x->f, NULL);

	for (; x->seen < n; x->seen++) {
		char method[64];
		int status = 0;
		json_t *b = fake_tg_call(x->f, x->seen, method, sizeof(method), &status);
		long long ms = fake_tg_call_ms(x->f, x->seen), chat;
		const char *text = json_string_value(json_object_get(b, "text"));
		const char *qid = json_string_value(json_object_get(b, "callback_query_id"));

		if (status == 429)
			x->r->refused_429++;
		if (!strcmp(method, "answerCallbackQuery") && qid && !strncmp(qid, "cq", 2)) {
			int i = (int)strtol(qid + 2, NULL, 10);

			if (status == 400)
				x->r->too_old++;
			else if (i >= 0 && i < x->np && !x->p[i].answered)
				x->p[i].answered = ms;
		}
		chat = table_of(x, b);
		if (status == 200 && text && strstr(text, "leaves the table") && chat >= 0)
			x->r->left_shown++;
		if (status == 200 && text && !strncmp(text, "<pre>", 5) && chat >= 0 &&
		    (!strcmp(method, "sendMessage") || !strcmp(method, "editMessageText")))
			board(x, (int)chat, b, ms);
		json_decref(b);
	}
}

/* Press where people would now. */
static void act(struct run *x, long long now)
{
	for (int i = 0; i < x->o->tables; i++) {
		struct table *t = &x->t[i];
		char user[16];

		if (t->over || !t->data[0])
			continue;
		if (x->o->every_ms > 0 ? now - t->press_ms < x->o->every_ms
				       : !t->fresh || now < t->board_ms + x->o->press_ms)
			continue;
		t->fresh = false;
		if (mover(x, i, user, sizeof(user)) == STORE_PLAYING && user[0])
			press(x, i, user, now);
		else if (x->o->every_ms > 0)
			t->press_ms = now; /* a computer's turn: look again later */
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

/* The p-th percentile (0..100) of v[0..n-1], sorted here; 0 when n is 0. */
static long long pct(long long *v, int n, int p)
{
	if (!n)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_ll);
	return v[(int)((long long)(n - 1) * p / 100)];
}

static void sum_up(struct run *x, long long now)
{
	struct people_result *r = x->r;
	size_t cap = (size_t)(x->np > x->ngaps + x->o->tables ? x->np : x->ngaps + x->o->tables) + 1;
	long long *ans = calloc(cap, sizeof(*ans)), *shown = calloc(cap, sizeof(*shown));
	int na = 0, ns = 0;

	for (int i = 0; i < x->o->tables; i++)
		if (x->t[i].playing && !x->t[i].over && x->t[i].board_ms)
			add_gap(x, now - x->t[i].board_ms, now); /* the gap still open at the end */
	for (int i = 0; ans && i < x->ngaps; i++) {
		/* the steady state: past the opening minute (the gaps are sorted below) */
		if (x->gap_ends[i] - x->t0 < 60000)
			continue;
		if (x->gaps[i] > r->steady_max_gap_ms)
			r->steady_max_gap_ms = x->gaps[i];
		ans[na++] = x->gaps[i];
	}
	r->steady_gap_p99_ms = pct(ans, na, 99);
	na = 0;
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

/* Open every table: typed commands, as its people would. */
static void open_tables(struct run *x)
{
	const struct people_opts *o = x->o;
	char cmd[64];

	for (int i = 0; i < o->tables; i++) {
		struct table *t = &x->t[i];

		snprintf(t->chat, sizeof(t->chat), "%lld", -(CHAT_BASE + (o->one_group ? 0 : i)));
		t->thread = o->one_group ? 10 + i : 0;
		for (int k = 0; k < o->persons && k < MAX_SEATS; k++)
			snprintf(t->users[k], sizeof(t->users[k]), "%d", 100000 + i * 10 + k);
		snprintf(cmd, sizeof(cmd), "/new %s", o->game);
		say(x, i, 0, cmd);
		for (int k = 1; k < o->persons && k < MAX_SEATS; k++)
			say(x, i, k, "/join");
		for (int k = 0; k < o->computers; k++)
			say(x, i, 0, "/addbot");
		say(x, i, 0, "/start");
	}
}

static void play(struct run *x, pid_t pid)
{
	long long t0 = fake_tg_now_ms(), now = t0, next_count = t0, next_say = t0 + 5000;
	bool left = false;

	x->t0 = t0;
	long long end = x->o->seconds > 0 ? t0 + x->o->seconds * 1000LL : 0;

	x->r->rss_first_kb = rss_kb(pid);
	while ((!end || now < end) && x->r->over < x->o->tables) {
		look(x);
		act(x, now);
		if (x->o->leave_at_s > 0 && !left && now - t0 >= x->o->leave_at_s * 1000LL) {
			/* mid-game: the group is told, and the game goes on with a computer in the seat */
			for (int i = 0; i < x->o->tables && x->o->persons > 1; i++) {
				say(x, i, 1, "/leave");
				x->r->left++;
			}
			left = true;
		}
		if (now >= next_count) {
			int pending = 0;

			if (!store_out_count(x->s, "telegram", &pending, NULL, NULL) &&
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
		ms_sleep(10);
		now = fake_tg_now_ms();
	}
	look(x);
	if (getenv("PEOPLE_DUMP"))
		fake_tg_dump(x->f);
	x->r->rss_last_kb = rss_kb(pid);
	x->r->seconds = (double)(now - t0) / 1000.0;
	sum_up(x, now);
}

/* The service, in webhook mode against the fake, on its own database; its pid or -1. */
static pid_t serve(struct run *x, const char *dir, int port)
{
	char e_db[160], e_listen[96], e_api[160], e_log[160], health[96];
	const char *bin = x->o->bin ? x->o->bin : getenv("GAMEBOT_BIN");
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen, "GAMEBOT_TELEGRAM_TOKEN=" TOKEN,
			      e_api, "GAMEBOT_TELEGRAM_MODE=webhook", "GAMEBOT_TELEGRAM_SECRET=" SECRET,
			      x->o->pacing ? "GAMEBOT_TELEGRAM_PACING=on" : "GAMEBOT_TELEGRAM_PACING=off",
			      NULL };
	pid_t pid;

	if (!bin)
		bin = "bin/gamebot";
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s/p.db", dir);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api, sizeof(e_api), "GAMEBOT_TELEGRAM_API_URL=%s", fake_tg_url(x->f));
	snprintf(e_log, sizeof(e_log), "%s/service.log", dir);
	snprintf(health, sizeof(health), "http://127.0.0.1:%d/healthz", port);
	snprintf(x->url, sizeof(x->url), "http://127.0.0.1:%d/telegram", port);
	pid = spawn(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, e_log, false);
	if (pid > 0 && !wait_serving(pid, health, 20000)) {
		fprintf(stderr, "people: %s serve did not answer (log in %s)\n", bin, e_log);
		pid = -1;
	}
	return pid;
}

int people_play(const struct people_opts *o, struct people_result *r)
{
	struct run x = { .o = o, .r = r, .next_update = 1, .last_table = -1 };
	char dir[64], db[128];
	pid_t pid = -1;
	int rc = -1, status;

	memset(r, 0, sizeof(*r));
	x.t = calloc((size_t)o->tables, sizeof(*x.t));
	x.c = curl_easy_init();
	if (!x.t || !x.c || fixture_dir(dir, sizeof(dir), "people") || fake_tg_start(&x.f, TOKEN, "people_bot")) {
		fprintf(stderr, "people: cannot set up\n");
		goto out;
	}
	fake_tg_strict(x.f, true);
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
	fake_tg_free(x.f);
	if (x.c)
		curl_easy_cleanup(x.c);
	free(x.t);
	free(x.p);
	free(x.gaps);
	free(x.gap_ends);
	if (!getenv("PEOPLE_KEEP")) {
		if (fixture_rm(dir))
			fprintf(stderr, "people: %s not removed\n", dir);
	}
	return rc;
}
