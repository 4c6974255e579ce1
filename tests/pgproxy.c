/*
 * pgproxy.c - see pgproxy.h. One thread accepts and relays: it polls the
 * listening socket and both ends of every connection, copying bytes while
 * up, leaving them unread while stalled; going down closes every
 * connection and the listening socket (its file is removed, so a client
 * is refused as by a stopped server).
 */
#include "tests/pgproxy.h"

#include <errno.h>
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
	char target[256];               /* the server's */
	char url[512];
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

static void accept_one(struct pgproxy *p)
{
	int c = accept(p->lfd, NULL, NULL), s = c >= 0 ? unix_socket(p->target, 0) : -1;
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

struct pgproxy *pgproxy_start(const char *url)
{
	struct pgproxy *p = url ? calloc(1, sizeof(*p)) : NULL;
	const char *host = url ? strstr(url, "host=") : NULL;
	size_t hl;

	if (!p || !host)
		goto fail;
	host += 5;
	hl = strcspn(host, "&");
	snprintf(p->target, sizeof(p->target), "%.*s/.s.PGSQL.5432", (int)hl, host);
	snprintf(p->dir, sizeof(p->dir), "/tmp/gamebot-pgproxy-XXXXXX");
	if (!mkdtemp(p->dir))
		goto fail;
	snprintf(p->sock, sizeof(p->sock), "%s/.s.PGSQL.5432", p->dir);
	/* the same URL with our folder as its host */
	snprintf(p->url, sizeof(p->url), "%.*s%s%s", (int)(host - url), url, p->dir, host + hl);
	for (int i = 0; i < MAX_PAIRS; i++)
		p->a[i] = p->b[i] = -1;
	p->lfd = unix_socket(p->sock, 1);
	if (p->lfd < 0 || pthread_create(&p->th, NULL, proxy_main, p))
		goto fail;
	return p;
fail:
	if (p && p->lfd > 0)
		close(p->lfd);
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
