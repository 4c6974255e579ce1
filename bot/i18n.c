/*
 * i18n.c - picks catalogue entries by language, falling back to English so a
 * missing translation shows English words rather than nothing.
 */
#include "i18n.h"

#include <stdio.h>
#include <string.h>

#include "games/game.h"

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
