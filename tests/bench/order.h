/*
 * order.h - the comparison qsort() sorts doubles with, ascending, for the
 * percentiles of tests/bench/bench.h and tests/bench/tune.h. Header only
 * (static inline): each benchmark is one program of its own.
 */
#ifndef GB_BENCH_ORDER_H
#define GB_BENCH_ORDER_H

/* qsort() comparison of two doubles: -1, 0 or 1. */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#endif
