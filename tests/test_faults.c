/*
 * test_faults.c - the store failing under a running bot, on real SQLite files.
 *
 * Three faults, each while a game of Snakes and Ladders is being played in
 * a Telegram chat through bot_handle():
 *   busy       another connection holds the write lock past the busy
 *              timeout (lowered to 400 ms with store_busy_timeout_set())
 *   disk full  the database lives on a small tmpfs that a filler file has
 *              filled to the last byte
 *   read-only  the database file can be read but not written (a read-only
 *              bind mount as root, whom chmod does not stop; chmod otherwise)
 *              when the service's worker opens its store: a handle already
 *              open keeps writing (its descriptor was opened for writing),
 *              so that is where this fault is met
 * For each, the move that meets the fault must:
 *   - fail (GB_ESTORE), with one log line naming the chat, the command and
 *     what SQLite said (read-only: the store is not opened, and the log
 *     line says the file is read-only);
 *   - change nothing: every row of every table of the file is as before
 *     (no move, no outbox row - not even an alert - no dedupe key), so the
 *     platform's resend of the same update is not taken for a repeat;
 *   - and once the fault clears, the same update sent again succeeds on
 *     the same bot and store handle (no restart), the move is logged once,
 *     and the game replays from its seed and move log to its stored state.
 * The Telegram webhook is checked on the same faults: an update that meets
 * one is answered 500 (503 when the file is read-only: the worker gets no
 * store), so Telegram sends it again, and its resend 200. A
 * computer's turn (a timer) that meets a full disk, or a lock held past
 * the timeout again and again, stays due, is never given up, and is
 * played once the store answers.
 *
 * The disk and read-only faults want a mount: the suite makes them in a
 * private mount namespace of its own (unshare, as root or through a user
 * namespace), so nothing outlives the process. Where no mount can be made
 * (a container without the right; GAMEBOT_TEST_NO_MOUNT=1 forces it) the
 * file size limit (RLIMIT_FSIZE) stands in for the full disk, and root
 * gives up its rights (effective uid nobody) so that chmod makes the file
 * read-only; each says so on stderr. Every test checks that its fault
 * really is in place and fails, saying why, when it is not: a fault that
 * was never injected proves nothing.
 */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "adapters/adapter.h"
#include "adapters/http.h"
#include "adapters/telegram.h"
#include "bot/base/config.h"
#include "bot/bot.h"
#include "games/game.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/fixture.h"

#define CHAT "-1001"
/*
 * The store's busy timeout here: long enough that one wait of it is told
 * from two on a loaded machine (a scheduling delay is far shorter).
 */
#define BUSY_MS 1000
/* A pause of ms milliseconds as a struct timespec. */
#define MS_SPEC(ms) { (ms) / 1000, ((ms) % 1000) * 1000000L }
#define TOKEN "123:faults"
#define SECRET "s3cret"

struct fx {
	char dir[64];        /* mkdtemp folder; the tmpfs is mounted on it for the disk test */
	char db[128];        /* the database the bot opens */
	char ro[96];         /* read-only view of dir (bind mount), "" when unused */
	struct bot own;      /* the bot of the tests that open their own store */
	struct bot *b;       /* the bot in use: own, or a worker thread's (adapter_bot()) */
	int64_t now_ms;
	int log_pipe;        /* read end of the pipe stderr goes to while a fault is met */
	int disk;            /* how the disk is made full: DISK_TMPFS or DISK_LIMIT */
	const char *full_says; /* what SQLite says when it meets that fault */
	int dropped;         /* root gave up its rights (effective uid nobody) for the read-only test */
	char filler[200];    /* DISK_TMPFS: the file that fills it */
};

enum { DISK_TMPFS = 1, DISK_LIMIT = 2 };

/* ---- the mount namespace ---- */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = -1;

	if (fd >= 0) {
		n = write(fd, text, strlen(text));
		close(fd);
	}
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * Enter a mount namespace of our own (once), so mounts need no cleanup and
 * never leak: as root directly, otherwise through a user namespace in
 * which we are root. Returns 0, or -1 with why filled.
 */
static int private_mounts(char *why, size_t n)
{
	static int done;
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (done)
		return 0;
	if (unshare(CLONE_NEWNS) != 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
			snprintf(why, n, "no mount namespace: unshare: %s", strerror(errno));
			return -1;
		}
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		write_file("/proc/self/setgroups", "deny");
		if (write_file("/proc/self/uid_map", map) != 0) {
			snprintf(why, n, "no user namespace mapping: %s", strerror(errno));
			return -1;
		}
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		write_file("/proc/self/gid_map", map);
	}
	/* mounts made here must not propagate back to the host */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		snprintf(why, n, "cannot make mounts private: %s", strerror(errno));
		return -1;
	}
	done = 1;
	return 0;
}

