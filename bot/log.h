/*
 * log.h - the service's log: one line per event on standard error,
 * "2026-12-01T14:00:00.123Z gamebot: <message>". Lines name the chat and
 * table they concern, never a token or a secret. Safe from any thread
 * (one write per line).
 */
#ifndef GB_LOG_H
#define GB_LOG_H

void gb_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
