/*
 * rawhttp.h - HTTP on bare sockets, for tests that must send what no
 * well-behaved client would: headers promising a body that never comes,
 * or a flood of connections posting junk.
 *
 *     int st = raw_head_answer(port, "POST /x HTTP/1.1\r\nHost: t\r\n"
 *                                    "Content-Length: 60000\r\n\r\n", 5000);
 *     struct flood *f = flood_start(port, "/telegram", 2000, 64 * 1024);
 *     ... the test's own requests, timed ...
 *     long sent = flood_stop(f);
 *
 * Loopback only (127.0.0.1).
 */
#ifndef GB_TESTS_RAWHTTP_H
#define GB_TESTS_RAWHTTP_H

#include <stddef.h>

/*
 * Send head (request line and headers, ending in an empty line) and no
 * body; the status of the answer that comes back within wait_ms, or 0
 * when none does.
 */
int raw_head_answer(int port, const char *head, int wait_ms);

/* Send head and no body, and keep the connection open: its socket (the caller closes it), or -1. */
int raw_head_open(int port, const char *head);

struct flood;

/*
 * Keep conns connections to port posting body_len bytes of junk to path
 * with no credentials, again and again: on the same connection once
 * answered, on a new one as soon as the server closes it,
 * from a thread of its own, until flood_stop(). NULL when it cannot start.
 */
struct flood *flood_start(int port, const char *path, int conns, size_t body_len);

/* Connections currently open (all of them once the flood is under way). */
int flood_open(const struct flood *f);

/* Stop, close everything; returns how many requests were sent in whole. */
long flood_stop(struct flood *f);

#endif
