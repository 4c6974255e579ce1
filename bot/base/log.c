/*
 * log.c - see log.h.
 */
#include "log.h"

#include <ctype.h>
#include <pthread.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "games/utf8.h"

#define MAX_SECRETS 16
#define SECRET_LEN 256
#define SECRET_MIN 4
#define MASK "***"

/*
 * The registered values. A slot is written once, before the count that
 * publishes it (release); readers load the count (acquire) and read only
 * the slots below it, so a line being formatted never sees half a value.
 */
static char secrets[MAX_SECRETS][SECRET_LEN];
static size_t secret_len[MAX_SECRETS];
static atomic_int nsecrets;
static pthread_mutex_t secrets_lock = PTHREAD_MUTEX_INITIALIZER;

void gb_log_secret(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	int k;

	if (n < SECRET_MIN || n >= SECRET_LEN)
		n = 0;
	pthread_mutex_lock(&secrets_lock);
	k = atomic_load_explicit(&nsecrets, memory_order_relaxed);
	for (int i = 0; i < k && n; i++)
		if (secret_len[i] == n && memcmp(secrets[i], s, n) == 0)
			n = 0; /* known already */
	if (n && k < MAX_SECRETS) {
		memcpy(secrets[k], s, n + 1);
		secret_len[k] = n;
		atomic_store_explicit(&nsecrets, k + 1, memory_order_release);
	}
	pthread_mutex_unlock(&secrets_lock);
}

void gb_log_secrets_clear(void)
{
	pthread_mutex_lock(&secrets_lock);
	atomic_store_explicit(&nsecrets, 0, memory_order_release);
	sodium_memzero(secrets, sizeof(secrets));
	memset(secret_len, 0, sizeof(secret_len));
	pthread_mutex_unlock(&secrets_lock);
}

/* Where gb_redact() writes: never past cap - 1, always terminated at the end. */
struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *o, const char *s, size_t n)
{
	size_t room = o->cap > o->len + 1 ? o->cap - o->len - 1 : 0;

	if (n > room)
		n = room;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/* Does a value end at c (a URL's, a key's, a header's)? */
static bool value_end(char c)
{
	return !c || isspace((unsigned char)c) || strchr("\"'&;,)<>", c);
}

/* The length of a registered value starting at s, or 0. */
static size_t secret_at(const char *s, int k)
{
	size_t n = 0;

	for (int i = 0; i < k && !n; i++)
		if (s[0] == secrets[i][0] && strncmp(s, secrets[i], secret_len[i]) == 0)
			n = secret_len[i];
	return n;
}

/*
 * At "://" in s: when the authority holds user:password@, the bytes up to
 * the password's end (where "@" starts), else 0; *user_end then counts the
 * bytes up to and including the colon. The user name stays; only what
 * follows its colon is hidden.
 */
static size_t url_password(const char *s, size_t *user_end)
{
	const char *a = s + 3, *at = NULL, *colon = NULL;
	size_t n = 0;

	for (const char *p = a; !value_end(*p) && *p != '/' && *p != '?' && *p != '#'; p++)
		if (*p == '@')
			at = p;
	if (at)
		colon = memchr(a, ':', (size_t)(at - a));
	if (colon) {
		*user_end = (size_t)(colon + 1 - s);
		n = (size_t)(at - s);
	}
	return n;
}

/* Does the key just written (ending at end) name a password, token or secret? */
static bool secret_key(const char *start, const char *end)
{
	static const char *const names[] = { "password", "passwd", "token", "secret" };
	const char *k = end;
	bool found = false;

	while (k > start && (isalnum((unsigned char)k[-1]) || k[-1] == '_' || k[-1] == '-'))
		k--;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !found; i++) {
		size_t n = strlen(names[i]);

		found = (size_t)(end - k) >= n && strncasecmp(end - n, names[i], n) == 0;
	}
	return found;
}

