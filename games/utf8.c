/*
 * utf8.c - see utf8.h: checking and decoding UTF-8, and below them the
 * extended grapheme clusters (UAX #29) that every cut keeps whole, so a
 * name, a log line or a message cut to fit never ends inside an emoji
 * ZWJ sequence, a flag, a skin tone, a Hangul syllable or a Devanagari
 * conjunct (consonant + virama + consonant, and its vowel signs).
 *
 * The cluster rules are GB3 to GB13 and GB999 of Unicode 15.1, GB9c (Indic
 * conjuncts) included; the properties come from games/grapheme_table.h,
 * written by games/grapheme.pl. tests/test_utf8.c plays the cases of
 * tests/data/graphemes.txt, written as Unicode's GraphemeBreakTest.txt
 * writes them.
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

/* ---- grapheme clusters (UAX #29) ---- */

enum gb_prop {
	GB_OTHER, GB_CR, GB_LF, GB_CONTROL, GB_EXTEND, GB_ZWJ, GB_RI, GB_PREPEND,
	GB_SPACINGMARK, GB_L, GB_V, GB_T, GB_LV, GB_LVT,
};

enum {
	GF_PICT = 1,        /* Extended_Pictographic */
	GF_LINKER = 2,      /* Indic_Conjunct_Break=Linker (a virama) */
	GF_CONSONANT = 4,   /* Indic_Conjunct_Break=Consonant */
	GF_INCB_EXTEND = 8, /* Indic_Conjunct_Break=Extend */
};

struct gb_range {
	uint32_t lo, hi;
	unsigned char prop;  /* enum gb_prop */
	unsigned char flags; /* GF_* */
};

#include "grapheme_table.h"

/* The properties of code point c. */
static void gb_props(uint32_t c, int *prop, int *flags)
{
	size_t lo = 0, hi = sizeof(gb_ranges) / sizeof(gb_ranges[0]);

	*flags = 0;
	if (c < 0x80) {
		*prop = c == '\r' ? GB_CR : c == '\n' ? GB_LF : c < 0x20 || c == 0x7f ? GB_CONTROL : GB_OTHER;
		return;
	}
	if (c >= 0xac00 && c <= 0xd7a3) {
		/* Hangul syllables: every 28th is LV (no final consonant), the rest LVT */
		*prop = (c - 0xac00) % 28 == 0 ? GB_LV : GB_LVT;
		return;
	}
	*prop = GB_OTHER;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c > gb_ranges[mid].hi) {
			lo = mid + 1;
		} else if (c < gb_ranges[mid].lo) {
			hi = mid;
		} else {
			*prop = gb_ranges[mid].prop;
			*flags = gb_ranges[mid].flags;
			break;
		}
	}
}

/* What the rules that look back further than one character have seen so far. */
struct gb_state {
	int prev;   /* the last character's enum gb_prop */
	int pict;   /* GB11: 1 after ExtPict Extend*, 2 after ExtPict Extend* ZWJ */
	int ris;    /* GB12/13: regional indicators in a row before here */
	int indic;  /* GB9c: 1 after Consonant [Extend Linker]*, 2 once a Linker is among them */
};

/* Is there a break between the state's last character and one of prop and flags? */
static bool gb_break(const struct gb_state *s, int prop, int flags)
{
	int p = s->prev;

	if (p == GB_CR && prop == GB_LF)
		return false;                                           /* GB3 */
	if (p == GB_CR || p == GB_LF || p == GB_CONTROL)
		return true;                                            /* GB4 */
	if (prop == GB_CR || prop == GB_LF || prop == GB_CONTROL)
		return true;                                            /* GB5 */
	if (p == GB_L && (prop == GB_L || prop == GB_V || prop == GB_LV || prop == GB_LVT))
		return false;                                           /* GB6 */
	if ((p == GB_LV || p == GB_V) && (prop == GB_V || prop == GB_T))
		return false;                                           /* GB7 */
	if ((p == GB_LVT || p == GB_T) && prop == GB_T)
		return false;                                           /* GB8 */
	if (prop == GB_EXTEND || prop == GB_ZWJ || prop == GB_SPACINGMARK || p == GB_PREPEND)
		return false;                                           /* GB9, GB9a, GB9b */
	if (s->indic == 2 && (flags & GF_CONSONANT))
		return false;                                           /* GB9c */
	if (s->pict == 2 && p == GB_ZWJ && (flags & GF_PICT))
		return false;                                           /* GB11 */
	if (p == GB_RI && prop == GB_RI && s->ris % 2 == 1)
		return false;                                           /* GB12, GB13 */
	return true;                                                    /* GB999 */
}

/* Move the state past a character of prop and flags. */
static void gb_step(struct gb_state *s, int prop, int flags)
{
	if (flags & GF_PICT)
		s->pict = 1;
	else if (s->pict == 1 && prop == GB_ZWJ)
		s->pict = 2;
	else if (!(s->pict == 1 && prop == GB_EXTEND))
		s->pict = 0;
	s->ris = prop == GB_RI ? s->ris + 1 : 0;
	if (flags & GF_CONSONANT)
		s->indic = 1;
	else if (s->indic && (flags & GF_LINKER))
		s->indic = 2;
	else if (!(s->indic && (flags & GF_INCB_EXTEND)))
		s->indic = 0;
	s->prev = prop;
}

size_t utf8_grapheme_len(const char *s, size_t len)
{
	struct gb_state st = { 0 };
	size_t at = 0;

	while (at < len && s[at]) {
		unsigned char b = (unsigned char)s[at];
		size_t need = b < 0xc2 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
		uint32_t c;
		size_t n;
		int prop, flags;

		/* a character the end of the len bytes leaves unfinished ends the cluster (nothing read past len) */
		if (at + need > len && need > 1)
			break;
		n = utf8_decode(s + at, &c);
		gb_props(c, &prop, &flags);
		if (at > 0 && gb_break(&st, prop, flags))
			break;
		gb_step(&st, prop, flags);
		at += n;
	}
	/* at least one byte, so that a caller stepping through s always moves on */
	return at ? at : (len && s[0] ? 1 : 0);
}

/* ---- cutting between clusters ---- */

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
