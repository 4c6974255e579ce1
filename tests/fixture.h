/*
 * fixture.h - the set-up and teardown every suite shares, as git's
 * t/test-lib.sh and SQLite's tester.tcl are shared: a fresh temporary
 * directory, removed without a shell; a bot on a store file in it, with
 * the configuration the suites start from; and the coins ledger's audit
 * (the check `gamebot audit` runs), run in-process at teardown so that a
 * test which leaves the ledger broken fails. A suite then says only what
 * it tests.
 *
 * Nothing here calls cmocka, so that the benchmarks and the crash harness
 * (which link the same helpers) use it too. Every function returns 0, or
 * -1 after a line on stderr saying what failed; a cmocka set-up or
 * teardown returns that -1 and the test fails.
 *
 * A suite whose fixture holds `char dir[], db[]` and `struct bot b`
 * (the usual names) opens and closes it in one line each:
 *
 *     static int setup(void **state)
 *     {
 *         struct fixture *f = calloc(1, sizeof(*f));
 *
 *         if (!f || FIXTURE_BOT_OPEN(f, "coins", 11))
 *             return -1;
 *         *state = f;
 *         return 0;
 *     }
 *
 *     static int teardown(void **state)
 *     {
 *         struct fixture *f = *state;
 *         int rc = FIXTURE_BOT_CLOSE(f, FIXTURE_AUDIT);
 *
 *         free(f);
 *         return rc;
 *     }
 *
 * Suites that set up something else (the service, several stores, a
 * PostgreSQL schema) use the pieces: fixture_dir() and fixture_rm(), and
 * fixture_tg_env() for the Telegram adapter in-process on the fake Bot
 * API, fixture_listen() for the listener in front of an adapter;
 * fixture_audit_db() audits a database the suite's service wrote.
 */
#ifndef GB_TEST_FIXTURE_H
#define GB_TEST_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/adapter.h"
#include "adapters/http.h"
#include "bot/bot.h"
#include "bot/base/config.h"

struct fake_tg;

/* The webhook secret fixture_tg_env() configures: the suites' updates carry it. */
#define FIXTURE_TG_SECRET "s3cret"

/* fixture_bot_close()'s flags */
#define FIXTURE_AUDIT 1   /* audit the coins ledger before closing; a breach fails */

/*
 * The temporary root every fixture directory is made in and the only
 * place fixture_rm() removes from: $TMPDIR when it is set and not empty,
 * else /tmp.
 */
const char *fixture_root(void);

/*
 * Make a new directory ROOT/gamebot-NAME-XXXXXX (mkdtemp) and write its
 * path into dir (size bytes). -1 when it does not fit or cannot be made.
 */
int fixture_dir(char *dir, size_t size, const char *name);

/*
 * Remove dir and everything in it, as `rm -rf` would but without a shell:
 * a depth-first walk that follows no symbolic link and crosses into no
 * other file system, unlink() for files and rmdir() for directories.
 * Refuses (-1, nothing removed) a path that is not strictly below
 * fixture_root() once resolved. NULL or "" is a harmless no-op (0); so is
 * a path that is no longer there.
 */
int fixture_rm(const char *dir);

/*
 * Run the SQL text on the SQLite file db through a connection of the
 * test's own (waiting up to 5 s on the service's lock): 0, or -1 (said on
 * stderr).
 */
int fixture_sql(const char *db, const char *text);

/*
 * The coins ledger of every chat in s audited as `gamebot audit` does
 * (store_coins_audit_each()): 0 when sound, else -1 with every breach on
 * stderr. s NULL is sound.
 */
int fixture_audit(struct store *s);

/*
 * fixture_audit() on the database at db (a file or a postgresql:// URL),
 * opened for the audit and closed again: for a suite whose service runs
 * apart. -1 too when it cannot be opened.
 */
int fixture_audit_db(const char *db);

/*
 * The Telegram adapter's settings for a run in-process against the fake
 * Bot API f (tests/fake_telegram.c): cfg the defaults (config_init())
 * with token, the fake's URL, mode ("webhook" or "polling"), the secret
 * FIXTURE_TG_SECRET, pacing on or off, and the database db; env reads cfg
 * and db, its bots with the defaults (bot_config_init(); the suite sets
 * their seed). cfg and db must outlive env.
 */
void fixture_tg_env(struct config *cfg, struct adapter_env *env, const struct fake_tg *f,
		    const char *token, const char *mode, bool pacing, const char *db);

/*
 * The routes of adapter a (self: its handle, started) served by a new
 * HTTP listener on 127.0.0.1 at a port the system picks: *http (stop it
 * with http_stop() before a->stop()); url gets "http://127.0.0.1:PORT"
 * and the first route's path ("/telegram", "/discord").
 */
int fixture_listen(const struct adapter *a, void *self, struct http_server **http, char *url, size_t size);

/*
 * A bot on a store file: a new fixture_dir() named name into dir, the
 * database DIR/bot.db into db, b's configuration the defaults
 * (bot_config_init()) with the seed given, and its store opened. The
 * suite may change b->cfg afterwards. On failure what was made is
 * undone.
 */
int fixture_bot_open(struct bot *b, char *dir, size_t dir_size, char *db, size_t db_size,
		     const char *name, uint64_t seed);

/*
 * Undo fixture_bot_open(): with FIXTURE_AUDIT the ledger is audited
 * first, then the store is freed (b->store set to NULL) and dir removed.
 * -1 when the audit found a breach or dir could not be removed; every
 * step is taken either way.
 */
int fixture_bot_close(struct bot *b, const char *dir, int flags);

/* fixture_bot_open() and fixture_bot_close() on a fixture f with fields dir, db and b */
#define FIXTURE_BOT_OPEN(f, name, seed) \
	fixture_bot_open(&(f)->b, (f)->dir, sizeof((f)->dir), (f)->db, sizeof((f)->db), (name), (seed))
#define FIXTURE_BOT_CLOSE(f, flags) fixture_bot_close(&(f)->b, (f)->dir, (flags))

/*
 * POST body (JSON) to url, with one extra header line ("Name: value", or
 * NULL), as a platform's webhook call: the answer's HTTP status, 0 when
 * no answer came within 10 s.
 */
long fixture_post_json(const char *url, const char *header, const char *body);

/*
 * Deliver every row of platform queued in s now, in order, through
 * adapter a (self its instance), each marked done: 0, or -1 (with the
 * row's reason on stderr) when a row was not delivered.
 */
int fixture_deliver_all(struct store *s, const struct adapter *a, void *self, const char *platform);

#endif
