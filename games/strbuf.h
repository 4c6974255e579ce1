/*
 * strbuf.h - a growable NUL-terminated string (after git's strbuf).
 * A zeroed struct strbuf is a valid empty buffer. sb_release() frees and
 * re-initialises; sb_detach() hands the storage to the caller (free(3) it).
 * Allocation failure is sticky: sb->failed is set and later appends do nothing;
 * a length that would overflow size_t is such a failure, never a wrap.
 */
#ifndef GB_STRBUF_H
#define GB_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool failed;
};

void sb_add(struct strbuf *sb, const char *s);
void sb_addn(struct strbuf *sb, const char *s, size_t n);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Like sb_addf with a format from a message catalogue (not a literal). */
void sb_addtr(struct strbuf *sb, const char *fmt, ...);
/* Append s with every byte that does not begin a valid UTF-8 character
 * shown as U+FFFD, so the result is always valid UTF-8. */
void sb_add_utf8(struct strbuf *sb, const char *s);
const char *sb_str(const struct strbuf *sb); /* never NULL */
char *sb_detach(struct strbuf *sb);          /* caller owns; never NULL unless failed */
void sb_release(struct strbuf *sb);

#endif
