/*
 * files.h - the SQLite database's file on disk, for store/sqlite.c. The
 * database holds hidden card hands, unrevealed seeds and interaction
 * tokens, so what the store makes for it is private to its owner.
 */
#ifndef GB_STORE_FILES_H
#define GB_STORE_FILES_H

#include <stdbool.h>
#include <stddef.h>

/* Create the folders that will hold path, with their parents (mkdir -p), 0700. GB_OK or a gb_error. */
int store_make_parent(const char *path);

/*
 * Make the file at path 0600 before SQLite opens it; one already there
 * keeps its mode, but one others may read is named in a warning line once
 * per process.
 */
void store_make_private_file(const char *path);

/*
 * The file on disk SQLite opens for name into out (n bytes); false when it
 * opens none (":memory:", an in-memory URI, or a path out cannot hold).
 */
bool store_file_of(const char *name, char *out, size_t n);

#endif
