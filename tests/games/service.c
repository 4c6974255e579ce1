/*
 * service.c - the gamebot binary with the games only the tests play
 * added: each by its one row, registered before the command line runs.
 * Everything else is the real service (adapters/cli.c).
 */
#include <stdio.h>

#include "adapters/cli.h"
#include "bot/render/games.h"
#include "games/error.h"
#include "tests/games/tictactoe.h"

int main(int argc, char **argv)
{
	int rc = bot_game_register(&tictactoe_row);

	if (rc) {
		fprintf(stderr, "gamebot: tictactoe not added: %s\n", gb_strerror(rc));
		return 1;
	}
	return gamebot_main(argc, argv);
}
