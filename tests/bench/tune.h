/*
 * tune.h - what the tuning programs of tests/bench/ (ludotune, cbparts)
 * share: the CPU clock of the deciding thread, a win share's 95% Wilson
 * interval, the p99 of the decision times, and the games won as a string
 * of '0'/'1' written to a file and paired with an earlier run's. Header
 * only (static inline).
 */
#ifndef GB_TUNE_H
#define GB_TUNE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "order.h"

/* CPU time of the calling thread in ms: other load on the machine does not count. */
static inline double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* The 95% Wilson interval [*lo, *hi] of won out of games (games > 0). */
static inline void wilson(long won, long games, double *lo, double *hi)
{
	double n = (double)games, ph = (double)won / n, z = 1.96;
	double c = (ph + z * z / (2 * n)) / (1 + z * z / n);
	double h = z * sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / (1 + z * z / n);

	*lo = c - h;
	*hi = c + h;
}

/* The 99th percentile of the n times t[] (sorted in place), 0 with none. */
static inline double p99_ms(double *t, size_t n)
{
	qsort(t, n, sizeof(double), cmp_double);
	return n ? t[(size_t)((double)(n - 1) * 0.99)] : 0.0;
}

/* Write the string of games won to path; -1 (said on stderr) when it cannot. */
static inline int write_wins(const char *path, const char *mine)
{
	FILE *f = fopen(path, "w");
	int rc = f && fputs(mine, f) != EOF ? 0 : -1;

	if (f && fclose(f) != 0)
		rc = -1;
	if (rc)
		perror(path);
	return rc;
}

/*
 * Print the paired difference (this run less the one in path, game by
 * game) and its 95% interval, from the '0'/'1' strings of two runs on the
 * same games.
 */
static inline void compare_wins(const char *path, const char *mine, long games)
{
	FILE *f = fopen(path, "r");
	long n = 0, sum = 0, sq = 0;
	int ch;

	if (!f) {
		perror(path);
		return;
	}
	while (n < games && (ch = fgetc(f)) != EOF) {
		int d = (mine[n] == '1') - (ch == '1');

		sum += d;
		sq += d * d;
		n++;
	}
	fclose(f);
	if (n > 1) {
		double m = (double)sum / (double)n, var = ((double)sq - (double)n * m * m) / (double)(n - 1);
		double h = 1.96 * sqrt(var / (double)n);

		printf("  vs %s: %+.1f points [%+.1f, %+.1f] over %ld paired games\n", path, 100 * m, 100 * (m - h),
		       100 * (m + h), n);
	}
}

#endif
