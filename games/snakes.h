/*
 * snakes.h - rules core for snakes (placeholder until its rules land).
 */
#ifndef GB_SNAKES_H
#define GB_SNAKES_H

#include "game.h"

extern const struct gb_game snakes_game;

#endif
