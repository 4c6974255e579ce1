/*
 * test_dc_pace.c - Discord's rate limits as the adapter keeps them
 * (adapters/discord/pace.c), on a clock the test drives: the headers read, a
 * bucket spent as a short burst then evenly, a 429 stopping only what it
 * names, routes of one bucket counted together, and the bot's global 50 a
 * second.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/discord/pace.h"

#define EDIT "/channels/10/messages/77"
#define POST "/channels/10/messages"

/* An answer's limits: limit, remaining, reset after ms, bucket. */
static struct dc_limits said(int limit, int remaining, int64_t reset_after_ms, const char *bucket)
{
	struct dc_limits l;

	dc_limits_init(&l);
	l.status = 200;
	l.limit = limit;
	l.remaining = remaining;
	l.reset_after_ms = reset_after_ms;
	snprintf(l.bucket, sizeof(l.bucket), "%s", bucket);
	return l;
}

static void test_headers_read(void **state)
{
	struct dc_limits l;
	const char *lines[] = {
		"X-RateLimit-Limit: 5\r\n", "x-ratelimit-remaining: 3\r\n",
		"X-RateLimit-Reset-After: 1.234\r\n", "X-RateLimit-Bucket: abcd1234\r\n",
		"X-RateLimit-Global: true\r\n", "Content-Type: application/json\r\n",
		"X-RateLimit-Remaining-Not: 9\r\n",
	};

	(void)state;
	dc_limits_init(&l);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		dc_limits_header(&l, lines[i], strlen(lines[i]));
	assert_int_equal(l.limit, 5);
	assert_int_equal(l.remaining, 3);
	assert_int_equal(l.reset_after_ms, 1234);
	assert_string_equal(l.bucket, "abcd1234");
	assert_true(l.global);
	/* what is not a number is not believed */
	dc_limits_init(&l);
	dc_limits_header(&l, "X-RateLimit-Remaining: -1\r\n", 27);
	dc_limits_header(&l, "X-RateLimit-Reset-After: soon\r\n", 31);
	assert_int_equal(l.remaining, -1);
	assert_int_equal(l.reset_after_ms, -1);
}

/*
 * A channel's 5 edits in 5 s: two at once, then the rest spread to the
 * window's end, then the next window; never five at once and a silence.
 */
static void test_bucket_spent_evenly(void **state)
{
	struct dc_pace *p = dc_pace_new();
	struct dc_limits l;
	int64_t now = 1000000, sent[12], wait;
	bool global;
	int n = 0;

	(void)state;
	assert_non_null(p);
	/* unknown: goes at once; the answer says 4 left for 5 s */
	while (n < 12) {
		wait = dc_pace_take(p, "PATCH", EDIT, true, now, &global);
		if (wait > 0) {
			assert_false(global);
			now += wait;
			continue;
		}
		sent[n++] = now;
		/* Discord's count: a window of 5 from its first call */
		{
			static int64_t start;
			static int used;

			if (n == 1 || now >= start + 5000) {
				start = now;
				used = 0;
			}
			used++;
			assert_true(used <= 5);
			l = said(5, 5 - used, start + 5000 - now, "");
		}
		dc_pace_learn(p, "PATCH", EDIT, &l, now);
	}
	assert_int_equal(sent[1], sent[0]); /* the burst */
	for (int i = 2; i < 12; i++) {
		assert_true(sent[i] - sent[i - 1] <= 1800); /* no long silence */
		if (sent[i] - sent[i - 1] == 0)
			assert_true(i % 5 == 1 || i % 5 == 0); /* at once only at a window's start */
	}
	/* another channel is a bucket of its own */
	assert_int_equal(dc_pace_take(p, "PATCH", "/channels/11/messages/5", true, now, &global), 0);
	dc_pace_free(p);
}

/* A 429 of a route waits that bucket only; a global one every bot call, not webhooks. */
static void test_429_stops_what_it_names(void **state)
{
	struct dc_pace *p = dc_pace_new();
	struct dc_limits l;
	bool global;

	(void)state;
	dc_limits_init(&l);
	l.status = 429;
	l.retry_ms = 700;
	dc_pace_learn(p, "POST", POST, &l, 0);
	assert_int_equal(dc_pace_take(p, "POST", POST, true, 100, &global), 600 + DC_PACE_ROOM_MS);
	assert_false(global);
	assert_int_equal(dc_pace_take(p, "POST", "/channels/12/messages", true, 100, &global), 0);
	assert_int_equal(dc_pace_take(p, "POST", POST, true, 760, &global), 0);
	l.global = true;
	l.retry_ms = 2000;
	dc_pace_learn(p, "POST", "/channels/12/messages", &l, 1000);
	assert_int_equal(dc_pace_take(p, "PATCH", "/channels/13/messages/1", true, 1500, &global),
			 1500 + DC_PACE_ROOM_MS);
	assert_true(global);
	/* an interaction's webhook is not the bot's global limit */
	assert_int_equal(dc_pace_take(p, "POST", "/webhooks/1/tok", false, 1500, &global), 0);
	dc_pace_free(p);
}

