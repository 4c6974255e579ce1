/*
 * verify.h - proof that a table's dice and deals were fixed before its
 * first move.
 *
 * Every table's seed is 32 bytes from the operating system, written as 64
 * hex digits; the game's generator is seeded with its first 16 (a 64-bit
 * number) and the rest only make the seal unguessable. The seal is the
 * SHA-256 of the 32 bytes: shown in the table message from the start, with
 * the seed revealed at the end. A move log (below) and the revealed seed
 * are then enough to replay the whole game and compare every die, deal
 * and event with what was played: /verify does it in the chat, and
 * `gamebot verify SEED MOVELOG` anywhere, with no database.
 *
 * The move log is text, one JSON object a line (bot/tools/verify.md):
 *   {"movelog":1,"table":12,"game":"ludo","players":4,"rules":{...},"seal":"9f86…"}
 *   {"seq":1,"seat":0,"action":"roll","did":["roll 6","enter"]}
 *   ...
 * "did" is what the action did, in the words of `gamebot script`. Lines
 * that do not start with "{" are ignored, so a log pasted from several
 * chat messages reads as one.
 */
#ifndef GB_VERIFY_H
#define GB_VERIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "games/strbuf.h"
#include "store/store.h"

enum verify_verdict {
	VERIFY_OK = 0,      /* every move replays from the seed to exactly what was played */
	VERIFY_BAD_SEED,    /* the seed is not 64 hex digits */
	VERIFY_BAD_LOG,     /* the move log cannot be read (line in .seq) */
	VERIFY_SEAL,        /* the seed's SHA-256 is not the log's seal */
	VERIFY_SEQ,         /* moves missing or out of order (at .seq) */
	VERIFY_SEAT,        /* move .seq was logged for a seat whose turn it was not */
	VERIFY_REFUSED,     /* move .seq is not possible in the game the seed deals */
	VERIFY_MISMATCH,    /* move .seq did .logged in the log, .replayed from the seed */
};

struct verify_result {
	int verdict;                   /* enum verify_verdict */
	int moves;                     /* moves replayed without a difference */
	int seq;                       /* the move (or log line) where it went wrong */
	char action[64];               /* that move's action */
	char logged[256];              /* what the log says it did */
	char replayed[256];            /* what it does from the seed */
	char seal[65];                 /* the log's seal */
	char seal_of_seed[65];         /* SHA-256 of the seed given */
	int64_t table;                 /* the log's table number, 0 unknown */
	char game[16];
	bool over;                     /* the replayed game reached its end */
};

/* Is seed 64 hex digits? */
bool verify_seed_ok(const char *seed);

/* The 64-bit seed the game's generator starts from: the seed's first 16 hex digits. */
uint64_t verify_game_seed(const char *seed);

/* The seal of seed: SHA-256 of its 32 bytes, as 64 lowercase hex digits. */
void verify_seal(const char *seed, char out[65]);

/*
 * Write the move log of table (see above) to out, sealed with seal (the
 * SHA-256 of the table's seed; "" for none). GB_ENOTFOUND if no such table.
 */
int verify_movelog(struct store *s, int64_t table, const char *seal, struct strbuf *out);

/*
 * Replay movelog from seed; the verdict and its details go to *res.
 * Returns GB_OK when a verdict was reached (whatever it is), GB_ENOMEM.
 */
int verify_run(const char *seed, const char *movelog, struct verify_result *res);

/* The verdict as one English line (for the command line). */
void verify_describe(const struct verify_result *res, struct strbuf *out);

/*
 * `gamebot verify SEED MOVELOG` with argv[0] = "verify" (MOVELOG a file, or
 * "-" for standard input). Prints the verdict; returns the exit status: 0
 * verified, 1 not verified, 2 bad arguments or an unreadable file.
 */
int verify_main(int argc, char **argv, FILE *out, FILE *err);

#endif
