/*
 * place.c - places within a chat (bot.h): "CHAT#THREAD" names a forum
 * topic of CHAT. The router keeps tables per place and everything else
 * per chat; adapters split a place to address the platform.
 */
#include <stdio.h>
#include <string.h>

#include "bot/bot.h"

const char *place_chat(const char *place, char *buf, size_t cap)
{
	const char *sep = strchr(place, PLACE_SEP);
	size_t n = sep ? (size_t)(sep - place) : strlen(place);

	if (cap == 0)
		return buf;
	if (n >= cap)
		n = cap - 1;
	memmove(buf, place, n); /* buf may be place itself: cut in place */
	buf[n] = '\0';
	return buf;
}

const char *place_thread(const char *place)
{
	const char *sep = strchr(place, PLACE_SEP);

	return sep ? sep + 1 : "";
}
