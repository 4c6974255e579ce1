/*
 * utf8.h - the one place that knows UTF-8: checking it, decoding it and
 * cutting it between whole characters (grapheme clusters). Every layer
 * uses these (the renderers measure columns, the router cleans what
 * people typed, the store cuts names to their columns), so the rules
 * live once, here at the bottom of the layering, and agree everywhere.
 *
 * "Valid" follows RFC 3629 as jansson does: no overlong forms, no
 * surrogates, nothing past U+10FFFF. No function here allocates.
 */
#ifndef GB_UTF8_H
#define GB_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Byte length of the valid character starting at s, or 0 when s does not
 * start one (a NUL byte counts as a one-byte character). */
size_t utf8_char_len(const char *s);

/* Is the NUL-terminated s valid UTF-8 throughout? */
bool utf8_valid(const char *s);

/* The same, *len getting s's length in bytes when it is (runs of ASCII skipped at once). */
bool utf8_valid_len(const char *s, size_t *len);

/*
 * Decode the character at s leniently, for display: *cp gets its code
 * point, or U+FFFD for a byte that does not start a well-formed sequence.
 * Returns the bytes consumed (at least 1; never past a NUL).
 */
size_t utf8_decode(const char *s, uint32_t *cp);

/*
 * Byte length of the extended grapheme cluster (UAX #29, Unicode 15.1,
 * GB9c included) starting at s, looking at no more than its len bytes:
 * what a person sees as one character - a letter with its marks, an
 * emoji ZWJ sequence, a flag, a skin tone, a Hangul syllable, a
 * Devanagari conjunct with its vowel signs. At least 1 while len > 0 and
 * s[0] is not NUL.
 */
size_t utf8_grapheme_len(const char *s, size_t len);

/*
 * How many of the len bytes of s to keep so that at most max remain,
 * cut between whole grapheme clusters; a first cluster longer than max
 * alone is cut between characters instead (before a continuation byte).
 */
size_t utf8_cut(const char *s, size_t len, size_t max);

/*
 * How many bytes of s to keep so that at most max UTF-16 code units remain
 * (what Telegram and Discord count), cut between grapheme clusters as
 * utf8_cut() cuts.
 */
size_t utf8_cut_utf16(const char *s, size_t max);

/* Copy at most cap - 1 bytes of the len bytes of src into dst, cut between
 * characters, and NUL-terminate. cap must be at least 1. */
void utf8_copy(char *dst, size_t cap, const char *src, size_t len);

#endif
