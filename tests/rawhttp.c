/*
 * rawhttp.c - see rawhttp.h. The flood is one thread polling every
 * connection: each is opened without blocking, writes its request as the
 * socket takes it, reads and drops whatever comes back, and is opened
 * again when the server closes it.
 */
#include "tests/rawhttp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int open_to(int port, int nonblocking)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | (nonblocking ? SOCK_NONBLOCK : 0), 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) && errno != EINPROGRESS) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int raw_head_answer(int port, const char *head, int wait_ms)
{
	char buf[512];
	size_t len = 0, n = strlen(head);
	long long t0 = mono_ms();
	int fd = open_to(port, 0), status = 0;

	if (fd < 0)
		return 0;
	if (send(fd, head, n, MSG_NOSIGNAL) != (ssize_t)n)
		goto out;
	while (len < 12) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = wait_ms - (mono_ms() - t0);
		ssize_t got;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		got = recv(fd, buf + len, sizeof(buf) - 1 - len, 0);
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	if (len >= 12 && strncmp(buf, "HTTP/1.", 7) == 0)
		status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
out:
	close(fd);
	return status;
}

int raw_head_open(int port, const char *head)
{
	size_t n = strlen(head);
	int fd = open_to(port, 0);

	if (fd >= 0 && send(fd, head, n, MSG_NOSIGNAL) != (ssize_t)n) {
		close(fd);
		fd = -1;
	}
	return fd;
}

struct conn {
	int fd;
	size_t sent;
};

struct flood {
	pthread_t th;
	int port, n;
	char *req;                      /* headers and body */
	size_t req_len;
	atomic_int stop;
	atomic_int open;
	atomic_long done;
	struct conn *c;
	struct pollfd *p;
};

/* One poll result for connection i: write more, drop what came, reopen when closed. */
static void step(struct flood *f, int i)
{
	struct conn *c = &f->c[i];
	short ev = f->p[i].revents;
	char sink[4096];
	int closed = 0;

	if (ev & (POLLIN | POLLHUP | POLLERR)) {
		ssize_t got = recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT);

		closed = got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR);
		/* answered and kept open: the next request on the same connection */
		if (got > 0 && c->sent == f->req_len)
			c->sent = 0;
	}
	if (!closed && (ev & POLLOUT) && c->sent < f->req_len) {
		ssize_t put = send(c->fd, f->req + c->sent, f->req_len - c->sent,
				   MSG_NOSIGNAL | MSG_DONTWAIT);

		if (put > 0) {
			c->sent += (size_t)put;
			if (c->sent == f->req_len)
				atomic_fetch_add(&f->done, 1);
		} else if (put < 0 && errno != EAGAIN && errno != EINTR) {
			closed = 1;
		}
	}
	if (closed) {
		close(c->fd);
		c->fd = open_to(f->port, 1);
		c->sent = 0;
		if (c->fd < 0)
			atomic_fetch_sub(&f->open, 1);
	}
}

static void *flood_main(void *arg)
{
	struct flood *f = arg;

	for (int i = 0; i < f->n && !atomic_load(&f->stop); i++) {
		f->c[i].fd = open_to(f->port, 1);
		if (f->c[i].fd >= 0)
			atomic_fetch_add(&f->open, 1);
	}
	while (!atomic_load(&f->stop)) {
		for (int i = 0; i < f->n; i++) {
			f->p[i].fd = f->c[i].fd;
			f->p[i].events = (short)(POLLIN | (f->c[i].sent < f->req_len ? POLLOUT : 0));
			f->p[i].revents = 0;
		}
		if (poll(f->p, (nfds_t)f->n, 50) <= 0)
			continue;
		for (int i = 0; i < f->n; i++)
			if (f->c[i].fd >= 0 && f->p[i].revents)
				step(f, i);
	}
	return NULL;
}

struct flood *flood_start(int port, const char *path, int conns, size_t body_len)
{
	struct flood *f = calloc(1, sizeof(*f));
	char head[256];
	int hl;

	if (!f)
		return NULL;
	hl = snprintf(head, sizeof(head),
		      "POST %s HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
		      "Content-Length: %zu\r\n\r\n", path, body_len);
	f->port = port;
	f->n = conns;
	f->req_len = (size_t)hl + body_len;
	f->req = malloc(f->req_len);
	f->c = calloc((size_t)conns, sizeof(*f->c));
	f->p = calloc((size_t)conns, sizeof(*f->p));
	if (!f->req || !f->c || !f->p)
		goto fail;
	memcpy(f->req, head, (size_t)hl);
	memset(f->req + hl, '{', body_len);
	for (int i = 0; i < conns; i++)
		f->c[i].fd = -1;
	if (pthread_create(&f->th, NULL, flood_main, f))
		goto fail;
	return f;
fail:
	free(f->req);
	free(f->c);
	free(f->p);
	free(f);
	return NULL;
}

int flood_open(const struct flood *f)
{
	return atomic_load(&f->open);
}

long flood_stop(struct flood *f)
{
	long done;

	if (!f)
		return 0;
	atomic_store(&f->stop, 1);
	pthread_join(f->th, NULL);
	for (int i = 0; i < f->n; i++)
		if (f->c[i].fd >= 0)
			close(f->c[i].fd);
	done = atomic_load(&f->done);
	free(f->req);
	free(f->c);
	free(f->p);
	free(f);
	return done;
}
