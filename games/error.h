/*
 * error.h - the one error enum of gamebot.
 *
 * Every fallible function in the project returns an int that is GB_OK (0) or
 * one of these codes. Bad user input is an error code that becomes a polite
 * reply; a broken invariant is an assert, never an error code.
 * gb_errname() gives the short machine code used in JSON ("illegal"),
 * gb_strerror() a human sentence. Both return static strings.
 */
#ifndef GB_ERROR_H
#define GB_ERROR_H

enum gb_error {
	GB_OK = 0,          /* success */
	GB_ENOMEM,          /* an allocation failed */
	GB_EPARSE,          /* an action or argument could not be read */
	GB_EILLEGAL,        /* a well-formed action that the rules forbid now */
	GB_ETURN,           /* it is not this player's turn */
	GB_EPHASE,          /* the action belongs to another phase of the game */
	GB_EOVER,           /* the game is already over */
	GB_ERULE_KEY,       /* no such house rule for this game */
	GB_ERULE_VALUE,     /* that house rule does not take this value */
	GB_EPLAYERS,        /* the number of players is outside the game's range */
	GB_EGAME,           /* no such game */
	GB_ESTATE,          /* a saved state could not be read back */
	GB_EINVARIANT,      /* a state broke one of its game's invariants */
	GB_EDEAL,           /* a forced deal is malformed or not a full deck */
	GB_EARGS,           /* wrong number or kind of command arguments */
	GB_ENOTFOUND,       /* the thing asked for does not exist */
	GB_EEXISTS,         /* the thing to be created already exists */
	GB_EPERM,           /* the caller may not do this (not an admin, not seated) */
	GB_EFULL,           /* no free seat at the table */
	GB_EDUP,            /* a repeated delivery that was already processed */
	GB_ECONFLICT,       /* someone else changed the data first (version check) */
	GB_ESTORE,          /* the database failed */
	GB_EIO,             /* a file, socket or HTTP operation failed */
	GB_ECONFIG,         /* a configuration value is missing or malformed */
	GB_EAUTH,           /* a request failed authentication (signature, secret) */
	GB_ELIMIT,          /* over a rate limit: dropped, nothing done or written */
	GB_ERROR_COUNT      /* not an error: the number of codes */
};

/* Short lowercase code for machine output, e.g. "illegal". Never NULL. */
const char *gb_errname(int err);

/* Human-readable message, lowercase, no full stop. Never NULL. */
const char *gb_strerror(int err);

#endif
