/*
 * audit.h - `gamebot audit`: the coins ledger of every chat (the online
 * world's too) checked against its rules, as the store states them
 * (store_coins_audit_each()): every chat's accounts add up to 0, one
 * starting grant an account, no account but a bank below 0, each kept
 * balance the sum of its ledger rows, only a table being played holding
 * a pot. What the schema refuses is checked again here, on what the
 * database holds, so a row written by hand or a database restored from
 * elsewhere is found too.
 */
#ifndef GB_AUDIT_H
#define GB_AUDIT_H

#include <stdio.h>

/*
 * `gamebot audit [--db PATH-or-postgresql-URL]` with argv[0] = "audit";
 * db is the database when --db is not given. Prints one line to out,
 * the summary, when the ledger is sound, else one line per breach (and
 * their count to err); returns
 * the exit status: 0 sound, 1 a breach found, 2 bad arguments or a
 * database that cannot be opened or read.
 */
int audit_main(int argc, char **argv, const char *db, FILE *out, FILE *err);

#endif
