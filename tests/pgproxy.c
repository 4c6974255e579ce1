/*
 * pgproxy.c - see pgproxy.h. One thread accepts and relays: it polls the
 * listening socket and both ends of every connection, copying bytes while
 * up, leaving them unread while stalled; going down closes every
 * connection and the listening socket (its file is removed, so a client
 * is refused as by a stopped server). The server is found as libpq finds
 * it, from a URL or a key=value conninfo: a unix socket folder (host=/dir,
 * or none: libpq's default folder) or a TCP host and port (host=127.0.0.1,
 * postgresql://u@127.0.0.1:5433/db), hostaddr included.
 */
#include "tests/pgproxy.h"

#include <errno.h>
#include <libpq-fe.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_PAIRS 64

struct pgproxy {
	char dir[64];
	char sock[128];                 /* our socket file */
	char target[300];               /* the server's socket file; "" when over TCP */
	char host[256], port[16];       /* the server's TCP address */
	char url[2048];
	pthread_t th;
	atomic_int mode;
	atomic_int stop;
	int lfd;                        /* -1 while down */
	int a[MAX_PAIRS], b[MAX_PAIRS]; /* client end, server end; -1 free */
};

static int unix_socket(const char *path, int listening)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	if (fd < 0)
		return -1;
	if (listening ? bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64)
		      : connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void close_pair(struct pgproxy *p, int i)
{
	if (p->a[i] >= 0)
		close(p->a[i]);
	if (p->b[i] >= 0)
		close(p->b[i]);
	p->a[i] = p->b[i] = -1;
}

/* Copy what from has to to; false when either end is gone. */
static int relay(int from, int to)
{
	char buf[8192];
	ssize_t n = recv(from, buf, sizeof(buf), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 1;
	return n > 0 && send(to, buf, (size_t)n, MSG_NOSIGNAL) == n;
}

/* A connection to the server, over its unix socket or TCP; -1 when refused. */
static int server_socket(const struct pgproxy *p)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	int fd = -1;

	if (p->target[0])
		return unix_socket(p->target, 0);
	if (getaddrinfo(p->host, p->port, &hints, &res) != 0)
		return -1;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

static void accept_one(struct pgproxy *p)
{
	int c = accept(p->lfd, NULL, NULL), s = c >= 0 ? server_socket(p) : -1;
	int i = 0;

	while (i < MAX_PAIRS && p->a[i] >= 0)
		i++;
	if (c < 0 || s < 0 || i == MAX_PAIRS) {
		if (c >= 0)
			close(c);
		if (s >= 0)
			close(s);
		return;
	}
	p->a[i] = c;
	p->b[i] = s;
}

static void *proxy_main(void *arg)
{
	struct pgproxy *p = arg;
	struct pollfd fds[1 + 2 * MAX_PAIRS];

	while (!atomic_load(&p->stop)) {
		int mode = atomic_load(&p->mode), n = 0;

		if (mode == PGPROXY_DOWN && p->lfd >= 0) {
			for (int i = 0; i < MAX_PAIRS; i++)
				close_pair(p, i);
			close(p->lfd);
			unlink(p->sock);
			p->lfd = -1;
		} else if (mode != PGPROXY_DOWN && p->lfd < 0) {
			p->lfd = unix_socket(p->sock, 1);
		}
		fds[n++] = (struct pollfd){ .fd = p->lfd, .events = POLLIN };
		for (int i = 0; i < MAX_PAIRS; i++) {
			short ev = mode == PGPROXY_UP ? POLLIN : 0;

			fds[n++] = (struct pollfd){ .fd = p->a[i], .events = ev };
			fds[n++] = (struct pollfd){ .fd = p->b[i], .events = ev };
		}
		if (poll(fds, (nfds_t)n, 20) <= 0)
			continue;
		if (fds[0].revents & POLLIN)
			accept_one(p);
		for (int i = 0; i < MAX_PAIRS && mode == PGPROXY_UP; i++) {
			int ok = 1;

			if (p->a[i] < 0)
				continue;
			if (fds[1 + 2 * i].revents)
				ok = relay(p->a[i], p->b[i]);
			if (ok && fds[2 + 2 * i].revents)
				ok = relay(p->b[i], p->a[i]);
			if (!ok)
				close_pair(p, i);
		}
	}
	return NULL;
}

/* Append s to out (n bytes) %-escaped as a URL wants it. */
static void add_escaped(char *out, size_t n, const char *s)
{
	size_t len = strlen(out);

	for (; *s && len + 4 < n; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~", c))
			out[len++] = (char)c;
		else
			len += (size_t)snprintf(out + len, n - len, "%%%02X", c);
	}
	out[len] = '\0';
}

/*
 * Where the server of the parsed conninfo listens, into p: its socket
 * file, or its TCP host and port (the first of several hosts).
 */
static void find_server(struct pgproxy *p, const PQconninfoOption *opts)
{
	const char *host = "", *hostaddr = "", *port = "";

	for (const PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val)
			continue;
		if (!strcmp(o->keyword, "host"))
			host = o->val;
		else if (!strcmp(o->keyword, "hostaddr"))
			hostaddr = o->val;
		else if (!strcmp(o->keyword, "port"))
			port = o->val;
	}
	if (!port[0] || port[0] == ',')
		port = "5432"; /* libpq's default */
	snprintf(p->port, sizeof(p->port), "%.*s", (int)strcspn(port, ","), port);
	if (hostaddr[0])
		host = hostaddr;
	snprintf(p->host, sizeof(p->host), "%.*s", (int)strcspn(host, ","), host);
	if (!p->host[0])
		snprintf(p->target, sizeof(p->target), "/var/run/postgresql/.s.PGSQL.%s", p->port);
	else if (p->host[0] == '/')
		snprintf(p->target, sizeof(p->target), "%s/.s.PGSQL.%s", p->host, p->port);
}

