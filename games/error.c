/*
 * error.c - names and messages for enum gb_error. The tables are indexed by
 * the enum, so a new code without a message fails the unit test that walks
 * every value.
 */
#include "error.h"

#include <stddef.h>

static const char *const names[GB_ERROR_COUNT] = {
	[GB_OK] = "ok",
	[GB_ENOMEM] = "nomem",
	[GB_EPARSE] = "parse",
	[GB_EILLEGAL] = "illegal",
	[GB_ETURN] = "turn",
	[GB_EPHASE] = "phase",
	[GB_EOVER] = "over",
	[GB_ERULE_KEY] = "rule_key",
	[GB_ERULE_VALUE] = "rule_value",
	[GB_EPLAYERS] = "players",
	[GB_EGAME] = "game",
	[GB_ESTATE] = "state",
	[GB_EINVARIANT] = "invariant",
	[GB_EDEAL] = "deal",
	[GB_EARGS] = "args",
	[GB_ENOTFOUND] = "not_found",
	[GB_EEXISTS] = "exists",
	[GB_EPERM] = "perm",
	[GB_EFULL] = "full",
	[GB_EDUP] = "duplicate",
	[GB_ECONFLICT] = "conflict",
	[GB_ESTORE] = "store",
	[GB_EIO] = "io",
	[GB_ECONFIG] = "config",
	[GB_EAUTH] = "auth",
	[GB_ELIMIT] = "limit",
};

static const char *const messages[GB_ERROR_COUNT] = {
	[GB_OK] = "success",
	[GB_ENOMEM] = "out of memory",
	[GB_EPARSE] = "could not read that action",
	[GB_EILLEGAL] = "that move is not allowed now",
	[GB_ETURN] = "it is not your turn",
	[GB_EPHASE] = "that action does not fit this phase of the game",
	[GB_EOVER] = "the game is over",
	[GB_ERULE_KEY] = "unknown house rule",
	[GB_ERULE_VALUE] = "that house rule does not take this value",
	[GB_EPLAYERS] = "wrong number of players for this game",
	[GB_EGAME] = "unknown game",
	[GB_ESTATE] = "saved state could not be read",
	[GB_EINVARIANT] = "game state is inconsistent",
	[GB_EDEAL] = "the deal is not four hands of 13 distinct cards",
	[GB_EARGS] = "wrong arguments",
	[GB_ENOTFOUND] = "not found",
	[GB_EEXISTS] = "already exists",
	[GB_EPERM] = "not allowed for you",
	[GB_EFULL] = "the table is full",
	[GB_EDUP] = "already processed",
	[GB_ECONFLICT] = "changed by someone else, try again",
	[GB_ESTORE] = "database error",
	[GB_EIO] = "input/output error",
	[GB_ECONFIG] = "bad configuration",
	[GB_EAUTH] = "authentication failed",
	[GB_ELIMIT] = "over the rate limit",
};

const char *gb_errname(int err)
{
	if (err < 0 || err >= GB_ERROR_COUNT || !names[err])
		return "unknown";
	return names[err];
}

const char *gb_strerror(int err)
{
	if (err < 0 || err >= GB_ERROR_COUNT || !messages[err])
		return "unknown error";
	return messages[err];
}
