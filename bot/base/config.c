/*
 * config.c - see config.h. Every key is one row of the table below: the
 * file parser, the environment and the example file all follow it.
 */
#include "config.h"

#include <ctype.h>
#include <sodium.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/error.h"
#include "games/game.h"
#include "log.h"

struct key {
	const char *name;
	size_t off;
	size_t size;
	const char *def;
	int max;            /* 0: text; else a whole number 0..max stored in an int */
	const char *env;    /* environment name without GAMEBOT_, when not NAME in upper case */
	int bare;           /* also read without the GAMEBOT_ prefix (the prefixed one wins) */
};

#define K(n, d) { #n, offsetof(struct config, n), sizeof(((struct config *)0)->n), d, 0, NULL, 0 }
#define N(n, d, m) { #n, offsetof(struct config, n), sizeof(int), d, m, NULL, 0 }
/* the platforms' keys (Telegram, Discord), read with and without the prefix */
#define KT(n, d, e) { #n, offsetof(struct config, n), sizeof(((struct config *)0)->n), d, 0, e, 1 }
static const struct key keys[] = {
	K(db, "./var/gamebot.db"),
	K(listen, "127.0.0.1:8080"),
	K(lang, "en"),
	KT(telegram_token, "", NULL),
	KT(telegram_secret, "", NULL),
	KT(telegram_api, "https://api.telegram.org", "TELEGRAM_API_URL"),
	KT(telegram_mode, "polling", NULL),
	KT(telegram_pacing, "on", NULL),
	KT(discord_public_key, "", NULL),
	KT(discord_app_id, "", NULL),
	KT(discord_token, "", NULL),
	KT(discord_api, "https://discord.com/api/v10", "DISCORD_API_URL"),
	K(console_admins, ""),
	K(metrics_token, ""),
	K(metrics_listen, ""),
	N(http_max_connections, "10000", 1000000),
	N(http_per_ip_limit, "0", 1000000),
	N(http_timeout, "10", 3600),
	N(http_workers, "16", 64),
	N(outbox_workers, "2", 8),
	N(outbox_lease_seconds, "30", 3600),
	N(processed_keep_days, "7", 3650),
	N(watch_max, "20", 100000),
	N(watch_per_hour, "6", 1000),
	N(rate_user_per_min, "30", 100000),
	N(rate_chat_per_min, "120", 100000),
	N(state_cache, "25000", 10000000),
	N(rate_limit_slots, "131072", 16777216),
	N(verify_keep_days, "30", 36500),
	N(aside_keep_days, "30", 36500),
	N(prune_every_minutes, "10", 1440),
	N(prune_batch, "1000", 1000000),
	K(online, "on"),
	N(online_fill_after, "30", 3600),
	N(online_autoplay_after, "45", 3600),
	N(online_starting_coins, "1000", 1000000),
};
#undef K
#undef N
#undef KT

/* Set key k from text v; GB_ECONFIG when a number is not one (in range). */
static int set(struct config *c, const struct key *k, const char *v)
{
	int n;

	if (!k->max) {
		snprintf((char *)c + k->off, k->size, "%s", v);
		return GB_OK;
	}
	if (gb_parse_uint(v, k->max, &n))
		return GB_ECONFIG;
	memcpy((char *)c + k->off, &n, sizeof(n));
	return GB_OK;
}

void config_init(struct config *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		(void)set(c, &keys[i], keys[i].def); /* the defaults are valid */
}

static const struct key *find(const char *name)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int load_file(struct config *c, FILE *f, const char *path, char *err, size_t errlen)
{
	char line[1024];
	int lineno = 0;

	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq, *key, *val;
		const struct key *k;

		lineno++;
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
			return GB_ECONFIG;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		k = find(key);
		if (!k) {
			snprintf(err, errlen, "%s:%d: unknown key '%s'", path, lineno, key);
			return GB_ECONFIG;
		}
		if (set(c, k, val)) {
			snprintf(err, errlen, "%s:%d: %s must be a whole number from 0 to %d", path, lineno,
				 key, k->max);
			return GB_ECONFIG;
		}
	}
	return GB_OK;
}