/* ---- fixture ---- */

static void fx_open(struct fx *f)
{
	int rc;

	f->b = &f->own;
	memset(f->b, 0, sizeof(*f->b));
	bot_config_init(&f->b->cfg);
	f->b->cfg.seed = 11;
	rc = store_open(&f->b->store, f->db);
	if (rc)
		fail_msg("store_open: %s: %s", gb_strerror(rc), store_last_error());
}

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	if (fixture_dir(f->dir, sizeof(f->dir), "faults"))
		return -1;
	snprintf(f->db, sizeof(f->db), "%s/g.db", f->dir);
	f->log_pipe = -1;
	f->now_ms = 1000000;
	store_busy_timeout_set(BUSY_MS);
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	int rc;

	if (f->dropped && (seteuid(0) != 0 || setegid(0) != 0))
		return -1;
	if (f->b == &f->own)
		store_free(f->own.store);
	else
		adapter_bot_release();
	store_busy_timeout_set(STORE_BUSY_TIMEOUT_MS);
	if (f->ro[0]) {
		umount2(f->ro, MNT_DETACH);
		rmdir(f->ro);
	}
	umount2(f->dir, MNT_DETACH);
	if (f->disk == DISK_LIMIT)
		setrlimit(RLIMIT_FSIZE, &(struct rlimit){ RLIM_INFINITY, RLIM_INFINITY });
	rc = fixture_rm(f->dir);
	free(f);
	return rc;
}

/* Send text as user in the chat as Telegram update `update`; returns bot_handle()'s code. */
static int say(struct fx *f, const char *user, const char *text, long long update)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "telegram");
	snprintf(cmd.chat, sizeof(cmd.chat), CHAT);
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "player %s", user);
	cmd.is_admin = true;
	cmd.now_ms = f->now_ms;
	cmd.redelivered = true; /* as the Telegram adapter says */
	snprintf(cmd.update_id, sizeof(cmd.update_id), "%lld", update);
	return bot_handle(f->b, &cmd);
}

/* The user id whose turn it is at the chat's open table. */
static void mover(struct fx *f, char *user, size_t n)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	struct store_seat seats[GB_MAX_SEATS];
	json_t *w;
	int nseats = 0, turn;

	assert_int_equal(store_chat_get(f->b->store, "telegram", CHAT, "en", &c), GB_OK);
	assert_int_equal(store_table_open_get(f->b->store, c.id, &t), GB_OK);
	w = json_loads(t.state, 0, NULL);
	assert_non_null(w);
	turn = (int)json_integer_value(json_object_get(json_object_get(w, "game"), "turn"));
	assert_int_equal(store_seats_get(f->b->store, t.id, seats, GB_MAX_SEATS, &nseats), GB_OK);
	assert_in_range(turn, 0, nseats - 1);
	snprintf(user, n, "%s", seats[turn].user);
	json_decref(w);
	store_table_release(&t);
	store_chat_release(&c);
}

/* A game under way: a table of Snakes and Ladders with a few moves logged. */
static void start_game(struct fx *f)
{
	char who[STORE_ID_LEN];

	assert_int_equal(say(f, "501", "/new snakes", 1), GB_OK);
	assert_int_equal(say(f, "502", "/join", 2), GB_OK);
	assert_int_equal(say(f, "501", "/start", 3), GB_OK);
	for (int i = 0; i < 4; i++) {
		mover(f, who, sizeof(who));
		assert_int_equal(say(f, who, "/roll", 10 + i), GB_OK);
	}
}

/*
 * Everything in the file, as text: every row of every table, in order.
 * Read with a connection of its own (read-only), so it sees what is
 * committed. Caller frees.
 */
