/*
 * call_ring.c - see call_ring.h.
 */
#include "call_ring.h"

#include <string.h>

void call_ring_init(struct call_ring *r, int n)
{
	memset(r, 0, sizeof(*r));
	r->n = n < 1 ? 1 : n > CALL_RING_MAX ? CALL_RING_MAX : n;
}

int64_t call_ring_oldest(const struct call_ring *r)
{
	return r->at[r->next] > r->floor ? r->at[r->next] : r->floor;
}

void call_ring_push(struct call_ring *r, int64_t now_ms)
{
	r->floor = call_ring_oldest(r); /* the call leaving the ring, or a later one that left before */
	r->at[r->next] = now_ms;
	r->next = (r->next + 1) % r->n;
}

void call_ring_answered(struct call_ring *r, int64_t taken_ms, int64_t done_ms)
{
	int k;

	if (done_ms <= taken_ms)
		return;
	/* the newest with that time (equal times are alike) */
	for (k = 1; k <= r->n; k++) {
		int i = (r->next + r->n - k) % r->n;

		if (r->at[i] == taken_ms) {
			r->at[i] = done_ms;
			return;
		}
	}
	/* slower than the n made after it: it still counts */
	if (done_ms > r->floor)
		r->floor = done_ms;
}
