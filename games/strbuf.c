/*
 * strbuf.c - see strbuf.h.
 */
#include "strbuf.h"
#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool grow(struct strbuf *sb, size_t extra)
{
	size_t need, cap;
	char *p;

	if (sb->failed)
		return false;
	/*
	 * As git's strbuf_grow and curl's dynbuf: a size that would wrap
	 * fails, and so does one no allocation can have (past PTRDIFF_MAX),
	 * without asking for it.
	 */
	if (sb->len >= (size_t)PTRDIFF_MAX || extra >= (size_t)PTRDIFF_MAX - sb->len) {
		sb->failed = true;
		return false;
	}
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return true;
	cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap = cap > (size_t)PTRDIFF_MAX / 2 ? need : cap * 2;
	p = realloc(sb->buf, cap);
	if (!p) {
		sb->failed = true;
		return false;
	}
	sb->buf = p;
	sb->cap = cap;
	return true;
}

void sb_addn(struct strbuf *sb, const char *s, size_t n)
{
	if (n < sb->cap - sb->len && !sb->failed) {
		/* room already: most additions are a few bytes */
		memcpy(sb->buf + sb->len, s, n);
		sb->len += n;
		sb->buf[sb->len] = '\0';
		return;
	}
	if (!grow(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_add(struct strbuf *sb, const char *s)
{
	sb_addn(sb, s, strlen(s));
}

/*
 * Is fmt made only of plain text, "%s", "%d" and "%%"? The catalogue's
 * texts are (a board's status and log lines are a few such texts a
 * command), and add_plain() writes them without the C library's printf,
 * which costs ten times as much for the same bytes.
 */
static bool plain_format(const char *fmt)
{
	for (const char *p = strchr(fmt, '%'); p; p = strchr(p + 2, '%'))
		if (p[1] != 's' && p[1] != 'd' && p[1] != '%')
			return false;
	return true;
}

/* The text vsnprintf() writes for a plain_format() fmt, byte for byte. */
static void add_plain(struct strbuf *sb, const char *fmt, va_list ap)
{
	const char *p = fmt, *pc;

	while ((pc = strchr(p, '%')) != NULL) {
		sb_addn(sb, p, (size_t)(pc - p));
		if (pc[1] == 's') {
			const char *v = va_arg(ap, const char *);

			sb_add(sb, v ? v : "(null)");
		} else if (pc[1] == 'd') {
			char digits[16], *d = digits + sizeof(digits);
			int v = va_arg(ap, int);
			unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;

			do
				*--d = (char)('0' + u % 10);
			while ((u /= 10) > 0);
			if (v < 0)
				*--d = '-';
			sb_addn(sb, d, (size_t)(digits + sizeof(digits) - d));
		} else {
			sb_addn(sb, "%", 1);
		}
		p = pc + 2;
	}
	sb_add(sb, p);
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (plain_format(fmt)) {
		add_plain(sb, fmt, ap);
		return;
	}

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || !grow(sb, (size_t)n))
		return;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sb_addtr(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

const char *sb_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

char *sb_detach(struct strbuf *sb)
{
	char *p = sb->buf;

	if (!p && !sb->failed)
		p = calloc(1, 1);
	if (sb->failed) {
		free(p);
		p = NULL;
	}
	memset(sb, 0, sizeof(*sb));
	return p;
}

void sb_release(struct strbuf *sb)
{
	free(sb->buf);
	memset(sb, 0, sizeof(*sb));
}

void sb_add_utf8(struct strbuf *sb, const char *s)
{
	while (*s) {
		size_t len = utf8_char_len(s);

		if (len) {
			sb_addn(sb, s, len);
			s += len;
		} else {
			sb_add(sb, "\xef\xbf\xbd");
			s++;
		}
	}
}
