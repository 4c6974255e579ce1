/*
 * aged.h - a database as a year of play leaves it, made quickly for the
 * benchmarks (bulk inserts in one transaction), then pruned the way the
 * service prunes it on its schedule (bot_prune_step(), the configured
 * windows and batch). Header only (static inline), like bench.h.
 *
 * A year: `games` finished Ludo games spread evenly over the last 365
 * days in the benchmark's own chats (each with its two seats, sealed
 * seed, a move log of `moves` moves and its players' stats), `processed`
 * Telegram update ids spread the same way, and a row set aside for every
 * twentieth game.
 */
#ifndef GB_BENCH_AGED_H
#define GB_BENCH_AGED_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bot/base/config.h"
#include "bot/bot.h"
#include "tests/bench/bench.h"

#define AGED_YEAR_MS (365LL * 24 * 3600 * 1000)

struct aged {
	int chats, games, moves, processed;
	int64_t now_ms;
	/* what was made and what pruning left */
	double build_s, prune_s;
	long long bytes_built, bytes_pruned, free_pages;
	struct bot_pruned pruned;
	long long tables_left, moves_left, processed_left;
};

static inline int aged_step(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static inline long long aged_one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long n = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static inline long long aged_bytes(const char *path)
{
	struct stat sb;
	char wal[300];
	long long n = 0;

	if (stat(path, &sb) == 0)
		n += sb.st_size;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &sb) == 0)
		n += sb.st_size;
	return n;
}

/* One finished game g of the year in chat (store id) chat, by the chat's two people u0, u0 + 1. */
static inline int aged_game(sqlite3 *db, sqlite3_stmt **st, const struct aged *a, int g, int64_t chat, int u0)
{
	int64_t created = a->now_ms - AGED_YEAR_MS + AGED_YEAR_MS * g / a->games, table;
	char seed[65], user[16];
	int rc = 0;

	sqlite3_bind_int64(st[0], 1, chat);
	sqlite3_bind_int64(st[0], 2, a->moves + 3);
	sqlite3_bind_int64(st[0], 3, g);
	sqlite3_bind_int64(st[0], 4, created + 20 * 60 * 1000);
	sqlite3_bind_int64(st[0], 5, created);
	rc |= aged_step(st[0]);
	table = sqlite3_last_insert_rowid(db);
	for (int s = 0; s < 2; s++) {
		snprintf(user, sizeof(user), "%d", u0 + s);
		sqlite3_bind_int64(st[1], 1, table);
		sqlite3_bind_int(st[1], 2, s);
		sqlite3_bind_text(st[1], 3, user, -1, SQLITE_TRANSIENT);
		rc |= aged_step(st[1]);
		sqlite3_bind_int64(st[4], 1, chat);
		sqlite3_bind_text(st[4], 2, user, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st[4], 3, s == g % 2);
		rc |= aged_step(st[4]);
	}
	snprintf(seed, sizeof(seed), "%064x", g);
	sqlite3_bind_int64(st[2], 1, table);
	sqlite3_bind_text(st[2], 2, seed, -1, SQLITE_TRANSIENT);
	rc |= aged_step(st[2]);
	for (int m = 1; m <= a->moves; m++) {
		sqlite3_bind_int64(st[3], 1, table);
		sqlite3_bind_int(st[3], 2, m);
		sqlite3_bind_int(st[3], 3, m % 2);
		rc |= aged_step(st[3]);
	}
	if (g % 20 == 0) {
		sqlite3_bind_int64(st[5], 1, table);
		sqlite3_bind_int64(st[5], 2, created + 20 * 60 * 1000);
		rc |= aged_step(st[5]);
	}
	return rc;
}

