/*
 * console.h - a local group chat in the terminal.
 *
 * Lines are "alice: /new ludo"; private views print as "(to alice only)".
 * Reads standard input, so a transcript can be piped in, and exits at end
 * of input once the work it started (computer turns) has settled. With a
 * pipe the clock is virtual: computer turns happen at once, and a line
 * ":wait 50" lets 50 seconds pass (idle autoplay). Same router, store and
 * renderers as the platforms.
 */
#ifndef GB_CONSOLE_H
#define GB_CONSOLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "adapters/adapter.h"
#include "bot/bot.h"

struct console_opts {
	const char *admins;   /* comma-separated user names, NULL = everyone is an admin */
	const char *chat;     /* chat id, default "console" */
	int interactive;      /* real clock and a prompt (a terminal) */
	/* Inside the service (serve): another thread runs the timers, and the
	 * console leaves when *stop becomes non-zero. NULL for `gamebot console`. */
	const atomic_int *stop;
};

/*
 * The console as one of the service's adapters: configured when no
 * platform token is set and standard input is a terminal. It reads the
 * terminal on its own thread and prints its own replies (no outbox
 * worker); at end of input it ends the service.
 */
extern const struct adapter console_adapter;

/*
 * Should `gamebot serve` play its standard input as the console does? Yes
 * when no platform is configured and standard input is a pipe or a file:
 * the lines then play exactly as `gamebot console` plays them (virtual
 * clock, computers move at once, :wait), and serve ends with them.
 */
bool console_piped(const struct config *cfg);

/* Run the console until end of input. Returns 0, or 1 on a store failure. */
int console_run(struct bot *b, const struct console_opts *o, FILE *in, FILE *out);

#endif
