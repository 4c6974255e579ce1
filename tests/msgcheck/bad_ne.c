/*
 * bad_ne.c - a Nepali catalogue with three faults, which the generator of
 * msg_fmt.h (bot/gen/msgfmt.c) must refuse, naming each key: `make check`
 * links it in place of bot/lang/msg_ne.c (tests/msgcheck/run.sh). Keys left out
 * fall back to English and are no fault.
 */
#include "bot/lang/i18n.h"

const char *const msg_ne[M_COUNT] = {
	[M_JOINED] = "%s सिट %sमा बस्नुभयो।",   /* one argument short */
	[M_CONSOLE_NAME] = "%s बाइटसम्म",      /* a text where English takes a number */
	[M_WINNER] = "%s जित्नुभयो! %x",       /* a conversion the formatter does not read */
	[M_LEFT] = "%s टेबलबाट उठ्नुभयो।",     /* right */
};
