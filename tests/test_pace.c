/*
 * test_pace.c - a table played at people's pace through the fake Bot API
 * in strict mode (Telegram's limits enforced, late answers refused), with
 * the service's own pacing on, as it runs by default (tests/people.c).
 *
 * Two people and two computers at Snakes and Ladders, each person
 * pressing 0.8 s after a board that says it is their turn: the board
 * changes every few seconds for as long as they play (a pacing that spends
 * the group's minute in a burst freezes the table for half a minute after
 * twenty messages), every press is answered and none too late (an answer
 * queued behind the chat's boards waits out the same freeze), and the
 * platform never has to refuse a message with 429. Past the group's
 * first minute (which the table's opening and the boards fill), one of
 * the people leaves: the board that shows a computer taking the seat goes
 * first, and the group is told in the room its boards leave (a line
 * spending the group's step before that board, or before the next, would
 * leave the table two steps without a board). Two tables in two topics
 * of one forum group take the group's steps in turn. The longer rows of
 * the same play are benchmarks (tests/bench/pace.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "adapters/telegram.h"
#include "tests/people.h"

static void people_pace_snakes_strict(void **state)
{
	struct people_opts o;
	struct people_result r;

	(void)state;
	people_opts_init(&o);
	o.game = "snakes";
	o.seconds = 72; /* past the twenty messages of the group's first minute */
	o.leave_at_s = 62; /* the table in full play: every step of the group has a board waiting */
	/*
	 * The dice are the table's own: a game that ends before the leave
	 * (about 1 in 100: every seat has had only seven or eight turns)
	 * never types it, and is played again.
	 */
	for (int tries = 0;; tries++) {
		assert_int_equal(people_play(&o, &r), 0);
		if (r.left || tries == 3)
			break;
		fprintf(stderr, "  the game ended in %.0f s, before the leave: played again\n", r.seconds);
	}
	fprintf(stderr, "  %.0f s: %d boards, %d presses (%d answered, %d too old), %d 429s, "
		"longest gap %lld ms, answer p99 %lld ms, told of the leave: %d\n", r.seconds,
		r.boards, r.presses, r.answered, r.too_old, r.refused_429, r.max_gap_ms,
		r.answer_p99_ms, r.left_shown);
	/* they played: many boards, many presses */
	assert_true(r.boards >= 5);
	assert_true(r.presses >= 4);
	assert_int_equal(r.refused_429, 0);
	assert_int_equal(r.too_old, 0);
	assert_int_equal(r.answered, r.presses);
	assert_true(r.max_gap_ms <= 4000);
	/* every line still reaches the group */
	assert_int_equal(r.left, 1);
	assert_int_equal(r.left_shown, 1);
}

/*
 * Two busy Snakes tables in two topics of one forum group share the
 * group's steps in turn, through the group's first minute (its opening
 * and the boards fill the twenty) and past it: every board goes out, no
 * 429, every press answered; the longest gap is printed (at most its
 * turn, two steps of 3.6 s, on an idle machine).
 */
static void people_pace_two_topics(void **state)
{
	struct people_opts o;
	struct people_result r;

	(void)state;
	people_opts_init(&o);
	o.game = "snakes";
	o.tables = 2;
	o.one_group = true;
	o.seconds = 66;
	assert_int_equal(people_play(&o, &r), 0);
	fprintf(stderr, "  two topics, %.0f s: %d boards, %d presses, %d 429s, most boards of one table "
		"in a row %d, longest gap %lld ms\n", r.seconds, r.boards, r.presses, r.refused_429,
		r.max_run, r.max_gap_ms);
	assert_true(r.boards >= 12);
	assert_int_equal(r.refused_429, 0);
	assert_int_equal(r.answered, r.presses);
	/*
	 * The longest gap is a measurement of the wall clock, which a
	 * sanitized build on a busy machine stretches: `make bench` holds it
	 * to 8 s (the topics2 row); topics_take_turns() below checks the turns
	 * themselves on the pacer's own clock.
	 */
}

/*
 * The pacer alone, on a clock of its own: n topics of one group, each
 * with a board always waiting (the next ready 0.9 s after one goes), each
 * asking again when told to. Asked in the same order every time (the
 * first always first in line), the steps still go round the topics: after
 * the opening burst, never two in a row to one topic, and as many to each
 * within one.
 */
static void topics_take_turns(int n)
{
	static const char *const topic[4] = { "-100#11", "-100#12", "-100#13", "-100#14" };
	struct tg_pace *p = tg_pace_new();
	int64_t next[4] = { 0 }, t0 = 1000000;
	int served[4] = { 0 }, last = -1, run = 0, max_run = 0, steps = 0, lo = 1 << 30, hi = 0;

	assert_non_null(p);
	for (int64_t now = t0; now < t0 + 180000; now += 10) {
		for (int k = 0; k < n; k++) {
			bool global = false;
			int64_t wait;

			if (now < next[k])
				continue;
			wait = tg_pace_take(p, topic[k], now, &global);
			if (wait > 0) {
				next[k] = now + wait;
				continue;
			}
			next[k] = now + 900;
			served[k]++;
			steps++;
			run = last == k ? run + 1 : 1;
			last = k;
			if (steps > 3 && run > max_run)
				max_run = run;
		}
	}
	for (int k = 0; k < n; k++) {
		lo = served[k] < lo ? served[k] : lo;
		hi = served[k] > hi ? served[k] : hi;
	}
	print_message("%d topics: %d steps, %d to %d each, most in a row %d\n", n, steps, lo, hi, max_run);
	assert_true(steps >= 40);
	assert_int_equal(max_run, 1);
	assert_true(hi - lo <= 1);
	tg_pace_free(p);
}

static void pace_topics_take_turns(void **state)
{
	(void)state;
	topics_take_turns(2);
	topics_take_turns(4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pace_topics_take_turns),
		cmocka_unit_test(people_pace_snakes_strict),
		cmocka_unit_test(people_pace_two_topics),
	};

	/* tests/run-suites.sh runs some of the tests in a process of their own */
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	if (getenv("TEST_SKIP"))
		cmocka_set_skip_filter(getenv("TEST_SKIP"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