/* The URL reaching the server through our socket: every setting of opts but where the server is. */
static void proxy_url(struct pgproxy *p, const PQconninfoOption *opts)
{
	const char *dbname = "";

	for (const PQconninfoOption *o = opts; o->keyword; o++)
		if (o->val && !strcmp(o->keyword, "dbname"))
			dbname = o->val;
	snprintf(p->url, sizeof(p->url), "postgresql:///");
	add_escaped(p->url, sizeof(p->url), dbname);
	snprintf(p->url + strlen(p->url), sizeof(p->url) - strlen(p->url), "?host=%s&port=%s", p->dir,
		 p->port);
	for (const PQconninfoOption *o = opts; o->keyword; o++) {
		if (!o->val || !o->val[0] || !strcmp(o->keyword, "host") || !strcmp(o->keyword, "hostaddr") ||
		    !strcmp(o->keyword, "port") || !strcmp(o->keyword, "dbname"))
			continue;
		snprintf(p->url + strlen(p->url), sizeof(p->url) - strlen(p->url), "&%s=", o->keyword);
		add_escaped(p->url, sizeof(p->url), o->val);
	}
}

struct pgproxy *pgproxy_start(const char *url)
{
	struct pgproxy *p = url ? calloc(1, sizeof(*p)) : NULL;
	PQconninfoOption *opts = NULL;
	char *err = NULL;

	if (p)
		p->lfd = -1;
	if (p)
		opts = PQconninfoParse(url, &err);
	if (!opts)
		goto fail;
	find_server(p, opts);
	snprintf(p->dir, sizeof(p->dir), "/tmp/gamebot-pgproxy-XXXXXX");
	if (!mkdtemp(p->dir))
		goto fail;
	/* ours listens on the server's port number, in a folder of its own */
	snprintf(p->sock, sizeof(p->sock), "%s/.s.PGSQL.%s", p->dir, p->port);
	proxy_url(p, opts);
	for (int i = 0; i < MAX_PAIRS; i++)
		p->a[i] = p->b[i] = -1;
	p->lfd = unix_socket(p->sock, 1);
	if (p->lfd < 0 || pthread_create(&p->th, NULL, proxy_main, p))
		goto fail;
	PQconninfoFree(opts);
	return p;
fail:
	if (p && p->lfd >= 0)
		close(p->lfd);
	if (p && p->dir[0]) {
		unlink(p->sock);
		rmdir(p->dir);
	}
	PQconninfoFree(opts);
	PQfreemem(err);
	free(p);
	return NULL;
}

const char *pgproxy_url(const struct pgproxy *p)
{
	return p->url;
}

void pgproxy_set(struct pgproxy *p, enum pgproxy_mode mode)
{
	atomic_store(&p->mode, (int)mode);
}

void pgproxy_stop(struct pgproxy *p)
{
	if (!p)
		return;
	atomic_store(&p->stop, 1);
	pthread_join(p->th, NULL);
	for (int i = 0; i < MAX_PAIRS; i++)
		close_pair(p, i);
	if (p->lfd >= 0)
		close(p->lfd);
	unlink(p->sock);
	rmdir(p->dir);
	free(p);
}