/* Routes Discord names one bucket share its count, per channel. */
static void test_shared_bucket(void **state)
{
	struct dc_pace *p = dc_pace_new();
	struct dc_limits l = said(5, 0, 3000, "shared");
	bool global;

	(void)state;
	dc_pace_learn(p, "POST", POST, &l, 0);
	l = said(5, 0, 3000, "shared");
	dc_pace_learn(p, "PATCH", EDIT, &l, 0);
	assert_true(dc_pace_take(p, "POST", POST, true, 10, &global) > 0);
	assert_true(dc_pace_take(p, "PATCH", "/channels/10/messages/99", true, 10, &global) > 0);
	assert_int_equal(dc_pace_take(p, "PATCH", "/channels/20/messages/99", true, 10, &global), 0);
	dc_pace_free(p);
}

/*
 * Fifty bot calls to as many channels, one a millisecond from at_ms, each
 * over `took` ms later from the `slow`-th on (before it: not over yet).
 */
static void fifty_calls(struct dc_pace *p, int channel, int64_t at_ms, int slow, int64_t took)
{
	char path[64];
	bool global;

	for (int i = 0; i < DC_PACE_ALL_N; i++) {
		snprintf(path, sizeof(path), "/channels/%d/messages", channel + i);
		assert_int_equal(dc_pace_take(p, "POST", path, true, at_ms + i, &global), 0);
		if (i >= slow && took > 0)
			dc_pace_sent(p, true, at_ms + i, at_ms + i + took);
	}
}

/* The bot's calls: 50 in any second (with room), then the next waits for the oldest. */
static void test_global_second(void **state)
{
	struct dc_pace *p = dc_pace_new();
	bool global;

	(void)state;
	fifty_calls(p, 100, 5000, 0, 0);
	assert_int_equal(dc_pace_take(p, "POST", "/channels/9/messages", true, 5100, &global),
			 DC_PACE_ALL_MS - 100);
	assert_true(global);
	assert_int_equal(dc_pace_take(p, "POST", "/channels/9/messages", true, 5000 + DC_PACE_ALL_MS,
				      &global), 0);
	dc_pace_free(p);
}

/*
 * A bot call counts against the global second from when it is over: it
 * reached Discord at the latest then, however long the way there took. So
 * fifty calls, the first one slow, hold the next back from the end of the
 * slow one; and a call slower than the fifty made after it still counts
 * once it is over.
 */
static void test_global_second_from_the_answer(void **state)
{
	struct dc_pace *p = dc_pace_new();
	bool global;

	(void)state;
	fifty_calls(p, 100, 5000, 2, 10); /* the first two are slow */
	dc_pace_sent(p, true, 5000, 5400); /* the first one over late */
	assert_int_equal(dc_pace_take(p, "POST", "/channels/9/messages", true, 5000 + DC_PACE_ALL_MS,
				      &global), 400);
	assert_true(global);
	assert_int_equal(dc_pace_take(p, "POST", "/channels/9/messages", true, 5400 + DC_PACE_ALL_MS,
				      &global), 0);
	/* a webhook call is not the bot's, over whenever it is */
	dc_pace_sent(p, false, 5400 + DC_PACE_ALL_MS, 9000);
	/* fifty more, each over at once; then the second of the first fifty is over, later still */
	fifty_calls(p, 200, 8000, 0, 1);
	assert_int_equal(dc_pace_take(p, "POST", "/channels/9/messages", true, 9100, &global), 0);
	dc_pace_sent(p, true, 9100, 9101);
	dc_pace_sent(p, true, 5001, 9500); /* no longer in the ring of the last fifty */
	assert_int_equal(dc_pace_take(p, "POST", "/channels/9/messages", true, 9600, &global),
			 9500 + DC_PACE_ALL_MS - 9600);
	assert_true(global);
	dc_pace_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers_read),
		cmocka_unit_test(test_bucket_spent_evenly),
		cmocka_unit_test(test_429_stops_what_it_names),
		cmocka_unit_test(test_shared_bucket),
		cmocka_unit_test(test_global_second),
		cmocka_unit_test(test_global_second_from_the_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