static char *snapshot(const char *db)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *tables = NULL;
	char *all = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&all, &len);

	assert_non_null(out);
	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_busy_timeout(h, 2000);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE type = 'table'"
					    " ORDER BY name", -1, &tables, NULL), SQLITE_OK);
	while (sqlite3_step(tables) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(tables, 0);
		char *sql = sqlite3_mprintf("SELECT * FROM \"%w\" ORDER BY 1", name);
		sqlite3_stmt *q = NULL;

		assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK);
		fprintf(out, "[%s]\n", name);
		while (sqlite3_step(q) == SQLITE_ROW) {
			for (int i = 0; i < sqlite3_column_count(q); i++) {
				const unsigned char *v = sqlite3_column_text(q, i);

				fprintf(out, "%s|", v ? (const char *)v : "NULL");
			}
			fputc('\n', out);
		}
		sqlite3_finalize(q);
		sqlite3_free(sql);
	}
	sqlite3_finalize(tables);
	sqlite3_close(h);
	fclose(out);
	return all;
}

/* How many moves the open table has logged. */
static int moves(struct fx *f)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	int n = -1;

	assert_int_equal(store_chat_get(f->b->store, "telegram", CHAT, "en", &c), GB_OK);
	assert_int_equal(store_table_open_get(f->b->store, c.id, &t), GB_OK);
	assert_int_equal(store_move_count(f->b->store, t.id, &n), GB_OK);
	store_table_release(&t);
	store_chat_release(&c);
	return n;
}

/*
 * Every table replays from its seed and move log to its stored state
 * (moves numbered 1..N, each legal when it was made).
 */
static void check_replay(const char *db)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *t = NULL;
	int tables = 0;

	assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT id, game, seed, rules, state FROM tables"
					    " WHERE state IS NOT NULL", -1, &t, NULL), SQLITE_OK);
	while (sqlite3_step(t) == SQLITE_ROW) {
		const struct gb_game *g = gb_game_find((const char *)sqlite3_column_text(t, 1));
		json_t *rules = json_loads((const char *)sqlite3_column_text(t, 3), 0, NULL);
		json_t *w = json_loads((const char *)sqlite3_column_text(t, 4), 0, NULL);
		json_t *replayed;
		sqlite3_stmt *q = NULL;
		struct gb_setup su;
		void *st;
		int n = 0;

		assert_non_null(g);
		assert_non_null(rules);
		assert_non_null(w);
		gb_setup_init(&su, g);
		assert_int_equal(sqlite3_prepare_v2(h, "SELECT count(*) FROM seats WHERE table_id = ?",
						    -1, &q, NULL), SQLITE_OK);
		sqlite3_bind_int64(q, 1, sqlite3_column_int64(t, 0));
		assert_int_equal(sqlite3_step(q), SQLITE_ROW);
		su.players = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
		su.seed = (uint64_t)sqlite3_column_int64(t, 2);
		su.dealer = (int)(su.seed % 4);
		assert_int_equal(gb_rules_from_json(g, &su.rules, rules), GB_OK);
		st = calloc(1, g->state_size);
		assert_non_null(st);
		assert_int_equal(g->init(st, &su), GB_OK);
		assert_int_equal(sqlite3_prepare_v2(h, "SELECT seq, action FROM moves WHERE table_id = ?"
						    " ORDER BY seq", -1, &q, NULL), SQLITE_OK);
		sqlite3_bind_int64(q, 1, sqlite3_column_int64(t, 0));
		while (sqlite3_step(q) == SQLITE_ROW) {
			struct gb_action act;

			assert_int_equal(sqlite3_column_int(q, 0), ++n);
			assert_int_equal(g->parse(st, (const char *)sqlite3_column_text(q, 1), &act), GB_OK);
			assert_int_equal(g->apply(st, &act, NULL), GB_OK);
			assert_int_equal(g->check(st), GB_OK);
		}
		sqlite3_finalize(q);
		assert_int_equal(json_integer_value(json_object_get(w, "seq")), n);
		replayed = gb_state_json(g, st);
		assert_true(json_equal(json_object_get(w, "game"), replayed));
		json_decref(replayed);
		json_decref(w);
		json_decref(rules);
		free(st);
		tables++;
	}
	sqlite3_finalize(t);
	sqlite3_close(h);
	assert_true(tables > 0);
}

/* ---- capturing the log ---- */

static int saved_stderr = -1;

static void log_capture(struct fx *f)
{
	int fds[2];

	/* a pipe, not a file: the file size limit standing in for a full disk must not stop it */
	assert_int_equal(pipe(fds), 0);
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fds[1], 2);
	close(fds[1]);
	f->log_pipe = fds[0];
}

