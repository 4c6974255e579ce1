/*
 * online_name.c - the names people play under at online tables (/name):
 * what a name may be, the key that makes two names one, and the name of
 * someone who chose none.
 *
 * A name is 2 to 20 letters (of any script, each letter with the marks
 * that combine with it: a Devanagari vowel sign, virama or candrabindu is
 * part of its letter, not a character of its own), digits (ASCII or
 * Devanagari) or single spaces between words, at most STORE_NAME_LEN - 1
 * bytes. Nothing else: no emoji, no punctuation, no @ or / that could read
 * as a mention or a command. A name that reads as a computer seat ("Bot
 * 2", "Computer", "कम्प्युटर ३", "Bot for Asha", "Asha को कम्प्युटर") or as
 * the name given to someone who chose none ("Player 1234") is refused
 * too. The key is the name folded (case aside, in the scripts that have
 * case), which the store keeps unique among people.
 */
#include <stdio.h>
#include <string.h>

#include "bot/internal.h"
#include "games/utf8.h"

#define NAME_MIN 2
#define NAME_MAX 20

struct range {
	uint32_t lo, hi;
};

/* Letters, by script: a generous reading of Unicode's L* categories, punctuation and symbols left out. */
static const struct range letters[] = {
	{ 'A', 'Z' },         { 'a', 'z' },         { 0x00AA, 0x00AA },   { 0x00B5, 0x00B5 },
	{ 0x00BA, 0x00BA },   { 0x00C0, 0x00D6 },   { 0x00D8, 0x00F6 },   { 0x00F8, 0x02AF },
	{ 0x0370, 0x0373 },   { 0x0376, 0x0377 },   { 0x037B, 0x037D },   { 0x0386, 0x0386 },
	{ 0x0388, 0x03FF },   { 0x0400, 0x0481 },   { 0x048A, 0x052F },   { 0x0531, 0x0556 },
	{ 0x0561, 0x0587 },   { 0x05D0, 0x05EA },   { 0x0620, 0x064A },   { 0x066E, 0x066F },
	{ 0x0671, 0x06D3 },   { 0x06D5, 0x06D5 },   { 0x0904, 0x0939 },   { 0x093D, 0x093D },
	{ 0x0950, 0x0950 },   { 0x0958, 0x0961 },   { 0x0971, 0x097F },   { 0x0985, 0x09B9 },
	{ 0x09DC, 0x09E1 },   { 0x0A05, 0x0A39 },   { 0x0A85, 0x0AB9 },   { 0x0B05, 0x0B39 },
	{ 0x0B85, 0x0BB9 },   { 0x0C05, 0x0C39 },   { 0x0C85, 0x0CB9 },   { 0x0D05, 0x0D3A },
	{ 0x0D85, 0x0DC6 },   { 0x0E01, 0x0E30 },   { 0x0E32, 0x0E33 },   { 0x0E40, 0x0E46 },
	{ 0x0E81, 0x0EB0 },   { 0x0F00, 0x0F00 },   { 0x0F40, 0x0F6C },   { 0x1000, 0x102A },
	{ 0x10A0, 0x10FF },   { 0x1100, 0x11FF },   { 0x1E00, 0x1FBC },   { 0x1FC2, 0x1FFC },
	{ 0x3041, 0x3096 },   { 0x30A1, 0x30FA },   { 0x30FC, 0x30FF },   { 0x3131, 0x318E },
	{ 0x3400, 0x4DBF },   { 0x4E00, 0x9FFF },   { 0xAC00, 0xD7A3 },
};

