/*
 * spawn.c - see spawn.h.
 */
#include "spawn.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Length of the name in "NAME=value" or "NAME". */
static size_t name_len(const char *s)
{
	const char *eq = strchr(s, '=');

	return eq ? (size_t)(eq - s) : strlen(s);
}

/* Does env change the variable of entry ("NAME=value")? */
static bool changed(const char *const env[], const char *entry)
{
	size_t n = name_len(entry);

	for (int i = 0; env && env[i]; i++)
		if (name_len(env[i]) == n && strncmp(env[i], entry, n) == 0)
			return true;
	return false;
}

pid_t spawn(const char *path, char *const argv[], const char *const env[], const char *log,
	    bool append)
{
	return spawn_in(path, argv, env, -1, log, append);
}

pid_t spawn_in(const char *path, char *const argv[], const char *const env[], int stdin_fd, const char *log,
	       bool append)
{
	size_t n = 0, k = 0;
	char **envp;
	pid_t pid;
	int saved;

	while (environ[n])
		n++;
	for (int i = 0; env && env[i]; i++)
		n++;
	envp = calloc(n + 1, sizeof(*envp));
	if (!envp)
		return -1;
	for (int i = 0; environ[i]; i++)
		if (!changed(env, environ[i]))
			envp[k++] = environ[i];
	for (int i = 0; env && env[i]; i++)
		if (strchr(env[i], '='))
			envp[k++] = (char *)env[i];
	pid = fork();
	if (pid == 0) {
		/* the child: async-signal-safe calls only */
		int in = stdin_fd >= 0 ? stdin_fd : open("/dev/null", O_RDONLY);
		int out = log ? open(log, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0600) : -1;

		if (in >= 0)
			dup2(in, 0);
		if (out >= 0) {
			dup2(out, 1);
			dup2(out, 2);
		}
		execve(path, argv, envp);
		_exit(127);
	}
	saved = errno;
	free(envp);
	errno = saved;
	return pid;
}

/* Can a listener bind port on 127.0.0.1 now (0: the kernel picks one)? The port bound, or 0. */
static int try_port(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), got = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		got = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return got;
}

/*
 * Ports below Linux's ephemeral range (32768 and up): the kernel never
 * hands them to an outgoing connection, so a suite's own HTTP clients, or
 * another suite's running beside it, cannot take the port between this
 * check and the service binding it. Each process walks them from its own
 * random start.
 */
#define PORT_LOW 20000
#define PORT_SPAN 12000

int free_port(void)
{
	static unsigned seed;
	int port;

	if (!seed)
		seed = (unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL);
	for (int i = 0; i < 200; i++) {
		port = try_port(PORT_LOW + (int)(rand_r(&seed) % PORT_SPAN));
		if (port)
			return port;
	}
	return try_port(0);
}

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long http_status(const char *url, long timeout_ms)
{
	CURL *c = curl_easy_init();
	long code = 0;

	if (!c)
		return 0;
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(c);
	return code;
}

/* Has pid ended? Reaps it when it has. */
static bool ended(pid_t pid)
{
	int status;

	return waitpid(pid, &status, WNOHANG) == pid;
}

bool wait_serving(pid_t pid, const char *url, int timeout_ms)
{
	long until = now_ms() + timeout_ms;
	bool ok = false;

	while (!ended(pid)) {
		/* answered by pid only if pid is still there */
		ok = http_status(url, 2000) == 200 && !ended(pid);
		if (ok || now_ms() >= until)
			break;
		usleep(20000);
	}
	return ok;
}
