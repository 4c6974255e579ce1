/*
 * bench.h - what the benchmark programs of tests/bench/ share: a
 * monotonic clock, latency samples gathered from many threads with their
 * percentiles, and a blocking JSON POST on a reused libcurl handle. Header
 * only (static inline): each benchmark is one program of its own.
 */
#ifndef GB_BENCH_H
#define GB_BENCH_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "order.h"

static inline int64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static inline void sleep_us(int64_t us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	if (us > 0)
		nanosleep(&ts, NULL);
}

/* ---- latency samples (milliseconds), from any thread ---- */

struct samples {
	pthread_mutex_t lock;
	double *v;
	int n, cap;
};

static inline void sample(struct samples *s, double ms)
{
	pthread_mutex_lock(&s->lock);
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 4096;
		double *v = realloc(s->v, (size_t)cap * sizeof(*v));

		if (v) {
			s->v = v;
			s->cap = cap;
		}
	}
	if (s->n < s->cap)
		s->v[s->n++] = ms;
	pthread_mutex_unlock(&s->lock);
}

/* The p-quantile (0..1) of the samples (sorts them); 0 when there are none. */
static inline double pct(struct samples *s, double p)
{
	if (!s->n)
		return 0;
	qsort(s->v, (size_t)s->n, sizeof(double), cmp_double);
	return s->v[(int)(p * (s->n - 1))];
}

static inline void samples_reset(struct samples *s)
{
	pthread_mutex_lock(&s->lock);
	s->n = 0;
	pthread_mutex_unlock(&s->lock);
}

/* ---- an HTTP client per thread ---- */

static inline size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

/* POST body to url with the headers h on c; returns the status (0: failed). */
static inline long post(CURL *c, struct curl_slist *h, const char *url, const char *body)
{
	long code = 0;

	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

#endif