/* Marks that combine with the letter before them (Mn, Mc). */
static const struct range marks[] = {
	{ 0x0300, 0x036F }, { 0x0483, 0x0487 }, { 0x0591, 0x05BD }, { 0x064B, 0x065F }, { 0x0670, 0x0670 },
	{ 0x0900, 0x0903 }, { 0x093A, 0x093C }, { 0x093E, 0x094F }, { 0x0951, 0x0957 }, { 0x0962, 0x0963 },
	{ 0x0981, 0x0983 }, { 0x09BC, 0x09D7 }, { 0x09E2, 0x09E3 }, { 0x0A01, 0x0A03 }, { 0x0A3C, 0x0A51 },
	{ 0x0A81, 0x0A83 }, { 0x0ABC, 0x0ACD }, { 0x0B01, 0x0B03 }, { 0x0B3C, 0x0B57 }, { 0x0B82, 0x0B82 },
	{ 0x0BBE, 0x0BCD }, { 0x0C00, 0x0C04 }, { 0x0C3E, 0x0C56 }, { 0x0C81, 0x0C83 }, { 0x0CBC, 0x0CD6 },
	{ 0x0D00, 0x0D03 }, { 0x0D3E, 0x0D57 }, { 0x0D81, 0x0D83 }, { 0x0DCA, 0x0DDF }, { 0x0E31, 0x0E31 },
	{ 0x0E34, 0x0E3A }, { 0x0E47, 0x0E4E }, { 0x0EB1, 0x0EBC }, { 0x0EC8, 0x0ECD }, { 0x0F71, 0x0F84 },
	{ 0x102B, 0x103E }, { 0x1AB0, 0x1AFF }, { 0x1DC0, 0x1DFF }, { 0x20D0, 0x20F0 }, { 0x3099, 0x309A },
};

static bool in(const struct range *t, size_t n, uint32_t c)
{
	for (size_t i = 0; i < n; i++)
		if (c >= t[i].lo && c <= t[i].hi)
			return true;
	return false;
}

#define IN(t, c) in((t), sizeof(t) / sizeof((t)[0]), (c))

static bool is_digit(uint32_t c)
{
	return (c >= '0' && c <= '9') || (c >= 0x0966 && c <= 0x096F);
}

/* Pairs of capital and small letters next to each other: the capital at the even or odd code point. */
static const struct {
	uint32_t lo, hi;
	uint32_t odd;                  /* 1: capitals at the odd code points */
} pairs[] = {
	{ 0x0100, 0x0137, 0 }, { 0x0139, 0x0148, 1 }, { 0x014A, 0x0177, 0 }, { 0x0179, 0x017E, 1 },
	{ 0x0460, 0x0481, 0 }, { 0x048A, 0x04BF, 0 }, { 0x04C1, 0x04CE, 1 }, { 0x04D0, 0x052F, 0 },
	{ 0x1E00, 0x1E95, 0 }, { 0x1EA0, 0x1EFF, 0 },
};

/* c in small letters, in the scripts that have case (Latin, Greek, Cyrillic, Armenian). */
static uint32_t fold(uint32_t c)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 0x00C0 && c <= 0x00DE && c != 0x00D7) || (c >= 0x0391 && c <= 0x03AB))
		return c + 0x20;
	if (c >= 0x0410 && c <= 0x042F)
		return c + 0x20;
	if (c >= 0x0400 && c <= 0x040F)
		return c + 0x50;
	if (c >= 0x0531 && c <= 0x0556)
		return c + 0x30;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (c >= pairs[i].lo && c <= pairs[i].hi)
			return (c & 1) == pairs[i].odd ? c + 1 : c;
	return c;
}

/* Append code point c to out (at *len, cap bytes); false when it does not fit. */
static bool put(char *out, size_t cap, size_t *len, uint32_t c)
{
	char b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (char)c;
		n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xC0 | (c >> 6));
		b[1] = (char)(0x80 | (c & 0x3F));
		n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xE0 | (c >> 12));
		b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[2] = (char)(0x80 | (c & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | (c >> 18));
		b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[3] = (char)(0x80 | (c & 0x3F));
		n = 4;
	}
	if (*len + n >= cap)
		return false;
	memcpy(out + *len, b, n);
	*len += n;
	out[*len] = '\0';
	return true;
}

/* Is the folded word w (n bytes) one of the words a computer seat is called by? */
static bool computer_word(const char *w, size_t n)
{
	static const char *const words[] = { "bot", "computer", "कम्प्युटर", NULL };

	for (int i = 0; words[i]; i++)
		if (strlen(words[i]) == n && !memcmp(w, words[i], n))
			return true;
	return false;
}

