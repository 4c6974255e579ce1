/*
 * log.h - the service's log: one line per event on standard error,
 * "2026-12-01T14:00:00.123Z gamebot: <message>". Lines name the chat and
 * table they concern, never a token or a secret. Safe from any thread
 * (one write per line).
 *
 * Every line goes through one redacting formatter, gb_redact(), so a line
 * that names a database, an API URL or a configuration value cannot carry
 * what it holds: the password of a URL (scheme://user:***@host), the token
 * of a Bot API path (/bot***), the value of a key=value pair whose key is
 * a password, token or secret, a bearer token, and every value registered
 * with gb_log_secret() (the configured tokens and secrets) become "***".
 * Messages printed elsewhere (a command's own errors on stderr) pass
 * through gb_redact() too.
 */
#ifndef GB_LOG_H
#define GB_LOG_H

#include <stddef.h>

void gb_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Never show s in a line again: a copy is kept (up to 16 values; values
 * under 4 bytes, which would blank out ordinary words, are not kept).
 * Safe from any thread; meant for start-up, before the threads that log.
 */
void gb_log_secret(const char *s);

/* Forget every registered value (tests). */
void gb_log_secrets_clear(void);

/*
 * Copy in to out (cap bytes, always NUL-terminated when cap > 0) with every
 * secret it holds shown as "***" (see above). Returns the length written.
 */
size_t gb_redact(const char *in, char *out, size_t cap);

#endif