/* The year's rows into the (migrated) file at path: chats "-100<1000 + i>", people "<2i + 1>", "<2i + 2>". */
static inline int aged_build(const char *path, struct aged *a)
{
	static const char *const sql[] = {
		"INSERT INTO tables (chat_id, game, status, version, seed, creator, message, turn_started_ms,"
		" rules, state, watch, created_ms) VALUES (?1, 'ludo', 2, ?2, ?3, '1', '7', ?4, '{}',"
		" printf('{\"game\":{\"game\":\"ludo\",\"players\":2,\"pad\":\"%0560d\"},\"seq\":%d}', ?3, ?2),"
		" 0, ?5)",
		"INSERT INTO seats (table_id, seat, user_id, name, level) VALUES (?1, ?2, ?3, 'P' || ?3, -1)",
		"INSERT INTO table_terms (table_id, seed, stake) VALUES (?1, ?2, 0)",
		"INSERT INTO moves (table_id, seq, actor, action, events) VALUES (?1, ?2, ?3, 'roll',"
		" '[[1,' || ?3 || ',4,0,0]]')",
		"INSERT INTO stats (chat_id, user_id, game, name, games, wins, points) VALUES (?1, ?2, 'ludo',"
		" 'P' || ?2, 1, ?3, 0) ON CONFLICT (chat_id, user_id, game) DO UPDATE SET games = games + 1,"
		" wins = wins + excluded.wins",
		"INSERT INTO outbox (platform, chat, payload, due_ms, table_id, aside_ms, aside_why)"
		" VALUES ('telegram', '-1001', '{\"kind\":\"public\",\"text\":\"x\"}', ?2, ?1, ?2,"
		" 'chat not found')",
		"INSERT INTO processed (platform, update_id, at) VALUES ('telegram', ?1, ?2)",
		"INSERT INTO chats (platform, chat) VALUES ('telegram', ?1) ON CONFLICT DO NOTHING",
		"SELECT id FROM chats WHERE platform = 'telegram' AND chat = ?1",
	};
	enum { NST = sizeof(sql) / sizeof(sql[0]) };
	sqlite3_stmt *st[NST] = { 0 };
	sqlite3 *db = NULL;
	int64_t *ids = calloc((size_t)a->chats, sizeof(*ids)), t0 = mono_us();
	int rc = ids && sqlite3_open(path, &db) == SQLITE_OK ? 0 : -1;

	for (int i = 0; !rc && i < NST; i++)
		rc = sqlite3_prepare_v2(db, sql[i], -1, &st[i], NULL) == SQLITE_OK ? 0 : -1;
	if (!rc)
		rc = sqlite3_exec(db, "PRAGMA foreign_keys = ON; BEGIN", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	for (int i = 0; !rc && i < a->chats; i++) {
		char chat[32];

		snprintf(chat, sizeof(chat), "-100%d", 1000 + i);
		sqlite3_bind_text(st[7], 1, chat, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(st[8], 1, chat, -1, SQLITE_TRANSIENT);
		rc = aged_step(st[7]);
		if (!rc && sqlite3_step(st[8]) == SQLITE_ROW)
			ids[i] = sqlite3_column_int64(st[8], 0);
		sqlite3_reset(st[8]);
	}
	for (int g = 0; !rc && g < a->games; g++)
		rc = aged_game(db, st, a, g, ids[g % a->chats], 2 * (g % a->chats) + 1);
	for (int k = 0; !rc && k < a->processed; k++) {
		char id[24];

		snprintf(id, sizeof(id), "%d", k + 1);
		sqlite3_bind_text(st[6], 1, id, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st[6], 2, (a->now_ms - AGED_YEAR_MS + AGED_YEAR_MS * k / a->processed) / 1000);
		rc = aged_step(st[6]);
	}
	if (!rc)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
	if (!rc)
		sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	for (int i = 0; i < NST; i++)
		sqlite3_finalize(st[i]);
	sqlite3_close(db);
	free(ids);
	a->build_s = (mono_us() - t0) / 1e6;
	a->bytes_built = aged_bytes(path);
	return rc;
}

/* Prune the file as the service does on its schedule, with its default windows and batch; time it. */
static inline int aged_prune(const char *path, struct aged *a)
{
	struct config cfg;
	struct bot_prune p;
	struct store *s = NULL;
	sqlite3 *db = NULL;
	int64_t t0 = mono_us();
	int rc;

	config_init(&cfg);
	p = (struct bot_prune){ cfg.processed_keep_days, cfg.verify_keep_days, cfg.aside_keep_days,
				cfg.prune_batch };
	if (store_open(&s, path))
		return -1;
	while ((rc = bot_prune_step(s, &p, a->now_ms, &a->pruned)) > 0)
		;
	store_free(s);
	a->prune_s = (mono_us() - t0) / 1e6;
	if (rc || sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	a->tables_left = aged_one(db, "SELECT count(*) FROM tables");
	a->moves_left = aged_one(db, "SELECT count(*) FROM moves");
	a->processed_left = aged_one(db, "SELECT count(*) FROM processed");
	a->free_pages = aged_one(db, "PRAGMA freelist_count");
	sqlite3_close(db);
	a->bytes_pruned = aged_bytes(path);
	return 0;
}

#endif
