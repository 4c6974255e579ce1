/*
 * i18n.c - picks catalogue entries by language, falling back to English so a
 * missing translation shows English words rather than nothing.
 */
#include "i18n.h"

#include <stdio.h>
#include <string.h>

#include "games/game.h"
#include "games/strbuf.h"
#include "bot/base/log.h"

extern const char *const msg_en[M_COUNT];
extern const char *const msg_ne[M_COUNT];

#define MSG_NAME(k) #k,
static const char *const key_names[M_COUNT] = { MSG_KEYS(MSG_NAME) };
#undef MSG_NAME

const char *msg_catalogue(int lang, int key)
{
	if (key < 0 || key >= M_COUNT)
		return NULL;
	if (lang == LANG_NE)
		return msg_ne[key];
	return msg_en[key];
}

const char *tr(int lang, int key)
{
	const char *s = msg_catalogue(lang, key);

	if (!s)
		s = msg_catalogue(LANG_EN, key);
	return s ? s : "";
}

/*
 * The next conversion of a format from *p on ('s', 'd'), *p moved past
 * it; '\0' at the end, '?' for one the formatters do not read alike.
 */
static char next_conversion(const char **p)
{
	const char *s = *p;

	for (; *s; s++) {
		if (*s != '%')
			continue;
		if (s[1] == '%') {
			s++;
			continue;
		}
		*p = s[1] ? s + 2 : s + 1;
		return s[1] == 's' || s[1] == 'd' ? s[1] : '?';
	}
	*p = s;
	return '\0';
}

int msg_any(int key, const char *fmt)
{
	const char *en = msg_catalogue(LANG_EN, key), *p = en, *q = fmt;
	char a, b;

	if (!en) {
		gb_log("i18n: message key %d does not exist", key);
		return M_INTERNAL;
	}
	do {
		a = next_conversion(&p);
		b = next_conversion(&q);
	} while (a == b && a && a != '?');
	if (a || b) {
		gb_log("i18n: %s takes \"%s\", not the arguments of \"%s\"", msg_key_name(key), en, fmt);
		return M_INTERNAL;
	}
	return key;
}

const char *msg_key_name(int key)
{
	return key >= 0 && key < M_COUNT ? key_names[key] : "?";
}

static const struct {
	const char *word;
	const char *code;
} ne_ranks[] = {
	{ "एक्का", "A" }, { "बादशाह", "K" }, { "बेगम", "Q" }, { "रानी", "Q" }, { "गुलाम", "J" },
	{ "दहला", "10" }, { "नहर", "9" }, { "नहला", "9" }, { "अट्ठा", "8" }, { "सत्ता", "7" },
	{ "छक्का", "6" }, { "पञ्जा", "5" }, { "चौका", "4" }, { "तिर्की", "3" }, { "तिक्की", "3" },
	{ "दुक्की", "2" },
}, ne_suits[] = {
	{ "हुकुम", "S" }, { "पान", "H" }, { "इट्टा", "D" }, { "चिडी", "C" },
};

int ne_card_code(const char *text, char *out, size_t n)
{
	const char *rank = NULL, *suit = NULL, *p = text;
	char word[64], digits[12];

	for (;;) {
		const char *next = gb_next_word(p, word, sizeof(word));
		size_t len;
		const char *found = NULL;
		int v;

		if (!next) {
			/* the end - or a word too long to read, which names no card */
			if (p[strspn(p, " \t\r\n")])
				return -1;
			break;
		}
		p = next;
		len = strlen(word);

		/* "हुकुमको" = "of spades": drop the postposition */
		if (len > strlen("को") && strcmp(word + len - strlen("को"), "को") == 0)
			word[len - strlen("को")] = '\0';
		for (size_t i = 0; !found && i < sizeof(ne_suits) / sizeof(ne_suits[0]); i++)
			if (strcmp(word, ne_suits[i].word) == 0) {
				if (suit)
					return -1;
				found = suit = ne_suits[i].code;
			}
		for (size_t i = 0; !found && i < sizeof(ne_ranks) / sizeof(ne_ranks[0]); i++)
			if (strcmp(word, ne_ranks[i].word) == 0) {
				if (rank)
					return -1;
				found = rank = ne_ranks[i].code;
			}
		if (!found && gb_parse_uint(word, 10, &v) == GB_OK && v >= 2) {
			if (rank)
				return -1;
			snprintf(digits, sizeof(digits), "%d", v);
			found = rank = digits;
		}
		if (!found)
			return -1;
	}
	if (!rank || !suit)
		return -1;
	snprintf(out, n, "%s%s", rank, suit);
	return 0;
}

