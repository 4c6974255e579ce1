/*
 * script.c - `gamebot script GAME [options]`: one action per input line, one
 * JSON object per action on output. See script-mode.md beside it (the
 * contract outside checkers use).
 *
 * Options are checked completely before the game starts: a bad option is one
 * line on stderr and exit status 2. After that nothing the input says can
 * stop the run: a refused action prints {"ok":false,...} and the state stays
 * exactly as it was.
 */
#include "script.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "games/ai/ai.h"
#include "games/game.h"

struct script_opts {
	const struct gb_game *game;
	struct gb_setup setup;
	int *dice;                 /* forced dice, as many as given (owned) */
	int ndice, capdice;
	int level;
};

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return GB_EPARSE;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return GB_EPARSE;
	*out = v;
	return GB_OK;
}

static int parse_dice(struct script_opts *o, const char *list)
{
	const char *p = list;

	if (!*p)
		return GB_EPARSE;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len != 1 || p[0] < '1' || p[0] > '6')
			return GB_EPARSE;
		if (o->ndice == o->capdice) {
			int cap = o->capdice ? o->capdice * 2 : 64;
			int *more = realloc(o->dice, sizeof(int) * (size_t)cap);

			if (!more)
				return GB_ENOMEM;
			o->dice = more;
			o->capdice = cap;
		}
		o->dice[o->ndice++] = p[0] - '0';
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				return GB_EPARSE;
		}
	}
	return GB_OK;
}

/* Returns 0 or 2 (message already printed). */
static int parse_options(int argc, char **argv, struct script_opts *o, FILE *err)
{
	int players = -1;

	memset(o, 0, sizeof(*o));
	o->level = GB_LEVEL_MEDIUM;
	if (argc < 2) {
		fprintf(err, "usage: gamebot script GAME [--players N] [--seed N] [--rule KEY=VALUE]... "
			     "[--dice D,D,...] [--deal HANDS] [--dealer SEAT] [--level LEVEL]\n");
		return 2;
	}
	o->game = gb_game_find(argv[1]);
	if (!o->game) {
		fprintf(err, "unknown game '%s' (", argv[1]);
		for (int i = 0; gb_games[i]; i++)
			fprintf(err, "%s%s", i ? ", " : "", gb_games[i]->name);
		fprintf(err, ")\n");
		return 2;
	}
	gb_setup_init(&o->setup, o->game);
	for (int i = 2; i < argc; i++) {
		const char *opt = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t u;
		int rc;

		if (strcmp(opt, "--players") && strcmp(opt, "--seed") && strcmp(opt, "--rule") &&
		    strcmp(opt, "--dice") && strcmp(opt, "--deal") && strcmp(opt, "--dealer") &&
		    strcmp(opt, "--level")) {
			fprintf(err, "unknown option '%s'\n", opt);
			return 2;
		}
		if (!val) {
			fprintf(err, "option '%s' needs a value\n", opt);
			return 2;
		}
		i++;
		if (strcmp(opt, "--players") == 0) {
			if (parse_u64(val, &u) || u < (uint64_t)o->game->min_players ||
			    u > (uint64_t)o->game->max_players) {
				fprintf(err, "'%s' takes %d to %d players, not '%s'\n", o->game->name,
					o->game->min_players, o->game->max_players, val);
				return 2;
			}
			players = (int)u;
		} else if (strcmp(opt, "--seed") == 0) {
			if (parse_u64(val, &u)) {
				fprintf(err, "seed must be a whole number, not '%s'\n", val);
				return 2;
			}
			o->setup.seed = u;
		} else if (strcmp(opt, "--rule") == 0) {
			rc = gb_rules_set_kv(o->game, &o->setup.rules, val);
			if (rc) {
				fprintf(err, "%s for %s: '%s'\n", rc == GB_EPARSE ? "house rules are written KEY=VALUE" : gb_strerror(rc),
					o->game->name, val);
				return 2;
			}
		} else if (strcmp(opt, "--dice") == 0) {
			rc = parse_dice(o, val);
			if (rc == GB_ENOMEM) {
				fprintf(err, "out of memory reading --dice\n");
				return 2;
			}
			if (rc) {
				fprintf(err, "dice must be values 1..6 separated by commas, not '%s'\n", val);
				return 2;
			}
		} else if (strcmp(opt, "--deal") == 0) {
			o->setup.deal = val;
		} else if (strcmp(opt, "--dealer") == 0) {
			if (parse_u64(val, &u) || u > 3) {
				fprintf(err, "dealer must be a seat 0..3, not '%s'\n", val);
				return 2;
			}
			o->setup.dealer = (int)u;
		} else if (strcmp(opt, "--level") == 0) {
			o->level = gb_level_parse(val);
			if (o->level < 0) {
				fprintf(err, "unknown level '%s' (random, easy, medium, hard)\n", val);
				return 2;
			}
		}
	}
	if (players > 0)
		o->setup.players = players;
	return 0;
}

