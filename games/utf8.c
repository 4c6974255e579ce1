/*
 * utf8.c - see utf8.h.
 */
#include "utf8.h"

#include <string.h>

size_t utf8_char_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

bool utf8_valid_len(const char *str, size_t *len)
{
	const unsigned char *s = (const unsigned char *)str;

	for (;;) {
		size_t n;

		while (*s && *s < 0x80)
			s++;
		if (!*s)
			break;
		n = utf8_char_len((const char *)s);
		if (!n)
			return false;
		s += n;
	}
	*len = (size_t)((const char *)s - str);
	return true;
}

bool utf8_valid(const char *s)
{
	size_t len;

	return utf8_valid_len(s, &len);
}

size_t utf8_decode(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = utf8_char_len(s);
	uint32_t c;

	if (len == 1) {
		*cp = u[0];
		return 1;
	}
	if (!len) {
		*cp = 0xfffd;
		return 1;
	}
	c = u[0] & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
	for (size_t i = 1; i < len; i++)
		c = c << 6 | (u[i] & 0x3f);
	*cp = c;
	return len;
}

/* Bytes of s (len of them) to keep so that at most max remain, cut between characters. */
static size_t cut_char(const char *s, size_t len, size_t max)
{
	size_t n = max;

	if (len <= max)
		return len;
	while (n > 0 && max - n < 3 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

size_t utf8_cut(const char *s, size_t len, size_t max)
{
	size_t at = 0;

	if (len <= max)
		return len;
	while (at < len) {
		size_t g = utf8_grapheme_len(s + at, len - at);

		if (!g || at + g > max)
			break;
		at += g;
	}
	/* one cluster longer than max (hundreds of marks on a letter): cut it between characters */
	return at ? at : cut_char(s, len, max);
}

void utf8_copy(char *dst, size_t cap, const char *src, size_t len)
{
	size_t n = utf8_cut(src, len, cap - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* UTF-16 code units of the len bytes of s. */
static size_t utf16_units(const char *s, size_t len)
{
	size_t units = 0, off = 0;

	while (off < len && s[off]) {
		uint32_t cp;

		off += utf8_decode(s + off, &cp);
		units += cp >= 0x10000 ? 2 : 1;
	}
	return units;
}

size_t utf8_cut_utf16(const char *s, size_t max)
{
	size_t units = 0, off = 0;

	while (s[off]) {
		size_t g = utf8_grapheme_len(s + off, strlen(s + off));
		size_t w = utf16_units(s + off, g);

		if (units + w > max)
			break;
		units += w;
		off += g;
	}
	if (off == 0 && s[0]) {
		/* one cluster longer than max: cut it between characters */
		while (s[off]) {
			uint32_t cp;
			size_t n = utf8_decode(s + off, &cp);
			size_t w = cp >= 0x10000 ? 2 : 1;

			if (units + w > max)
				break;
			units += w;
			off += n;
		}
	}
	return off;
}
