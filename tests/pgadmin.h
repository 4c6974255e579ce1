/*
 * pgadmin.h - one statement run on the test PostgreSQL server as it is,
 * outside any test's schema: the suites that give each run a schema of
 * its own make and drop it with this.
 *
 *     pg_admin(getenv("GAMEBOT_TEST_PG"), "CREATE SCHEMA s1");
 */
#ifndef GB_TESTS_PGADMIN_H
#define GB_TESTS_PGADMIN_H

/*
 * Run sql (statements that return no rows) on the server at the
 * connection string base: 0, or -1 with the server's words on stderr.
 * The server's notices ("schema does not exist, skipping") are dropped.
 */
int pg_admin(const char *base, const char *sql);

#endif
