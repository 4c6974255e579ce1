/*
 * jsonchat.h - a third platform that only the tests know: the smallest
 * chat protocol that shows what a platform has to write and what it gets
 * from adapters/deliver.h and the outbox for free.
 *
 * The protocol is JSON over HTTP at one base address:
 *   POST /send  {"chat", "text", "buttons": [LABEL, ...]} -> 200 {"id"}
 *   POST /edit  {"chat", "id", "text", "buttons"}          -> 200 {"id"}
 *   POST /strip {"chat", "id"} (the message's buttons off)  -> 200 {}
 *   GET  /ping                                             -> 200 {}
 * and its failures: 404 {"error": "no such message"}, 403 {"error":
 * "closed"} (a person's private chat never opened) or {"error": "gone"}
 * (the bot is out of the chat), 429 {"retry_ms"}, 401, 5xx.
 *
 * A private view goes to the person's own chat (their user id); when that
 * is closed, a line in the group tells them to open it.
 */
#ifndef GB_TESTS_JSONCHAT_H
#define GB_TESTS_JSONCHAT_H

#include "adapters/adapter.h"

/* Its adapter; start() reads the base address from GAMEBOT_JSONCHAT_API. */
extern const struct adapter jsonchat_adapter;

#endif
