/*
 * main.c - the single gamebot binary: one subcommand per job.
 *
 *   gamebot script GAME [...]   the rules core driven line by line
 *   gamebot serve               the service (console chat without platform tokens)
 */
#include <stdio.h>
#include <string.h>

#include "script.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: gamebot COMMAND [ARGS]\n"
		   "  script GAME [options]   play one game line by line (JSON out)\n"
		   "  serve                   run the service\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "script") == 0)
		return script_main(argc - 1, argv + 1, stdin, stdout, stderr);
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
