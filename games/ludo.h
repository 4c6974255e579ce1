/*
 * ludo.h - rules core for ludo (placeholder until its rules land).
 */
#ifndef GB_LUDO_H
#define GB_LUDO_H

#include "game.h"

extern const struct gb_game ludo_game;

#endif