int lang_parse(const char *code)
{
	if (!code)
		return -1;
	if (strcmp(code, "en") == 0)
		return LANG_EN;
	if (strcmp(code, "ne") == 0)
		return LANG_NE;
	return -1;
}

const char *lang_code(int lang)
{
	return lang == LANG_NE ? "ne" : "en";
}

/* The value of the digit at s (ASCII or Devanagari), its length in *len; -1 when none. */
static int digit_at(const char *s, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;

	*len = 0;
	if (*p >= '0' && *p <= '9') {
		*len = 1;
		return *p - '0';
	}
	if (p[0] == 0xe0 && p[1] == 0xa5 && p[2] >= 0xa6 && p[2] <= 0xaf) {
		*len = 3; /* U+0966..U+096F */
		return p[2] - 0xa6;
	}
	return -1;
}

static bool latin_at(const char *s)
{
	return (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z');
}

static void add_digit(struct strbuf *sb, int d, bool devanagari)
{
	char u[4] = { (char)0xe0, (char)0xa5, (char)(0xa6 + d), 0 };
	char a[2] = { (char)('0' + d), 0 };

	sb_add(sb, devanagari ? u : a);
}

/*
 * Append n bytes of text with its digit runs in the style, except a run
 * touching a Latin letter (c3, 10H, 2944031e).
 */
static void add_styled(struct strbuf *sb, const char *text, size_t n, bool devanagari)
{
	size_t i = 0, len;

	while (i < n) {
		size_t j = i;
		bool word = i > 0 && latin_at(text + i - 1);

		while (j < n && digit_at(text + j, &len) >= 0)
			j += len;
		if (j == i) {
			sb_addn(sb, text + i, 1);
			i++;
			continue;
		}
		if (word || (j < n && latin_at(text + j))) {
			sb_addn(sb, text + i, j - i);
		} else {
			for (; i < j; i += len)
				add_digit(sb, digit_at(text + i, &len), devanagari);
		}
		i = j;
	}
}

/*
 * Is s a number and nothing else (either digit set)? Up to 12 digits: a
 * longer run is a code to copy (a seed), not a number to read.
 */
static bool is_number(const char *s)
{
	size_t len;
	int n = 0;

	if (!*s)
		return false;
	for (; *s; s += len, n++)
		if (digit_at(s, &len) < 0 || n >= 12)
			return false;
	return true;
}

void i18n_vformat(struct strbuf *sb, bool devanagari, const char *fmt, va_list ap)
{
	const char *lit = fmt;

	while (*fmt) {
		char num[16];
		const char *arg;

		if (fmt[0] != '%' || !fmt[1]) {
			fmt++;
			continue;
		}
		add_styled(sb, lit, (size_t)(fmt - lit), devanagari);
		if (fmt[1] == 's') {
			arg = va_arg(ap, const char *);
			arg = arg ? arg : "(null)";
			if (is_number(arg))
				add_styled(sb, arg, strlen(arg), devanagari);
			else
				sb_add(sb, arg);
		} else if (fmt[1] == 'd') {
			snprintf(num, sizeof(num), "%d", va_arg(ap, int));
			add_styled(sb, num, strlen(num), devanagari);
		} else {
			sb_addn(sb, fmt + 1, 1); /* %% */
		}
		fmt += 2;
		lit = fmt;
	}
	add_styled(sb, lit, (size_t)(fmt - lit), devanagari);
}

void i18n_format(struct strbuf *sb, bool devanagari, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	i18n_vformat(sb, devanagari, fmt, ap);
	va_end(ap);
}
