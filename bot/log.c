/*
 * log.c - see log.h.
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	char line[1024];
	struct timespec ts;
	struct tm tm;
	size_t n, start;
	int k;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	k = snprintf(line + n, sizeof(line) - n, ".%03ldZ gamebot: ", ts.tv_nsec / 1000000);
	n += k > 0 ? (size_t)k : 0;
	va_start(ap, fmt);
	k = vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	start = n;
	n += k > 0 ? (size_t)k : 0;
	if (n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	one_line(line + start, n - start);
	line[n++] = '\n';
	/* one write, so lines from several threads never interleave */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}
