/*
 * size.h - how big the slow suites make their work.
 *
 * A few suites play many games, write many pages or search deeply to
 * prove a property over a large sample. `make test` (and CI) runs them at
 * a smaller size that still makes every assertion over a meaningful
 * sample; `make test-long` sets GAMEBOT_TEST_SIZE=full and runs them at
 * their full size. Use: `int games = test_size(1200, 300);`.
 */
#ifndef GAMEBOT_TESTS_SIZE_H
#define GAMEBOT_TESTS_SIZE_H

#include <stdlib.h>
#include <string.h>

/* full when GAMEBOT_TEST_SIZE is "full", else small */
static inline int test_size(int full, int small)
{
	const char *v = getenv("GAMEBOT_TEST_SIZE");

	return v && strcmp(v, "full") == 0 ? full : small;
}

#endif
