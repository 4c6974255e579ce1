/*
 * metrics.h - the service's counters and histograms, served as Prometheus
 * text on GET /metrics.
 *
 * Every series is named in one table in metrics.c (name, type, help), so
 * the exposition always carries HELP and TYPE lines and a typo in a name
 * is caught by a test rather than shipped. Labels are given as ready text
 * (`platform="telegram",reason="auth"`); values are label-safe by
 * construction (platform names, verbs, fixed reasons) and anything else
 * is escaped. Process-wide and safe from any thread; a few hundred series
 * at most, beyond which new series are dropped (and counted).
 */
#ifndef GB_METRICS_H
#define GB_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

/* Add by to the counter name{labels} (labels may be NULL or ""). */
void metrics_inc(const char *name, const char *labels, int64_t by);

/* Set the gauge name{labels}. */
void metrics_set(const char *name, const char *labels, double value);

/* Record one observation (milliseconds) in the histogram name{labels}. */
void metrics_observe(const char *name, const char *labels, double ms);

/* Escape text for use inside a label value (backslash, quote, newline); returns out. */
const char *metrics_label(const char *text, char *out, size_t n);

/* Append every series in the Prometheus text format (version 0.0.4). */
void metrics_render(struct strbuf *sb);

/* The value of a counter or gauge series (tests); 0 when it does not exist. */
double metrics_value(const char *name, const char *labels);

/* The sum of a histogram's observations (0 when it does not exist). */
double metrics_sum(const char *name, const char *labels);

/* Forget every series (tests). */
void metrics_reset(void);

#endif