/* Stop capturing; returns what was logged (caller frees), and echoes it. */
static char *log_release(struct fx *f)
{
	char *text = calloc(1, 16384);
	size_t n = 0;
	ssize_t r;

	assert_non_null(text);
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	while (n < 16383 && (r = read(f->log_pipe, text + n, 16383 - n)) > 0)
		n += (size_t)r;
	text[n] = '\0';
	close(f->log_pipe);
	f->log_pipe = -1;
	fputs(text, stderr);
	return text;
}

/*
 * The move of the player to move, met by a fault that is already in
 * place: it fails with a log line holding `said`, and leaves the file as
 * it was. Returns the update id used and the user in who.
 */
static long long move_fails(struct fx *f, const char *said, char *who, size_t n)
{
	char *before, *after, *log;
	long long update = 100 + moves(f);
	int rc;

	mover(f, who, n);
	before = snapshot(f->db);
	log_capture(f);
	rc = say(f, who, "/roll", update);
	log = log_release(f);
	if (rc == GB_OK)
		fail_msg("the fault did not reach the store: the move was made");
	assert_int_equal(rc, GB_ESTORE);
	assert_non_null(strstr(log, "chat telegram:" CHAT ": /roll not done, nothing changed"));
	assert_non_null(strstr(log, said));
	after = snapshot(f->db);
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(log);
	return update;
}

/* The same update again once the fault is gone: made once, and the game replays. */
static void resend_succeeds(struct fx *f, const char *who, long long update)
{
	int n = moves(f);

	assert_int_equal(say(f, who, "/roll", update), GB_OK);
	assert_int_equal(moves(f), n + 1);
	/* and a third delivery is a repeat, changing nothing */
	assert_int_equal(say(f, who, "/roll", update), GB_EDUP);
	assert_int_equal(moves(f), n + 1);
	check_replay(f->db);
}

/* ---- busy ---- */

