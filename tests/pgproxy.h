/*
 * pgproxy.h - a stand-in for a PostgreSQL server that a test can stop,
 * stall and start again: a unix socket in a folder of its own, relaying
 * every connection to the real server (its unix socket, or TCP).
 *
 *     struct pgproxy *p = pgproxy_start(getenv("GAMEBOT_TEST_PG"));
 *     ... serve with GAMEBOT_DB=pgproxy_url(p) ...
 *     pgproxy_set(p, PGPROXY_DOWN);    connections closed, new ones refused
 *     pgproxy_set(p, PGPROXY_STALL);   connections kept, nothing answered
 *     pgproxy_set(p, PGPROXY_UP);
 *     pgproxy_stop(p);
 */
#ifndef GB_TESTS_PGPROXY_H
#define GB_TESTS_PGPROXY_H

enum pgproxy_mode { PGPROXY_UP, PGPROXY_STALL, PGPROXY_DOWN };

struct pgproxy;

/*
 * Relay to the server url names: a postgresql:// URL or a key=value
 * conninfo, over a unix socket (host=/dir) or TCP (127.0.0.1:5433).
 * NULL when it cannot.
 */
struct pgproxy *pgproxy_start(const char *url);

/* The URL reaching the server through the proxy. */
const char *pgproxy_url(const struct pgproxy *p);

void pgproxy_set(struct pgproxy *p, enum pgproxy_mode mode);

void pgproxy_stop(struct pgproxy *p);

#endif
