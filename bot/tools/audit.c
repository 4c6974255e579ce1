/*
 * audit.c - `gamebot audit` (audit.h): the store's audit of the coins
 * ledger, every breach a line naming its chat, for an operator, a cron
 * job or a test harness to run against a live database (it only reads).
 */
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "tool_store.h"

#define BREACHES_PER_RULE 1000   /* lines a rule may print; the count says how many more */

struct report {
	struct store *s;
	FILE *out;
};

/* One breach, one line: the chat as its platform knows it, the rule, what is at fault. */
static void breach_line(const struct store_breach *b, void *arg)
{
	struct report *r = arg;
	struct store_chat c = { 0 };

	if (store_chat_get_by_id(r->s, b->chat, &c) != 0)
		snprintf(c.platform, sizeof c.platform, "?");
	fprintf(r->out, "chat %lld (%s:%s): %s: %s%s%lld\n", (long long)b->chat, c.platform, c.chat, b->rule,
		b->subject, b->subject[0] ? " " : "", (long long)b->value);
	store_chat_release(&c);
}

int audit_main(int argc, char **argv, const char *db, FILE *out, FILE *err)
{
	struct store *s = NULL;
	struct report r = { NULL, out };
	int64_t chats = 0, accounts = 0, movements = 0;
	int found = 0, rc, status = 2;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
			db = argv[++i];
		} else {
			fprintf(err, "usage: gamebot audit [--db PATH-or-postgresql-URL]\n");
			goto out;
		}
	}
	s = tool_store_open("audit", db, err);
	if (!s)
		goto out;
	r.s = s;
	rc = store_coins_audit_each(s, 0, BREACHES_PER_RULE, breach_line, &r, &found);
	if (rc == GB_OK)
		rc = store_coins_census(s, 0, &chats, &accounts, &movements);
	if (rc == GB_EINVARIANT) {
		fprintf(err, "gamebot audit: %d breach%s of the coins ledger's rules\n", found,
			found == 1 ? "" : "es");
		status = 1;
	} else if (rc) {
		fprintf(err, "gamebot audit: the store failed: %s\n", gb_strerror(rc));
	} else {
		fprintf(out, "coins ledger sound: %lld chat%s, %lld account%s, %lld movement%s\n",
			(long long)chats, chats == 1 ? "" : "s", (long long)accounts, accounts == 1 ? "" : "s",
			(long long)movements, movements == 1 ? "" : "s");
		status = 0;
	}
out:
	store_free(s);
	return status;
}
