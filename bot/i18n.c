/*
 * i18n.c - picks catalogue entries by language, falling back to English so a
 * missing translation shows English words rather than nothing.
 */
#include "i18n.h"

#include <string.h>

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
