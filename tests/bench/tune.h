/*
 * tune.h - what the tuning programs of tests/bench/ (ludotune, cbparts)
 * share: the CPU clock of the deciding thread, and the paired difference of
 * two runs on the same games. Header only (static inline).
 */
#ifndef GB_TUNE_H
#define GB_TUNE_H

#include <math.h>
#include <stdio.h>
#include <time.h>

/* CPU time of the calling thread in ms: other load on the machine does not count. */
static inline double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static inline int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
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
