/*
 * metrics.c - see metrics.h. A fixed array of series under one mutex: the
 * service records a few events per command, far below where a lock
 * matters, and a scrape reads everything consistently.
 */
#include "metrics.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "games/strbuf.h"

enum kind { COUNTER, GAUGE, HISTOGRAM };

struct family {
	const char *name;
	enum kind kind;
	const char *help;
};

/* Every series the service exposes. */
static const struct family families[] = {
	{ "gamebot_start_time_seconds", GAUGE, "When the service started, in seconds since the epoch." },
	{ "gamebot_updates_received_total", COUNTER, "Platform updates received, by platform." },
	{ "gamebot_updates_refused_total", COUNTER, "Platform updates refused, by platform and reason." },
	{ "gamebot_commands_total", COUNTER, "Commands handled, by verb and result." },
	{ "gamebot_command_latency_ms", HISTOGRAM, "Time to handle and commit one command, in milliseconds." },
	{ "gamebot_store_transaction_ms", HISTOGRAM, "Time a command held the store's write transaction, in milliseconds." },
	{ "gamebot_rate_limited_total", COUNTER, "Commands dropped by the per-user and per-chat rate limits, by scope." },
	{ "gamebot_deliveries_total", COUNTER, "Outbox deliveries, by platform and result (ok, retried, wait, set_aside)." },
	{ "gamebot_outbox_depth", GAUGE, "Outbox rows waiting, by platform." },
	{ "gamebot_outbox_oldest_age_seconds", GAUGE, "Age of the oldest due outbox row, by platform." },
	{ "gamebot_outbox_set_aside", GAUGE, "Outbox rows given up and kept aside, by platform." },
	{ "gamebot_outbox_paused", GAUGE, "1 while a platform is down (unreachable, timing out, 5xx or 401) and its deliveries wait behind a probe, by platform." },
	{ "gamebot_outbox_probes_total", COUNTER, "Probes of a platform that failed as a whole, by platform and result (up, down, unauthorized)." },
	{ "gamebot_platform_unauthorized", GAUGE, "1 while a platform refuses the service's credentials (401) and no call is made to it, by platform." },
	{ "gamebot_timers_fired_total", COUNTER, "Timers fired (computer turns, idle autoplay, next rounds), by kind." },
	{ "gamebot_timers_late_total", COUNTER, "Timers fired more than a second after they were due, by kind." },
	{ "gamebot_timers_failed_total", COUNTER, "Timer runs that failed, by kind." },
	{ "gamebot_open_tables", GAUGE, "Tables open (lobby or playing), by game." },
	{ "gamebot_online_waiting", GAUGE, "People waiting in the online queue, by game." },
	{ "gamebot_online_oldest_wait_seconds", GAUGE, "How long the longest online waiter has waited, by game." },
	{ "gamebot_online_tables_opened_total", COUNTER, "Online tables opened by this instance, by game." },
	{ "gamebot_online_computer_seats_total", COUNTER, "Seats of online tables given to computers after the wait, by game." },
	{ "gamebot_online_wait_ms", HISTOGRAM, "How long each person seated at an online table had waited, by game." },
	{ "gamebot_cache_hits_total", COUNTER, "Lookups that found what they wanted kept in memory, by cache." },
	{ "gamebot_cache_misses_total", COUNTER, "Lookups that did not (then it was made afresh), by cache." },
	{ "gamebot_cache_evictions_total", COUNTER, "Entries dropped to make room for newer ones, by cache." },
	{ "gamebot_cache_entries", GAUGE, "Entries kept now, by cache." },
	{ "gamebot_cache_capacity", GAUGE, "Entries a cache may keep, by cache." },
	{ "gamebot_cache_bytes", GAUGE, "Memory the entries of a cache hold, by cache." },
	{ "gamebot_rate_limit_no_slot_total", COUNTER, "Commands refused because the rate limits' table had no slot for their key." },
	{ "gamebot_pruned_total", COUNTER, "Rows pruned from the database, by what they were." },
	{ "gamebot_metrics_dropped_total", COUNTER, "Series not recorded because the table of series was full." },
};
#define NFAMILIES (sizeof(families) / sizeof(families[0]))

/* Histogram bucket bounds, milliseconds. */
static const double bounds[] = { 0.5, 1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 5000 };
#define NBOUNDS (sizeof(bounds) / sizeof(bounds[0]))

#define MAX_SERIES 512

struct series {
	int family;
	char labels[160];
	double value;                   /* counter or gauge; histogram: the sum */
	uint64_t count;                 /* histogram observations */
	uint64_t buckets[NBOUNDS];      /* histogram: observations <= bounds[i] (not cumulative) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct series series[MAX_SERIES];
static int nseries;
static uint64_t dropped;

static int family_of(const char *name)
{
	for (size_t i = 0; i < NFAMILIES; i++)
		if (strcmp(families[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* The series for name{labels}, created if needed; NULL if unknown or full. Lock held. */
static struct series *find(const char *name, const char *labels)
{
	int f = family_of(name);