/* Does the folded word w (n bytes) end in the word a Nepali computer seat ends in ("आशाको कम्प्युटर")? */
static bool ends_computer(const char *w, size_t n)
{
	static const char nepali[] = "कम्प्युटर";
	size_t k = sizeof(nepali) - 1;

	return computer_word(w, n) || (n >= k && !memcmp(w + n - k, nepali, k));
}

/* Is the folded name key "player" and digits alone (the name of someone who chose none)? */
static bool default_name(const char *key)
{
	const char *p = key;

	if (strncmp(p, "player ", 7))
		return false;
	for (p += 7; *p;) {
		uint32_t c;

		p += utf8_decode(p, &c);
		if (!is_digit(c))
			return false;
	}
	return true;
}

/* The length of word w (n bytes) without the digits at its end ("bot2" is "bot"). */
static size_t without_digits(const char *w, size_t n)
{
	for (;;) {
		if (n >= 1 && w[n - 1] >= '0' && w[n - 1] <= '9')
			n--;
		else if (n >= 3 && (unsigned char)w[n - 3] == 0xE0 && (unsigned char)w[n - 2] == 0xA5 &&
			 (unsigned char)w[n - 1] >= 0xA6 && (unsigned char)w[n - 1] <= 0xAF)
			n -= 3;
		else
			return n;
	}
}

/* Does the folded key read as a computer seat's name or a default name? */
static bool reads_as_computer(const char *key)
{
	const char *first_end = strchr(key, ' ');
	const char *last = strrchr(key, ' ');
	size_t first_len = first_end ? (size_t)(first_end - key) : strlen(key);

	last = last ? last + 1 : key;
	return computer_word(key, without_digits(key, first_len)) || ends_computer(last, strlen(last)) ||
	       default_name(key);
}

int online_name_check(const char *given, char *name, size_t cap, char *key, size_t kcap)
{
	size_t nlen = 0, klen = 0;
	int chars = 0;
	bool space = false, base = false;

	if (!cap || !kcap)
		return M_NAME_BAD;
	name[0] = key[0] = '\0';
	if (!utf8_valid(given))
		return M_NAME_BAD;
	for (const char *p = given; *p;) {
		uint32_t c;

		p += utf8_decode(p, &c);
		if (c == ' ' || c == '\t') {
			/* runs of spaces are one, none at either end */
			space = nlen > 0;
			base = false;
			continue;
		}
		if (IN(marks, c)) {
			/* a mark is part of the letter before it, and never starts one */
			if (!base)
				return M_NAME_BAD;
		} else if (IN(letters, c) || is_digit(c)) {
			if (space && (!put(name, cap, &nlen, ' ') || !put(key, kcap, &klen, ' ')))
				return M_NAME_BAD;
			space = false;
			base = true;
			chars++;
		} else {
			return M_NAME_BAD;
		}
		if (!put(name, cap, &nlen, c) || !put(key, kcap, &klen, fold(c)))
			return M_NAME_BAD;
	}
	/* letters and digits at least NAME_MIN; with the spaces between them at most NAME_MAX */
	if (chars < NAME_MIN)
		return M_NAME_BAD;
	for (const char *p = name; *p; p++)
		chars += *p == ' ';
	if (chars > NAME_MAX)
		return M_NAME_BAD;
	if (reads_as_computer(key))
		return M_NAME_COMPUTER;
	return 0;
}

/*
 * The name a person plays under: the one they chose, else "Player NNNN"
 * made from their id (their platform name could be their username, which
 * strangers must not see).
 */
int online_person_name(struct store *s, const char *platform, const char *user, char *out, size_t cap)
{
	int rc = store_person_get(s, platform, user, out, cap, NULL);
	uint64_t h = 1469598103934665603ULL;

	if (rc || out[0])
		return rc;
	for (const char *p = platform; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	for (const char *p = user; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	snprintf(out, cap, "Player %04u", (unsigned)(h % 10000));
	return GB_OK;
}
