/*
 * name.c - display names made fit to show: see name.h.
 */
#include "name.h"

#include <stdio.h>
#include <string.h>

#include "games/utf8.h"
#include "width.h"

bool name_unprintable(uint32_t c)
{
	return c < 0x20 || (c >= 0x7f && c < 0xa0) || c == 0x061c || (c >= 0x200b && c <= 0x200f) ||
	       (c >= 0x2028 && c <= 0x202e) || (c >= 0x2060 && c <= 0x206f) || c == 0xfeff;
}

int name_strip(char *s)
{
	char *w = s;
	const char *r = s;
	int kept = 0;

	while (*r) {
		uint32_t c;
		size_t n = utf8_decode(r, &c);
		/* ZWJ and ZWNJ join or part the characters on both sides: kept between two */
		bool joiner = (c == 0x200d || c == 0x200c) && w > s && r[n];

		if (name_unprintable(c) && !joiner) {
			r += n;
			continue;
		}
		memmove(w, r, n);
		w += n;
		r += n;
		kept++;
	}
	*w = '\0';
	return kept;
}

/* Blanks: the spaces of Unicode (Zs) and the fillers that show as one (Hangul's, Braille's, Khmer's). */
static bool blank(uint32_t c)
{
	return c == ' ' || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x202f ||
	       c == 0x205f || c == 0x3000 || c == 0x115f || c == 0x1160 || c == 0x3164 || c == 0xffa0 ||
	       c == 0x2800 || c == 0x180e || c == 0x17b4 || c == 0x17b5 || c == 0x2062 || c == 0x2063;
}

bool name_visible(const char *s)
{
	while (*s) {
		uint32_t c;

		s += utf8_decode(s, &c);
		if (!blank(c) && !name_unprintable(c) && width_of(c) > 0)
			return true;
	}
	return false;
}

/* Remove the blanks at both ends of s. */
static void trim(char *s)
{
	size_t start = 0, end = strlen(s), i = 0;
	bool seen = false;

	while (s[i]) {
		uint32_t c;
		size_t n = utf8_decode(s + i, &c);

		if (!blank(c)) {
			if (!seen)
				start = i;
			seen = true;
			end = i + n;
		}
		i += n;
	}
	if (!seen)
		start = end = 0;
	memmove(s, s + start, end - start);
	s[end - start] = '\0';
}

void name_fallback(const char *platform, const char *user_id, char *out, size_t cap)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a: the same digits for the same id, on every machine */

	for (const char *p = platform ? platform : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (const char *p = user_id ? user_id : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	snprintf(out, cap, "Player %04u", (unsigned)(h % 10000));
}

void name_clean(char *s, size_t cap, const char *platform, const char *user_id)
{
	if (!cap)
		return;
	name_strip(s);
	trim(s);
	if (!name_visible(s))
		name_fallback(platform, user_id, s, cap);
}
