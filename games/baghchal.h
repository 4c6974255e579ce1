/*
 * baghchal.h - rules core for baghchal (placeholder until its rules land).
 */
#ifndef GB_BAGHCHAL_H
#define GB_BAGHCHAL_H

#include "game.h"

extern const struct gb_game baghchal_game;

#endif
