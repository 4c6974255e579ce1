/*
 * name.h - display names as people write them, made fit to show: one
 * line, read left to right, never blank.
 *
 * A platform's display name (or a console name) goes through
 * name_clean() once, where the router cleans a command, so that seats,
 * boards, replies and log lines all show the same text. Pure: no I/O,
 * no allocation.
 */
#ifndef GB_BOT_NAME_H
#define GB_BOT_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Characters that have no place in a name: C0 and C1 controls, DEL, the
 * line and paragraph separators, the bidi controls that reorder what
 * follows them (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C),
 * and the invisible format characters (zero-width spaces, word joiners,
 * the BOM). ZWJ and ZWNJ are listed too: name_strip() keeps them between
 * two visible characters, where emoji sequences and scripts need them.
 */
bool name_unprintable(uint32_t c);

/*
 * Remove from the valid UTF-8 text s, in place, the name_unprintable()
 * characters (a joiner stays between two other characters). Returns how
 * many characters remain.
 */
int name_strip(char *s);

/* Does s hold a character that shows (not blanks, not a filler like U+3164, not only marks)? */
bool name_visible(const char *s);

/*
 * The name of someone whose own shows nothing: "Player NNNN", NNNN four
 * digits from their platform and id, the same every time (and the same
 * as the online tables give those who chose no name).
 */
void name_fallback(const char *platform, const char *user_id, char *out, size_t cap);

/*
 * Make the display name s (valid UTF-8, cap bytes) fit to show: strip it
 * (name_strip()), trim the blanks around it, and when nothing visible is
 * left, write name_fallback()'s "Player NNNN" in its place.
 */
void name_clean(char *s, size_t cap, const char *platform, const char *user_id);

#endif
