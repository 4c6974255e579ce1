/*
 * config.h - service settings: embedded defaults, then a config file
 * (key = value lines; config/gamebot.conf.example documents every key),
 * then environment variables (GAMEBOT_<KEY in upper case>), last wins.
 * Telegram's keys are also read without the prefix (TELEGRAM_TOKEN,
 * TELEGRAM_SECRET, TELEGRAM_API_URL, TELEGRAM_MODE), and so are Discord's
 * (DISCORD_APP_ID, DISCORD_PUBLIC_KEY, DISCORD_TOKEN, DISCORD_API_URL): the
 * spellings their documentation and hosting guides use; the GAMEBOT_
 * spelling wins when both are set.
 */
#ifndef GB_CONFIG_H
#define GB_CONFIG_H

#include <stddef.h>

#define CONFIG_VALUE_LEN 256

struct config {
	char db[CONFIG_VALUE_LEN];                 /* SQLite file (./var/gamebot.db), or a
	                                              postgres:// URL */
	char listen[CONFIG_VALUE_LEN];             /* host:port of the HTTP listener: 127.0.0.1:8080 */
	char lang[8];                              /* default chat language: en */
	char telegram_token[CONFIG_VALUE_LEN];     /* Bot API token; empty = no Telegram */
	char telegram_secret[CONFIG_VALUE_LEN];    /* X-Telegram-Bot-Api-Secret-Token expected */
	char telegram_api[CONFIG_VALUE_LEN];       /* API base URL (tests point it at 127.0.0.1);
	                                              env TELEGRAM_API_URL */
	char telegram_mode[16];                    /* "polling" (default) or "webhook" */
	char telegram_pacing[8];                   /* "on"; "off" only for tests and benchmarks */
	char discord_public_key[CONFIG_VALUE_LEN]; /* application public key (hex); empty = no Discord */
	char discord_app_id[CONFIG_VALUE_LEN];     /* application id (interaction webhooks, registration) */
	char discord_token[CONFIG_VALUE_LEN];      /* bot token: channel messages, registration */
	char discord_api[CONFIG_VALUE_LEN];        /* API base URL (tests point it at 127.0.0.1);
	                                              env DISCORD_API_URL */
	char console_admins[CONFIG_VALUE_LEN];     /* console: admin names, empty = everyone */
	char metrics_token[CONFIG_VALUE_LEN];      /* GET /metrics needs "Authorization: Bearer
	                                              <this>"; empty = open */
	char metrics_listen[CONFIG_VALUE_LEN];     /* host:port serving /metrics alone (then the
	                                              main listener does not); empty = the main one */
	/* numbers (validated at load) */
	int http_max_connections;                  /* listener connection limit: 10000 */
	int http_per_ip_limit;                     /* connections per client address, 0 = off */
	int http_timeout;                          /* seconds before an idle or slow client is dropped: 10 */
	int http_workers;                          /* threads running webhook handlers: 16 (commands waiting together share a commit) */
	int outbox_workers;                        /* delivery threads per platform: 2 */
	int outbox_lease_seconds;                  /* a claim not ended by then (its instance died)
	                                              is delivered again: 30 */
	int processed_keep_days;                   /* update ids kept against redelivery: 7 */
	int watch_max;                             /* computer-only tables open at once, all chats: 20 */
	int watch_per_hour;                        /* computer-only games one chat may start per hour: 6 */
	int rate_user_per_min;                     /* commands one user may send per chat per minute: 30 */
	int rate_chat_per_min;                     /* commands one chat may send per minute: 120 */
	/* memory kept against the number of chats (docs/scaling.md, "How many chats one machine serves") */
	int state_cache;                           /* decoded table states kept: 25000 */
	int rate_limit_slots;                      /* windows the rate limits keep: 131072 */
	/* what the database keeps (pruned on a schedule, prune_batch rows a transaction) */
	int verify_keep_days;                      /* finished tables kept with their move logs
	                                              (/verify, /board): 30; 0 = forever */
	int aside_keep_days;                       /* outbox rows set aside kept: 30; 0 = forever */
	int prune_every_minutes;                   /* how often pruning runs: 10 */
	int prune_batch;                           /* rows deleted per transaction: 1000 */
	/* online tables: people from different chats and platforms at one table */
	char online[8];                            /* "on" (default) or "off" */
	int online_fill_after;                     /* seconds before computers may fill free seats: 30 */
	int online_autoplay_after;                 /* seconds before an away player's turn is played: 45 */
	int online_starting_coins;                 /* a new online wallet's grant: 1000 */
};

/* Defaults only. */
void config_init(struct config *c);

/*
 * Defaults, then the file at path (NULL: $GAMEBOT_CONFIG, else
 * config/gamebot.conf when it exists), then the environment.
 * Returns GB_OK, or GB_ECONFIG with a message in err (unknown key, bad line,
 * unreadable named file).
 */
int config_load(struct config *c, const char *path, char *err, size_t errlen);

/*
 * Hand every secret of c to the log's formatter (gb_log_secret): each
 * key named *_token or *_secret and the database URL's password, so no
 * line shows them whatever it quotes. Call once, after loading.
 */
void config_hide_secrets(const struct config *c);

#endif