static void print_json(FILE *out, json_t *j)
{
	/* 15 digits: a total of 2.1 prints as 2.1, not 2.1000000000000001 */
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(15)) : NULL;

	if (s) {
		fputs(s, out);
		fputc('\n', out);
		free(s);
	} else {
		fputs("{\"ok\":false,\"error\":\"nomem\",\"message\":\"out of memory\"}\n", out);
	}
	fflush(out);
}

static void print_error(FILE *out, int rc, const char *detail)
{
	json_t *j = json_object();
	char msg[512];

	if (detail && *detail)
		snprintf(msg, sizeof(msg), "%s: %s", gb_strerror(rc), detail);
	else
		snprintf(msg, sizeof(msg), "%s", gb_strerror(rc));
	json_object_set_new(j, "ok", json_false());
	json_object_set_new(j, "error", json_string(gb_errname(rc)));
	json_object_set_new(j, "message", json_string(msg));
	print_json(out, j);
	json_decref(j);
}

/* The legal actions as one readable string, for refusals. */
static void legal_hint(const struct gb_game *g, const void *st, char *buf, size_t n)
{
	json_t *legal = gb_legal_json(g, st);
	size_t i, used = 0;
	json_t *v;

	buf[0] = '\0';
	if (!legal)
		return;
	if (json_array_size(legal) == 0) {
		snprintf(buf, n, "no action is possible");
	} else {
		used = (size_t)snprintf(buf, n, "legal now: ");
		json_array_foreach(legal, i, v) {
			int w;

			if (used >= n)
				break;
			w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", json_string_value(v));
			if (w < 0)
				break;
			used += (size_t)w;
		}
	}
	json_decref(legal);
}

/* Trim in place: blanks at both ends. */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

int script_main(int argc, char **argv, FILE *in, FILE *out, FILE *err)
{
	struct script_opts *o = calloc(1, sizeof(*o));
	void *st = NULL, *saved = NULL;
	char *line = NULL;
	size_t cap = 0;
	int status = 0, rc, nextdie = 0;
	uint64_t actions = 0;

	if (!o) {
		fprintf(err, "out of memory\n");
		return 1;
	}
	status = parse_options(argc, argv, o, err);
	if (status)
		goto out;
	st = calloc(1, o->game->state_size);
	saved = calloc(1, o->game->state_size);
	if (!st || !saved) {
		fprintf(err, "out of memory\n");
		status = 1;
		goto out;
	}
	rc = o->game->init(st, &o->setup);
	if (rc == GB_EGAME) {
		fprintf(err, "game '%s' is not available yet\n", o->game->name);
		status = 2;
		goto out;
	}
	if (rc) {
		fprintf(err, "cannot start %s: %s\n", o->game->name, gb_strerror(rc));
		status = 2;
		goto out;
	}
	while (getline(&line, &cap, in) >= 0) {
		char *text = trim(line);
		struct gb_action act;
		struct gb_events ev = { 0 };
		char hint[1024];
		json_t *res, *did;

		if (!*text || *text == '#')
			continue;
		actions++;
		if (strcmp(text, "bot") == 0) {
			uint64_t s = gb_seed_derive(o->setup.seed ^ 0xb07b07b07ULL, actions);

			rc = gb_ai_choose(o->game, st, o->level, s, 0, &act);
		} else {
			rc = o->game->parse(st, text, &act);
		}
		if (rc) {
			legal_hint(o->game, st, hint, sizeof(hint));
			print_error(out, rc, hint);
			continue;
		}
		if (act.kind == GB_ACT_ROLL && act.die == 0 && nextdie < o->ndice)
			act.die = o->dice[nextdie];
		memcpy(saved, st, o->game->state_size);
		rc = o->game->apply(st, &act, &ev);
		if (rc) {
			/* apply() promises an untouched state on error; keep the promise here too */
			memcpy(st, saved, o->game->state_size);
			legal_hint(o->game, st, hint, sizeof(hint));
			print_error(out, rc, hint);
			continue;
		}
		if (act.kind == GB_ACT_ROLL && act.die != 0 && nextdie < o->ndice)
			nextdie++;
		res = json_object();
		did = json_array();
		for (int i = 0; i < ev.n; i++) {
			char buf[GB_EVENT_TEXT];

			o->game->format_event(&ev.ev[i], buf, sizeof(buf));
			if (buf[0])
				json_array_append_new(did, json_string(buf));
		}
		json_object_set_new(res, "ok", json_true());
		json_object_set_new(res, "did", did);
		json_object_set_new(res, "state", gb_state_json(o->game, st));
		print_json(out, res);
		json_decref(res);
	}
out:
	free(line);
	free(st);
	free(saved);
	if (o)
		free(o->dice);
	free(o);
	return status;
}
