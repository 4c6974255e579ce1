/*
 * script.h - `gamebot script`: the rules core driven line by line, exactly
 * per the script-mode contract (shared with outside checkers).
 */
#ifndef GB_SCRIPT_H
#define GB_SCRIPT_H

#include <stdio.h>

/*
 * Run `script` with argv[0] = "script". Reads actions from in, writes one
 * JSON object per action to out (flushed), option errors to err.
 * Returns the process exit status: 0, or 2 for bad options.
 */
int script_main(int argc, char **argv, FILE *in, FILE *out, FILE *err);

#endif
