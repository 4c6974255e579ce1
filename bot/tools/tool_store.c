/*
 * tool_store.c - see tool_store.h.
 */
#include <string.h>
#include <sys/stat.h>

#include "tool_store.h"

struct store *tool_store_open(const char *tool, const char *db, FILE *err)
{
	struct store *s = NULL;
	struct stat st;
	int rc;

	if (!db || !db[0]) {
		fprintf(err, "gamebot %s: no database (--db PATH, or db in the configuration)\n", tool);
		return NULL;
	}
	if (strncmp(db, "postgres://", 11) && strncmp(db, "postgresql://", 13) && stat(db, &st) != 0) {
		fprintf(err, "gamebot %s: no database at '%s'\n", tool, db);
		return NULL;
	}
	rc = store_open(&s, db);
	if (rc) {
		fprintf(err, "gamebot %s: cannot open the store: %s\n", tool, gb_strerror(rc));
		store_free(s);
		return NULL;
	}
	return s;
}
