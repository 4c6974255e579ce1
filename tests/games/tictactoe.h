/*
 * tictactoe.h - a fifth game that only the tests play: Tic-tac-toe, whole
 * in one file (tests/games/tictactoe.c) - its rules module with computer
 * players, its renderer and its row - and added to the bot by one call:
 *
 *     bot_game_register(&tictactoe_row);
 *
 * Crosses (seat 1) and noughts (seat 2) are fixed sides; crosses start.
 * A move is "place b2" (files a-c, ranks 1-3). The computer players: easy
 * takes a winning square when there is one, medium also blocks, hard
 * plays perfectly.
 */
#ifndef GB_TESTS_TICTACTOE_H
#define GB_TESTS_TICTACTOE_H

#include <stdint.h>

#include "bot/render/games.h"
#include "games/game.h"

#define TTT_CELLS 9

enum ttt_event {
	TTT_EV_PLACE = 1, /* seat placed its mark on cell a        "place b2" */
	TTT_EV_WIN,       /* seat made line a (0..7) of three      "win" */
	TTT_EV_DRAW,      /* the grid is full                      "draw" */
};

struct ttt {
	int8_t cell[TTT_CELLS];   /* -1 empty, else the seat whose mark it holds; a1 b1 c1 a2 ... c3 */
	int8_t to_move;           /* 0 crosses, 1 noughts */
	int8_t winner;            /* -1 none */
	int8_t draw;
	int8_t moves;
	struct gb_rules rules;
};

extern const struct gb_game tictactoe_game;
extern const struct bot_game tictactoe_row;

#endif