static void busy_beyond_timeout(void **state)
{
	struct fx *f = *state;
	sqlite3 *other = NULL;
	char who[STORE_ID_LEN];
	struct timespec t0, t1;
	long long update;
	double waited;

	fx_open(f);
	start_game(f);
	/* another process's connection takes the write lock and keeps it */
	assert_int_equal(sqlite3_open(f->db, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	update = move_fails(f, "database is locked", who, sizeof(who));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) * 1000.0 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	/* it waited the timeout once - not once more for an alert nobody will see */
	assert_true(waited >= BUSY_MS);
	if (waited >= 2 * BUSY_MS)
		fail_msg("waited %.0f ms: the busy timeout more than once", waited);
	/* still locked: the resend fails the same way */
	log_capture(f);
	assert_int_equal(say(f, who, "/roll", update), GB_ESTORE);
	free(log_release(f));
	assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	resend_succeeds(f, who, update);
}

/* A lock released within the timeout is waited for: the move is made. */
static void *release_later(void *arg)
{
	sqlite3 *other = arg;
	struct timespec ms = MS_SPEC(BUSY_MS / 3);

	nanosleep(&ms, NULL);
	sqlite3_exec(other, "COMMIT", NULL, NULL, NULL);
	return NULL;
}

static void busy_within_timeout(void **state)
{
	struct fx *f = *state;
	sqlite3 *other = NULL;
	char who[STORE_ID_LEN];
	pthread_t th;
	int n;

	fx_open(f);
	start_game(f);
	n = moves(f);
	mover(f, who, sizeof(who));
	assert_int_equal(sqlite3_open(f->db, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(pthread_create(&th, NULL, release_later, other), 0);
	assert_int_equal(say(f, who, "/roll", 500), GB_OK);
	pthread_join(th, NULL);
	sqlite3_close(other);
	assert_int_equal(moves(f), n + 1);
	check_replay(f->db);
}

/* Hold the write lock from another connection, and let go after BUSY_MS * 3 / 2. */
struct holder {
	sqlite3 *db;
	pthread_t th;
};

static void *let_go(void *arg)
{
	struct holder *h = arg;
	struct timespec ms = MS_SPEC(BUSY_MS * 3 / 2);

	nanosleep(&ms, NULL);
	sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
	return NULL;
}

/*
 * A computer's turn that meets a lock held past the timeout again and
 * again, each time let go before its retry is recorded (the lock of a
 * busy neighbour process, on and off): the store's failures are not the
 * timer's, so it is never given up, and it is played once the lock is free.
 */
static void timer_busy_on_and_off(void **state)
{
	struct fx *f = *state;
	char who[STORE_ID_LEN], *log;
	int n;

	fx_open(f);
	assert_int_equal(say(f, "501", "/new snakes", 1), GB_OK);
	assert_int_equal(say(f, "501", "/addbot easy", 2), GB_OK);
	assert_int_equal(say(f, "501", "/start", 3), GB_OK);
	mover(f, who, sizeof(who));
	if (strcmp(who, "501") == 0) {
		assert_int_equal(say(f, "501", "/roll", 4), GB_OK);
		mover(f, who, sizeof(who));
	}
	assert_string_equal(who, ""); /* the computer's turn */
	n = moves(f);
	for (int i = 0; i < 7; i++) {
		struct holder h;

		assert_int_equal(sqlite3_open(f->db, &h.db), SQLITE_OK);
		assert_int_equal(sqlite3_exec(h.db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(pthread_create(&h.th, NULL, let_go, &h), 0);
		f->now_ms += 600000; /* past any backoff */
		log_capture(f);
		assert_int_equal(bot_run_timers(f->b, f->now_ms, BOT_TIMER_ALL), 0);
		log = log_release(f);
		pthread_join(h.th, NULL);
		sqlite3_close(h.db);
		assert_non_null(strstr(log, "database is locked"));
		if (strstr(log, "given up"))
			fail_msg("the computer's turn was given up after %d locked tries", i + 1);
		free(log);
		assert_int_equal(moves(f), n);
	}
	f->now_ms += 600000;
	assert_true(bot_run_timers(f->b, f->now_ms, BOT_TIMER_ALL) >= 1);
	assert_true(moves(f) > n);
	check_replay(f->db);
}

/* ---- disk full ---- */

/* Fill the file system holding dir: write until ENOSPC. */
static void fill_tmpfs(const char *dir, char *filler, size_t n)
{
	static char block[4096];
	int fd;
	int err = 0;

	snprintf(filler, n, "%s/filler", dir);
	fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	memset(block, 'x', sizeof(block));
	for (;;) {
		if (write(fd, block, sizeof(block)) < 0) {
			err = errno;
			break;
		}
	}
	/* and the last bytes, one at a time */
	while (write(fd, block, 1) == 1)
		;
	close(fd);
	if (err != ENOSPC)
		fail_msg("could not fill the disk: write failed with %s, not ENOSPC", strerror(err));
}

/*
 * Get ready for a full disk: a tmpfs of size mounted on f->dir, or where
 * no mount can be made (a container without the right), the file size
 * limit (RLIMIT_FSIZE), which fails every write that would grow a file
 * as a full disk does. GAMEBOT_TEST_NO_MOUNT=1 takes the second way.
 */
static void small_disk(struct fx *f, const char *size)
{
	char why[200], opts[64];
	const char *no_mount = getenv("GAMEBOT_TEST_NO_MOUNT");

	snprintf(why, sizeof(why), "GAMEBOT_TEST_NO_MOUNT is set");
	if (!(no_mount && no_mount[0] == '1') && private_mounts(why, sizeof(why)) == 0) {
		snprintf(opts, sizeof(opts), "size=%s,mode=0700", size);
		if (mount("tmpfs", f->dir, "tmpfs", 0, opts) == 0) {
			f->disk = DISK_TMPFS;
			f->full_says = "database or disk is full";
			return;
		}
		snprintf(why, sizeof(why), "mount tmpfs on %s: %s", f->dir, strerror(errno));
	}
	fprintf(stderr, "no tmpfs (%s): the file size limit stands in for a full disk\n", why);
	f->disk = DISK_LIMIT;
	f->full_says = "disk I/O error";
}

/* The disk is full from now on; fails the test when it cannot be made so. */
static void fill_disk(struct fx *f)
{
	char probe[200];
	int fd, err = 0;

	if (f->disk == DISK_TMPFS) {
		fill_tmpfs(f->dir, f->filler, sizeof(f->filler));
		return;
	}
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &(struct rlimit){ 0, RLIM_INFINITY }) != 0)
		fail_msg("could not fill the disk: setrlimit: %s", strerror(errno));
	snprintf(probe, sizeof(probe), "%s/probe", f->dir);
	fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	if (write(fd, "x", 1) != 1)
		err = errno;
	close(fd);
	unlink(probe);
	if (err != EFBIG)
		fail_msg("could not fill the disk: a file still grows past the size limit");
}

/* Room again. */
static void free_disk(struct fx *f)
{
	if (f->disk == DISK_TMPFS)
		assert_int_equal(unlink(f->filler), 0);
	else
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &(struct rlimit){ RLIM_INFINITY, RLIM_INFINITY }), 0);
}

static void disk_full(void **state)
{
	struct fx *f = *state;
	char who[STORE_ID_LEN];
	long long update;

	small_disk(f, "2m");
	fx_open(f);
	start_game(f);
	/*
	 * Start the write-ahead log afresh (the last handle closing folds it
	 * into the file and removes it), so the next commit must grow it and
	 * cannot reuse room it already had.
	 */
	store_free(f->b->store);
	f->b->store = NULL;
	fx_open(f);
	assert_int_equal(store_ping(f->b->store), GB_OK);
	fill_disk(f);
	update = move_fails(f, f->full_says, who, sizeof(who));
	/* room again: the same handle carries on */
	free_disk(f);
	resend_succeeds(f, who, update);
}

/*
 * A computer's turn is a timer: while the disk is full it fails, stays
 * due and is not given up; once there is room it is played.
 */
static void timer_disk_full(void **state)
{
	struct fx *f = *state;
	char who[STORE_ID_LEN], *before, *after, *log;
	int n, fired;

	small_disk(f, "2m");
	fx_open(f);
	assert_int_equal(say(f, "501", "/new snakes", 1), GB_OK);
	assert_int_equal(say(f, "501", "/addbot easy", 2), GB_OK);
	assert_int_equal(say(f, "501", "/start", 3), GB_OK);
	mover(f, who, sizeof(who));
	if (strcmp(who, "501") == 0) {
		assert_int_equal(say(f, "501", "/roll", 4), GB_OK);
		mover(f, who, sizeof(who));
	}
	assert_string_equal(who, ""); /* the computer's turn */
	n = moves(f);
	store_free(f->b->store);
	f->own.store = NULL;
	fx_open(f);
	assert_int_equal(store_ping(f->b->store), GB_OK);
	before = snapshot(f->db);
	fill_disk(f);
	for (int i = 0; i < 8; i++) {
		f->now_ms += 600000; /* past any backoff */
		log_capture(f);
		fired = bot_run_timers(f->b, f->now_ms, BOT_TIMER_ALL);
		log = log_release(f);
		if (i == 0)
			assert_non_null(strstr(log, f->full_says));
		assert_null(strstr(log, "given up"));
		free(log);
		(void)fired;
	}
	after = snapshot(f->db);
	assert_string_equal(before, after);
	free_disk(f);
	f->now_ms += 600000;
	assert_true(bot_run_timers(f->b, f->now_ms, BOT_TIMER_ALL) >= 1);
	assert_true(moves(f) > n);
	check_replay(f->db);
	free(before);
	free(after);
}


/* ---- read-only ---- */

/*
 * Make f->db read-only, as the bot will see it. Root ignores file modes,
 * so as root the folder is seen through a read-only bind mount (f->ro)
 * and the bot opens the database there; where no mount can be made (or
 * GAMEBOT_TEST_NO_MOUNT=1), root gives up its rights for the while
 * (effective uid nobody) and the file is chmod'ed, as for anyone else.
 * Fails the test when writing is still possible afterwards.
 */
static void read_only(struct fx *f, char *view_db, size_t n)
{
	const char *no_mount = getenv("GAMEBOT_TEST_NO_MOUNT");
	char why[200];
	int fd;

	snprintf(view_db, n, "%s", f->db);
	snprintf(why, sizeof(why), "GAMEBOT_TEST_NO_MOUNT is set");
	if (geteuid() == 0 && !(no_mount && no_mount[0] == '1') &&
	    private_mounts(why, sizeof(why)) == 0) {
		snprintf(f->ro, sizeof(f->ro), "%s-ro", f->dir);
		assert_int_equal(mkdir(f->ro, 0700), 0);
		if (mount(f->dir, f->ro, NULL, MS_BIND, NULL) == 0 &&
		    mount(NULL, f->ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) == 0) {
			snprintf(view_db, n, "%s/g.db", f->ro);
			goto check;
		}
		snprintf(why, sizeof(why), "bind mount: %s", strerror(errno));
		umount2(f->ro, MNT_DETACH);
		rmdir(f->ro);
		f->ro[0] = '\0';
	}
	if (geteuid() == 0) {
		fprintf(stderr, "no read-only mount (%s): running as nobody with the file chmod'ed\n", why);
		/* nobody needs to reach the folder and make the log's files in it */
		assert_int_equal(chmod(f->dir, 0777), 0);
		assert_int_equal(chmod(f->db, 0444), 0);
		if (setegid(65534) != 0 || seteuid(65534) != 0)
			fail_msg("cannot make the database read-only: seteuid: %s", strerror(errno));
		f->dropped = 1;
	} else {
		assert_int_equal(chmod(f->db, 0444), 0);
	}
check:
	fd = open(view_db, O_RDWR);
	if (fd >= 0) {
		close(fd);
		fail_msg("cannot make the database read-only: %s still opens for writing", view_db);
	}
}

/* Writable again. */
static void writable(struct fx *f)
{
	if (f->ro[0]) {
		assert_int_equal(mount(NULL, f->ro, NULL, MS_REMOUNT | MS_BIND, NULL), 0);
	} else if (f->dropped) {
		/* the owner (root) makes it writable for the service (nobody) */
		assert_int_equal(seteuid(0), 0);
		assert_int_equal(chmod(f->db, 0666), 0);
		assert_int_equal(seteuid(65534), 0);
	} else {
		assert_int_equal(chmod(f->db, 0644), 0);
	}
}

static void read_only_file(void **state)
{
	struct fx *f = *state;
	struct adapter_env env;
	char who[STORE_ID_LEN], view[128], *before, *after, *log;
	long long update;

	fx_open(f);
	start_game(f);
	mover(f, who, sizeof(who));
	update = 100 + moves(f);
	/* read while the bot's handle is open: its close then removes the log and index files */
	before = snapshot(f->db);
	store_free(f->b->store);
	f->own.store = NULL;
	/*
	 * The service runs while its file cannot be written: each update's
	 * worker asks for its store (adapter_bot(), what the Telegram webhook
	 * does before bot_handle()) and is refused, so the update is not
	 * acknowledged.
	 */
	read_only(f, view, sizeof(view));
	memset(&env, 0, sizeof(env));
	bot_config_init(&env.bot);
	env.bot.seed = 11;
	env.db = view;
	for (int i = 0; i < 2; i++) {
		log_capture(f);
		f->b = adapter_bot(&env);
		log = log_release(f);
		if (f->b)
			fail_msg("the store opened %s although the file cannot be written", view);
		assert_non_null(strstr(log, "cannot open the store for a worker thread"));
		assert_non_null(strstr(log, "the database file is read-only"));
		free(log);
	}
	/* an operator fixes it: the next update's worker opens the store and the move is made */
	writable(f);
	/*
	 * (Read only now: a reader of the read-only file would leave its
	 * write-ahead log and index behind with the file's read-only mode.)
	 */
	after = snapshot(f->db);
	assert_string_equal(before, after);
	f->b = adapter_bot(&env);
	assert_non_null(f->b);
	resend_succeeds(f, who, update);
	free(before);
	free(after);
}


/* ---- the Telegram webhook ---- */

struct hookfx {
	struct fake_tg *tg;
	struct config cfg;
	struct adapter_env env;
	void *self;
	struct http_server *http;
	char url[128];
};

static void hook_start(struct fx *f, struct hookfx *h)
{
	struct http_route routes[4];
	struct http_options ho;
	int n;

	memset(h, 0, sizeof(*h));
	assert_int_equal(fake_tg_start(&h->tg, TOKEN, "gb_faults_bot"), 0);
	fixture_tg_env(&h->cfg, &h->env, h->tg, TOKEN, "webhook", false, f->db);
	h->env.bot.seed = 11;
	assert_int_equal(telegram_adapter.start(&h->env, &h->self), GB_OK);
	n = telegram_adapter.routes(h->self, routes, 4);
	assert_int_equal(n, 1);
	http_options_init(&ho);
	ho.listen = "127.0.0.1:0";
	ho.routes = routes;
	ho.nroutes = n;
	assert_int_equal(http_start(&h->http, &ho), GB_OK);
	snprintf(h->url, sizeof(h->url), "http://127.0.0.1:%d/telegram", http_port(h->http));
}

static void hook_stop(struct hookfx *h)
{
	http_stop(h->http);
	telegram_adapter.stop(h->self);
	fake_tg_free(h->tg);
}

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

/* POST text from user as update id to the webhook; returns the HTTP status. */
static long post(struct hookfx *h, long long id, const char *user, const char *text)
{
	CURL *c = curl_easy_init();
	struct curl_slist *hd = curl_slist_append(NULL, "Content-Type: application/json");
	char body[512];
	long code = 0;

	snprintf(body, sizeof(body), "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%s,"
		 "\"first_name\":\"P%s\"},\"chat\":{\"id\":" CHAT ",\"type\":\"supergroup\"},\"text\":\"%s\"}}",
		 id, id, user, user, text);
	hd = curl_slist_append(hd, "X-Telegram-Bot-Api-Secret-Token: " SECRET);
	curl_easy_setopt(c, CURLOPT_URL, h->url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hd);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(hd);
	curl_easy_cleanup(c);
	return code;
}

/*
 * Through the webhook: the update that meets the fault is answered 500
 * (not acknowledged: Telegram sends it again) and changes nothing; its
 * resend after the fault is answered 200 and made once.
 */
static void webhook_fault(struct fx *f, bool disk)
{
	struct hookfx h;
	sqlite3 *other = NULL;
	char who[STORE_ID_LEN], *before, *after, *log;
	struct timespec t0, t1;
	long long update;
	double waited;
	int n;

	if (disk)
		small_disk(f, "2m");
	fx_open(f);
	hook_start(f, &h);
	assert_int_equal(post(&h, 1, "501", "/new snakes"), 200);
	assert_int_equal(post(&h, 2, "502", "/join"), 200);
	assert_int_equal(post(&h, 3, "501", "/start"), 200);
	n = moves(f);
	mover(f, who, sizeof(who));
	update = 50;
	before = snapshot(f->db);
	if (disk) {
		fill_disk(f);
	} else {
		assert_int_equal(sqlite3_open(f->db, &other), SQLITE_OK);
		assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	log_capture(f);
	assert_int_equal(post(&h, update, who, "/roll"), 500);
	log = log_release(f);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (double)(t1.tv_sec - t0.tv_sec) * 1000.0 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	/* answered after one busy timeout: no alert was tried for an update Telegram sends again */
	if (!disk && waited >= 2 * BUSY_MS)
		fail_msg("answered after %.0f ms: the busy timeout more than once", waited);
	assert_non_null(strstr(log, "/roll not done, nothing changed"));
	assert_non_null(strstr(log, "update 50 not handled"));
	free(log);
	if (disk) {
		free_disk(f);
	} else {
		assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(other);
	}
	after = snapshot(f->db);
	assert_string_equal(before, after);
	/* Telegram sends it again */
	assert_int_equal(post(&h, update, who, "/roll"), 200);
	assert_int_equal(moves(f), n + 1);
	assert_int_equal(post(&h, update, who, "/roll"), 200);
	assert_int_equal(moves(f), n + 1);
	hook_stop(&h);
	check_replay(f->db);
	free(before);
	free(after);
}


/*
 * The webhook while the database file cannot be written: the update is
 * answered 503 (the worker gets no store) and changes nothing; once the
 * file is writable the same update is answered 200 and made once.
 */
static void webhook_read_only(void **state)
{
	struct fx *f = *state;
	struct hookfx h;
	char who[STORE_ID_LEN], view[128], real[128], *before, *after, *log;
	int n;

	fx_open(f);
	start_game(f);
	mover(f, who, sizeof(who));
	n = moves(f);
	/* read while the bot's handle is open: its close then removes the log and index files */
	before = snapshot(f->db);
	store_free(f->b->store);
	f->own.store = NULL;
	read_only(f, view, sizeof(view));
	snprintf(real, sizeof(real), "%s", f->db);
	snprintf(f->db, sizeof(f->db), "%s", view);
	hook_start(f, &h);
	log_capture(f);
	assert_int_equal(post(&h, 60, who, "/roll"), 503);
	log = log_release(f);
	assert_non_null(strstr(log, "the database file is read-only"));
	free(log);
	writable(f);
	after = snapshot(real);
	assert_string_equal(before, after);
	/* Telegram sends it again */
	assert_int_equal(post(&h, 60, who, "/roll"), 200);
	assert_int_equal(post(&h, 60, who, "/roll"), 200);
	hook_stop(&h);
	snprintf(f->db, sizeof(f->db), "%s", real);
	fx_open(f);
	assert_int_equal(moves(f), n + 1);
	check_replay(f->db);
	free(before);
	free(after);
}

static void webhook_busy(void **state)
{
	webhook_fault(*state, false);
}

static void webhook_disk_full(void **state)
{
	webhook_fault(*state, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(busy_beyond_timeout, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(busy_within_timeout, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(timer_busy_on_and_off, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(disk_full, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(timer_disk_full, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(read_only_file, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(webhook_busy, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(webhook_disk_full, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(webhook_read_only, fx_setup, fx_teardown),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
