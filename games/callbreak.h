/*
 * callbreak.h - rules core for callbreak (placeholder until its rules land).
 */
#ifndef GB_CALLBREAK_H
#define GB_CALLBREAK_H

#include "game.h"

extern const struct gb_game callbreak_game;

#endif
