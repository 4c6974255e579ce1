/*
 * call_ring.h - the last N calls a platform counts against a limit of N
 * a second (Telegram's thirty messages, Discord's fifty bot calls), each
 * counted from when it was over: the pacers' overall second
 * (adapters/telegram/pace.c, adapters/discord/pace.c).
 *
 * A call is pushed when it is let go (at when it was made), and stamped
 * again with when its answer came (call_ring_answered()): however slow the
 * way there, it reached the platform no later than that. A call slower
 * than the N made after it has left the ring by then; the floor keeps the
 * latest such time, so it still counts. The caller holds its own lock.
 *
 *     if (now - call_ring_oldest(&r) < 1000) wait;
 *     else call_ring_push(&r, now);
 *     ... the call ...
 *     call_ring_answered(&r, now, answered_at);
 */
#ifndef GB_CALL_RING_H
#define GB_CALL_RING_H

#include <stdint.h>

#define CALL_RING_MAX 64

struct call_ring {
	int64_t at[CALL_RING_MAX];      /* when each was over, or made (0: none yet) */
	int n;                          /* calls kept: the limit a second */
	int next;                       /* the slot of the oldest, taken next */
	int64_t floor;                  /* the latest of the calls that left the ring */
};

/* An empty ring of the last n calls (1 to CALL_RING_MAX). */
void call_ring_init(struct call_ring *r, int n);

/* When the n-th call before the next one was over (0: fewer than n so far). */
int64_t call_ring_oldest(const struct call_ring *r);

/* A call let go at now_ms; the oldest leaves the ring (into the floor). */
void call_ring_push(struct call_ring *r, int64_t now_ms);

/* The call pushed at taken_ms was over at done_ms (later: it counts from then). */
void call_ring_answered(struct call_ring *r, int64_t taken_ms, int64_t done_ms);

#endif
