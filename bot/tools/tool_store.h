/*
 * tool_store.h - the database an operator's command works on (`gamebot
 * audit`, `gamebot requeue`): --db, else the configured one.
 */
#ifndef GB_TOOL_STORE_H
#define GB_TOOL_STORE_H

#include <stdio.h>

#include "store/store.h"

/*
 * Open db (a file path or a postgresql:// URL) for the command named tool;
 * NULL, said in one line on err, when none is named, a path names no file
 * (a mistyped path, not a database to make), or it cannot be opened.
 */
struct store *tool_store_open(const char *tool, const char *db, FILE *err);

#endif