	if (!labels)
		labels = "";
	if (f < 0)
		return NULL;
	for (int i = 0; i < nseries; i++)
		if (series[i].family == f && strcmp(series[i].labels, labels) == 0)
			return &series[i];
	if (nseries == MAX_SERIES || strlen(labels) >= sizeof(series[0].labels)) {
		dropped++;
		return NULL;
	}
	memset(&series[nseries], 0, sizeof(series[0]));
	series[nseries].family = f;
	snprintf(series[nseries].labels, sizeof(series[0].labels), "%s", labels);
	return &series[nseries++];
}

void metrics_inc(const char *name, const char *labels, int64_t by)
{
	struct series *s;

	pthread_mutex_lock(&lock);
	s = find(name, labels);
	if (s)
		s->value += (double)by;
	pthread_mutex_unlock(&lock);
}

void metrics_set(const char *name, const char *labels, double value)
{
	struct series *s;

	pthread_mutex_lock(&lock);
	s = find(name, labels);
	if (s)
		s->value = value;
	pthread_mutex_unlock(&lock);
}

void metrics_observe(const char *name, const char *labels, double ms)
{
	struct series *s;

	pthread_mutex_lock(&lock);
	s = find(name, labels);
	if (s) {
		size_t b = 0;

		while (b < NBOUNDS && ms > bounds[b])
			b++;
		if (b < NBOUNDS)
			s->buckets[b]++;
		s->count++;
		s->value += ms;
	}
	pthread_mutex_unlock(&lock);
}

const char *metrics_label(const char *text, char *out, size_t n)
{
	size_t k = 0;

	for (; text && *text && k + 3 < n; text++) {
		if (*text == '\\' || *text == '"') {
			out[k++] = '\\';
			out[k++] = *text;
		} else if (*text == '\n') {
			out[k++] = '\\';
			out[k++] = 'n';
		} else {
			out[k++] = *text;
		}
	}
	if (n)
		out[k < n ? k : n - 1] = '\0';
	return out;
}

/* name{labels,extra} into sb (braces only when there is a label). */
static void series_name(struct strbuf *sb, const char *name, const char *suffix, const char *labels,
			const char *extra)
{
	bool any = labels[0] || (extra && extra[0]);

	sb_addf(sb, "%s%s", name, suffix);
	if (!any)
		return;
	sb_addf(sb, "{%s%s%s}", labels, labels[0] && extra && extra[0] ? "," : "", extra ? extra : "");
}

void metrics_render(struct strbuf *sb)
{
	pthread_mutex_lock(&lock);
	for (size_t f = 0; f < NFAMILIES; f++) {
		const struct family *fam = &families[f];
		bool any = false;

		for (int i = 0; i < nseries; i++) {
			const struct series *s = &series[i];

			if (s->family != (int)f)
				continue;
			if (!any) {
				sb_addf(sb, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name,
					fam->kind == COUNTER ? "counter" : fam->kind == GAUGE ? "gauge" : "histogram");
				any = true;
			}
			if (fam->kind != HISTOGRAM) {
				series_name(sb, fam->name, "", s->labels, NULL);
				sb_addf(sb, " %.15g\n", s->value);
				continue;
			}
			{
				uint64_t cum = 0;
				char le[32];

				for (size_t b = 0; b < NBOUNDS; b++) {
					cum += s->buckets[b];
					snprintf(le, sizeof(le), "le=\"%g\"", bounds[b]);
					series_name(sb, fam->name, "_bucket", s->labels, le);
					sb_addf(sb, " %llu\n", (unsigned long long)cum);
				}
				series_name(sb, fam->name, "_bucket", s->labels, "le=\"+Inf\"");
				sb_addf(sb, " %llu\n", (unsigned long long)s->count);
				series_name(sb, fam->name, "_sum", s->labels, NULL);
				sb_addf(sb, " %.15g\n", s->value);
				series_name(sb, fam->name, "_count", s->labels, NULL);
				sb_addf(sb, " %llu\n", (unsigned long long)s->count);
			}
		}
	}
	if (dropped)
		sb_addf(sb, "# HELP gamebot_metrics_dropped_total %s\n# TYPE gamebot_metrics_dropped_total counter\n"
			    "gamebot_metrics_dropped_total %llu\n",
			families[NFAMILIES - 1].help, (unsigned long long)dropped);
	pthread_mutex_unlock(&lock);
}

double metrics_value(const char *name, const char *labels)
{
	int f = family_of(name);
	double v = 0;

	if (!labels)
		labels = "";
	pthread_mutex_lock(&lock);
	for (int i = 0; f >= 0 && i < nseries; i++)
		if (series[i].family == f && strcmp(series[i].labels, labels) == 0)
			v = families[f].kind == HISTOGRAM ? (double)series[i].count : series[i].value;
	pthread_mutex_unlock(&lock);
	return v;
}

double metrics_sum(const char *name, const char *labels)
{
	int f = family_of(name);
	double v = 0;

	if (!labels)
		labels = "";
	pthread_mutex_lock(&lock);
	for (int i = 0; f >= 0 && i < nseries; i++)
		if (series[i].family == f && strcmp(series[i].labels, labels) == 0)
			v = series[i].value;
	pthread_mutex_unlock(&lock);
	return v;
}

void metrics_reset(void)
{
	pthread_mutex_lock(&lock);
	nseries = 0;
	dropped = 0;
	pthread_mutex_unlock(&lock);
}
