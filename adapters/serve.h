/*
 * serve.h - `gamebot serve`: the service, composed from its parts.
 *
 * It opens the store, starts every adapter whose configuration is present
 * (the console when no platform token is set and a terminal is there), an
 * outbox worker for each adapter that delivers, and the HTTP listener with
 * their routes and GET /healthz; then it runs the timers (computer turns,
 * idle autoplay, watch-mode rounds) and prunes old update ids until SIGTERM
 * or SIGINT (or the console's end of input). Stopping finishes the
 * transaction in flight, stops the listener, the adapters and the workers,
 * and returns 0. One log line at start, at stop and per delivery failure.
 */
#ifndef GB_SERVE_H
#define GB_SERVE_H

#include "bot/bot.h"
#include "bot/base/config.h"

/* Run the service until asked to stop. Returns 0, or 1 when it cannot start. */
int serve_main(const struct config *cfg);

/* The bot settings the service derives from cfg. */
void serve_bot_config(const struct config *cfg, struct bot_config *out);

#endif
