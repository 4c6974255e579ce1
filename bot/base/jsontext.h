/*
 * jsontext.h - a JSON value's compact text, written in one pass.
 *
 * json_compact(j) gives exactly the text json_dumps(j, JSON_COMPACT) gives
 * (keys in their order, the same escapes, NULL where it gives NULL), at a
 * fraction of its cost: a command writes its table's state and every
 * reply as text, boards of a few kilobytes each, and the library looks at
 * them character by character and keeps a table of the containers it is
 * inside. Text that needs no escape is copied in runs; what this does not
 * write itself (a real number, a string that is not UTF-8, a value that
 * is not an object or array, nesting past 64 levels) it leaves to
 * json_dumps(). The caller frees the text.
 */
#ifndef GB_BOT_JSONTEXT_H
#define GB_BOT_JSONTEXT_H

#include <jansson.h>

char *json_compact(const json_t *j);

#endif
