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
 * leave the table two steps without a board). The longer rows of the same
 * play are benchmarks (tests/bench/pace.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

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
	assert_int_equal(people_play(&o, &r), 0);
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
	assert_int_equal(r.left_shown, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(people_pace_snakes_strict),
	};

	/* tests/run-suites.sh runs some of the tests in a process of their own */
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER"));
	if (getenv("TEST_SKIP"))
		cmocka_set_skip_filter(getenv("TEST_SKIP"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
