/*
 * width.h - how many columns of a monospace view one character takes (0,
 * 1 or 2), the way terminals count them (wcwidth()), for every script a
 * name may be written in. Pure: no locale, no I/O.
 */
#ifndef GB_WIDTH_H
#define GB_WIDTH_H

#include <stdbool.h>
#include <stdint.h>

/* Columns of code point c: 0 (a combining mark, a control), 1 or 2 (wide). */
int width_of(uint32_t c);

#endif
