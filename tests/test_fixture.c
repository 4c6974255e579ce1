/*
 * test_fixture.c - the suites' shared fixture (tests/fixture.c) does what
 * every suite relies on: its directory is made under $TMPDIR and removed
 * whole without a shell, following no symbolic link out of it; nothing
 * outside the temporary root is ever removed; and the ledger's audit at
 * teardown finds a broken ledger.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "tests/fixture.h"

struct fixture {
	char dir[256];
	char db[300];
	struct bot b;
};

static void touch(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* A tree with nested folders, a dot file and a link out of it goes; what the link names stays. */
static void removes_the_tree_and_no_more(void **state)
{
	char dir[256], outside[256], sub[512], link[512], kept[512];

	(void)state;
	assert_int_equal(fixture_dir(dir, sizeof(dir), "fixture"), 0);
	assert_int_equal(strncmp(dir, fixture_root(), strlen(fixture_root())), 0);
	assert_non_null(strstr(dir, "/gamebot-fixture-"));
	assert_int_equal(fixture_dir(outside, sizeof(outside), "fixture-kept"), 0);
	touch(outside, "keep.txt");
	snprintf(sub, sizeof(sub), "%s/a", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	touch(sub, "deep.db");
	touch(dir, ".hidden");
	snprintf(link, sizeof(link), "%s/a/out", dir);
	assert_int_equal(symlink(outside, link), 0);
	assert_int_equal(fixture_rm(dir), 0);
	assert_false(exists(dir));
	snprintf(kept, sizeof(kept), "%s/keep.txt", outside);
	assert_true(exists(kept));
	/* gone already, or never made: nothing to do */
	assert_int_equal(fixture_rm(dir), 0);
	assert_int_equal(fixture_rm(NULL), 0);
	assert_int_equal(fixture_rm(""), 0);
	assert_int_equal(fixture_rm(outside), 0);
	assert_false(exists(outside));
}

/* The root itself, a path above it, or one that climbs out of it with ".." is refused. */
static void refuses_outside_the_root(void **state)
{
	char dir[256], root[300], climb[512], kept[512], was[256];

	(void)state;
	snprintf(was, sizeof(was), "%s", getenv("TMPDIR") ? getenv("TMPDIR") : "");
	assert_int_equal(fixture_dir(dir, sizeof(dir), "fixture"), 0);
	touch(dir, "keep.txt");
	snprintf(kept, sizeof(kept), "%s/keep.txt", dir);
	/* a root of its own inside dir: dir is now outside it */
	snprintf(root, sizeof(root), "%s/root", dir);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(setenv("TMPDIR", root, 1), 0);
	assert_int_equal(fixture_rm(dir), -1);
	assert_int_equal(fixture_rm(root), -1);
	snprintf(climb, sizeof(climb), "%s/..", root);
	assert_int_equal(fixture_rm(climb), -1);
	assert_int_equal(fixture_rm("/"), -1);
	assert_true(exists(kept));
	assert_true(exists(root));
	/* the root as it was */
	assert_int_equal(was[0] ? setenv("TMPDIR", was, 1) : unsetenv("TMPDIR"), 0);
	assert_int_equal(fixture_rm(dir), 0);
	assert_false(exists(dir));
}

static void say(struct fixture *f, const char *user, bool admin, const char *text)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "test");
	snprintf(cmd.chat, sizeof(cmd.chat), "chat-1");
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "%s", user);
	cmd.is_admin = admin;
	cmd.now_ms = 1700000000000;
	assert_int_equal(bot_handle(&f->b, &cmd), GB_OK);
}

/* A balance changed behind the ledger's back fails the teardown's audit; a sound one passes. */
static void the_audit_finds_a_broken_ledger(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	sqlite3 *db;

	(void)state;
	assert_non_null(f);
	assert_int_equal(FIXTURE_BOT_OPEN(f, "fixture", 3), 0);
	assert_true(exists(f->db));
	say(f, "asha", false, "/wallet");
	say(f, "admin", true, "/grant @asha 250");
	assert_int_equal(fixture_audit(f->b.store), 0);
	assert_int_equal(fixture_audit_db(f->db), 0);
	assert_int_equal(sqlite3_open(f->db, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE balances SET balance = balance + 1", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_true(sqlite3_changes(db) > 0);
	sqlite3_close(db);
	assert_int_equal(fixture_audit(f->b.store), -1);
	/* the same found by a handle of its own, as for a service that ran apart */
	assert_int_equal(fixture_audit_db(f->db), -1);
	/* every step taken all the same: the store closed, the folder gone */
	assert_int_equal(FIXTURE_BOT_CLOSE(f, FIXTURE_AUDIT), -1);
	assert_null(f->b.store);
	assert_false(exists(f->dir));
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(removes_the_tree_and_no_more),
		cmocka_unit_test(refuses_outside_the_root),
		cmocka_unit_test(the_audit_finds_a_broken_ledger),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