/* The length of "Bearer <token>" or "Bot <token>" at s (a token of 20 or more), or 0. */
static size_t bearer_at(const char *s, size_t *word)
{
	size_t n = 0;

	*word = strncmp(s, "Bearer ", 7) == 0 ? 7 : strncmp(s, "Bot ", 4) == 0 ? 4 : 0;
	for (char c = s[*word]; *word && (isalnum((unsigned char)c) || (c && strchr("._-~+/=", c)));
	     c = s[*word + n])
		n++;
	return n >= 20 ? *word + n : 0;
}

/* Where the value after "/bot" or "=" ends, from p. */
static const char *skip_value(const char *p, bool in_path)
{
	while (!value_end(*p) && !(in_path && (*p == '/' || *p == '?')))
		p++;
	return p;
}

/* Copy what starts at p (line in) to o, hidden when it is a secret; returns what it took. */
static size_t redact_one(const char *in, const char *p, int k, struct out *o)
{
	size_t n = secret_at(p, k), mark = 0;

	if (n) {
		put(o, MASK, 3);
	} else if (strncmp(p, "://", 3) == 0 && url_password(p, &mark)) {
		n = url_password(p, &mark);
		put(o, p, mark);
		put(o, MASK, 3);
	} else if (strncmp(p, "/bot", 4) == 0 && isdigit((unsigned char)p[4])) {
		put(o, "/bot" MASK, 7);
		n = (size_t)(skip_value(p + 4, true) - p);
	} else if (*p == '=' && secret_key(in, p) && !value_end(p[1])) {
		put(o, "=" MASK, 4);
		n = (size_t)(skip_value(p + 1, false) - p);
	} else if (bearer_at(p, &mark)) {
		n = bearer_at(p, &mark);
		put(o, p, mark);
		put(o, MASK, 3);
	} else {
		put(o, p, 1);
		n = 1;
	}
	return n;
}

size_t gb_redact(const char *in, char *outbuf, size_t cap)
{
	struct out o = { outbuf, cap, 0 };
	int k = atomic_load_explicit(&nsecrets, memory_order_acquire);

	for (const char *p = in; cap && *p;)
		p += redact_one(in, p, k, &o);
	if (cap)
		o.buf[o.len] = '\0';
	return o.len;
}

/*
 * Whatever a message quotes (an id, a platform's error text), the line
 * stays one line that reads left to right: control characters, DEL, the
 * line and paragraph separators and the bidi controls become '?'.
 */
static void one_line(char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f) {
			s[i] = '?';
		} else if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
			   (unsigned char)s[i + 1] < 0xa0) {
			s[i] = '?'; /* a C1 control: two bytes */
			s[i + 1] = '?';
		} else if (c == 0xe2 && i + 2 < n &&
			   (((unsigned char)s[i + 1] == 0x80 && (unsigned char)s[i + 2] >= 0xa8 &&
			     (unsigned char)s[i + 2] <= 0xae) ||
			    ((unsigned char)s[i + 1] == 0x81 && (unsigned char)s[i + 2] >= 0xa6 &&
			     (unsigned char)s[i + 2] <= 0xa9))) {
			memset(s + i, '?', 3); /* U+2028..U+202E, U+2066..U+2069 */
		}
	}
}

void gb_log(const char *fmt, ...)
{
	/* msg and red hold more than a line: a line is cut where the text goes on, so between whole characters */
	char line[1024], msg[2048], red[2048];
	struct timespec ts;
	struct tm tm;
	size_t n, start, len;
	int k;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	k = snprintf(line + n, sizeof(line) - n, ".%03ldZ gamebot: ", ts.tv_nsec / 1000000);
	n += k > 0 ? (size_t)k : 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	start = n;
	len = gb_redact(msg, red, sizeof(red));
	len = utf8_cut(red, len, sizeof(line) - 2 - start);
	memcpy(line + start, red, len);
	n = start + len;
	one_line(line + start, n - start);
	line[n++] = '\n';
	/* one write, so lines from several threads never interleave */
	if (write(STDERR_FILENO, line, n) < 0)
		n = 0;
	/* the message may have held a secret the formatter hid */
	sodium_memzero(msg, sizeof(msg));
	sodium_memzero(red, sizeof(red));
}
