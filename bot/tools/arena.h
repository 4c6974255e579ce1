/*
 * arena.h - `gamebot arena`: computer players against each other, measured,
 * exactly per its contract, bot/tools/arena.md.
 */
#ifndef GB_ARENA_H
#define GB_ARENA_H

#include <stdio.h>

/* Run with argv[0] = "arena". Returns the exit status (2 for bad options). */
int arena_main(int argc, char **argv, FILE *out, FILE *err);

#endif