int config_load(struct config *c, const char *path, char *err, size_t errlen)
{
	int rc = GB_OK;
	FILE *f = NULL;
	const char *file = path ? path : getenv("GAMEBOT_CONFIG");

	config_init(c);
	err[0] = '\0';
	if (file) {
		f = fopen(file, "r");
		if (!f) {
			snprintf(err, errlen, "cannot read config file '%s'", file);
			return GB_ECONFIG;
		}
	} else {
		file = "config/gamebot.conf";
		f = fopen(file, "r");
	}
	if (f) {
		rc = load_file(c, f, file, err, errlen);
		fclose(f);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char name[48], env[64];
		const char *v;
		size_t n = (size_t)snprintf(name, sizeof(name), "%s", keys[i].env ? keys[i].env : keys[i].name);

		for (size_t j = 0; j < n && j < sizeof(name); j++)
			name[j] = (char)toupper((unsigned char)name[j]);
		v = keys[i].bare ? getenv(name) : NULL;
		if (v)
			set(c, &keys[i], v); /* text keys only: cannot fail */
		snprintf(env, sizeof(env), "GAMEBOT_%s", name);
		v = getenv(env);
		if (!v && keys[i].env) {
			/* the key's own name works too: GAMEBOT_TELEGRAM_API, GAMEBOT_DISCORD_API */
			n = (size_t)snprintf(env, sizeof(env), "GAMEBOT_%s", keys[i].name);
			for (size_t j = 8; j < n && j < sizeof(env); j++)
				env[j] = (char)toupper((unsigned char)env[j]);
			v = getenv(env);
		}
		if (v && set(c, &keys[i], v)) {
			snprintf(err, errlen, "%s must be a whole number from 0 to %d", env, keys[i].max);
			return GB_ECONFIG;
		}
	}
	if (strcmp(c->telegram_mode, "polling") && strcmp(c->telegram_mode, "webhook")) {
		snprintf(err, errlen, "telegram_mode must be polling or webhook, not '%s'", c->telegram_mode);
		return GB_ECONFIG;
	}
	if (strcmp(c->telegram_pacing, "on") && strcmp(c->telegram_pacing, "off")) {
		snprintf(err, errlen, "telegram_pacing must be on or off, not '%s'", c->telegram_pacing);
		return GB_ECONFIG;
	}
	if (strcmp(c->online, "on") && strcmp(c->online, "off")) {
		snprintf(err, errlen, "online must be on or off, not '%s'", c->online);
		return GB_ECONFIG;
	}
	if (strcmp(c->lang, "en") && strcmp(c->lang, "ne")) {
		snprintf(err, errlen, "lang must be en or ne, not '%s'", c->lang);
		return GB_ECONFIG;
	}
	return GB_OK;
}

/* Register the password of the database URL (user:password@), as it is written. */
static void hide_db_password(const char *db)
{
	const char *a = strstr(db, "://"), *at = NULL, *colon = NULL;
	char pw[CONFIG_VALUE_LEN];

	/* the authority ends at the path, the query or the fragment; its last "@" ends the user part */
	for (const char *p = a ? a + 3 : ""; *p && !strchr("/?#", *p); p++)
		if (*p == '@')
			at = p;
	if (at)
		colon = memchr(a + 3, ':', (size_t)(at - (a + 3)));
	if (colon) {
		snprintf(pw, sizeof(pw), "%.*s", (int)(at - colon - 1), colon + 1);
		gb_log_secret(pw);
		sodium_memzero(pw, sizeof(pw));
	}
}

void config_hide_secrets(const struct config *c)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		size_t n = strlen(keys[i].name);

		if (keys[i].max)
			continue;
		if ((n > 6 && strcmp(keys[i].name + n - 6, "_token") == 0) ||
		    (n > 7 && strcmp(keys[i].name + n - 7, "_secret") == 0))
			gb_log_secret((const char *)c + keys[i].off);
	}
	hide_db_password(c->db);
}
