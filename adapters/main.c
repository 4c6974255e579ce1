/*
 * main.c - the gamebot binary: the command line of adapters/cli.c, with
 * the games built in.
 */
#include "adapters/cli.h"

int main(int argc, char **argv)
{
	return gamebot_main(argc, argv);
}
