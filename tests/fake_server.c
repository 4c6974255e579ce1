/*
 * fake_server.c - see fake_server.h.
 */
#include "fake_server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long long fake_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fake_ms_sleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void fake_deadline_in(struct timespec *ts, long ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

void fake_log_add(struct fake_log *l, const char *method, const char *path, const char *auth,
		  json_t *body, int status)
{
	struct fake_call *c;

	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		struct fake_call *v = realloc(l->calls, (size_t)cap * sizeof(*v));

		if (!v) {
			json_decref(body);
			return;
		}
		l->calls = v;
		l->cap = cap;
	}
	c = &l->calls[l->n++];
	snprintf(c->method, sizeof(c->method), "%s", method);
	snprintf(c->path, sizeof(c->path), "%s", path ? path : "");
	snprintf(c->auth, sizeof(c->auth), "%s", auth ? auth : "");
	c->body = body;
	c->status = status;
	c->ms = fake_mono_ms();
}

bool fake_log_matches(const struct fake_call *c, const char *method, const char *prefix)
{
	return (!method || strcmp(c->method, method) == 0) &&
	       (!prefix || strncmp(c->path, prefix, strlen(prefix)) == 0);
}

int fake_log_count(const struct fake_log *l, const char *method, const char *prefix)
{
	int n = 0;

	for (int i = 0; i < l->n; i++)
		n += fake_log_matches(&l->calls[i], method, prefix);
	return n;
}

int fake_log_find(const struct fake_log *l, const char *method, const char *prefix, int i)
{
	for (int k = 0; k < l->n; k++)
		if (fake_log_matches(&l->calls[k], method, prefix) && i-- == 0)
			return k;
	return -1;
}

const struct fake_call *fake_log_at(const struct fake_log *l, int i)
{
	return i >= 0 && i < l->n ? &l->calls[i] : NULL;
}

void fake_log_clear(struct fake_log *l)
{
	for (int i = 0; i < l->n; i++)
		json_decref(l->calls[i].body);
	l->n = 0;
}

void fake_log_free(struct fake_log *l)
{
	fake_log_clear(l);
	free(l->calls);
	l->calls = NULL;
	l->cap = 0;
}

void fake_log_dump(const struct fake_log *l, bool paths)
{
	for (int i = 0; i < l->n; i++) {
		const struct fake_call *c = &l->calls[i];
		char *text = json_dumps(c->body, JSON_COMPACT | JSON_ENCODE_ANY);

		fprintf(stderr, "  [%d] %lld %s%s%s %d %.300s\n", i, c->ms, c->method,
			paths ? " " : "", paths ? c->path : "", c->status, text ? text : "?");
		free(text);
	}
}

int fake_log_wait(const struct fake_log *l, pthread_mutex_t *lock, pthread_cond_t *cond,
		  const char *method, const char *prefix, int count, int timeout_ms)
{
	struct timespec until;
	int n;

	fake_deadline_in(&until, timeout_ms);
	pthread_mutex_lock(lock);
	while ((n = fake_log_count(l, method, prefix)) < count)
		if (pthread_cond_timedwait(cond, lock, &until) == ETIMEDOUT) {
			n = fake_log_count(l, method, prefix);
			break;
		}
	pthread_mutex_unlock(lock);
	return n;
}

void fake_faults_add(struct fake_faults *ff, const char *method, const char *prefix, int skip,
		     int count, int kind, long arg)
{
	struct fake_fault *ft;

	if (ff->n >= FAKE_MAX_FAULTS)
		return;
	ft = &ff->v[ff->n++];
	snprintf(ft->method, sizeof(ft->method), "%s", method ? method : "");
	snprintf(ft->prefix, sizeof(ft->prefix), "%s", prefix ? prefix : "");
	ft->skip = skip;
	ft->count = count;
	ft->kind = kind;
	ft->arg = arg;
}

int fake_faults_take(struct fake_faults *ff, const char *method, const char *path, long *arg)
{
	if (!path)
		path = "";
	for (int i = 0; i < ff->n; i++) {
		struct fake_fault *ft = &ff->v[i];

		if (ft->count <= 0 || (ft->method[0] && strcmp(ft->method, method)) ||
		    (ft->prefix[0] && strncmp(path, ft->prefix, strlen(ft->prefix))))
			continue;
		if (ft->skip > 0) {
			ft->skip--;
			continue;
		}
		ft->count--;
		*arg = ft->arg;
		return ft->kind;
	}
	return 0;
}

static unsigned open_connections(struct MHD_Daemon *d)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);

	return i ? i->num_connections : 0;
}

bool fake_settle(struct MHD_Daemon *d, int ms)
{
	long long until = fake_mono_ms() + ms;

	while (open_connections(d) && fake_mono_ms() < until)
		fake_ms_sleep(5);
	return open_connections(d) == 0;
}
