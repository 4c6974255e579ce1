/*
 * ludo.c - rules core for Ludo: the rules of record games/rules/ludo.md (LU-1..22)
 * over the state described in ludo.h, behind the common interface of game.h.
 *
 * Guarantees: apply() validates completely before it changes anything, so a
 * refused action leaves the state byte for byte as it was; legal() and
 * apply() never allocate (computer players call them millions of times);
 * the only randomness is the generator inside the state, and only when a
 * roll does not force its die. to_json()/from_json() round-trip exactly.
 *
 * The Nepali original (at the end of games/rules/ludo.md) and the English rules agree on every
 * point this code depends on; where a comment cites "the original" it quotes the
 * sentence the behaviour rests on.
 */
#include "ludo.h"

#include <stdio.h>
#include <string.h>

/*
 * House rules, default first (rules/ludo.md, "House rules"). The order is
 * enum ludo_rule.
 */
const struct gb_rule_def ludo_rules[LUDO_NRULES] = {
	{ "one_releases", { "off", "on", NULL }, NULL,
	  "a one also brings a token out of base, without another roll" },
	{ "six_bonus", { "on", "off", NULL }, NULL, "a six gives another roll" },
	{ "capture_bonus", { "on", "off", NULL }, NULL, "a capture gives another roll" },
};

const uint8_t ludo_star_route[LUDO_NSTARS] = { 1, 9, 14, 22, 27, 35, 40, 48 };
const uint8_t ludo_star_ring[LUDO_NSTARS] = { 0, 8, 13, 21, 26, 34, 39, 47 };

/* Two players sit opposite each other (LU-4); three leave corner 3 empty. */
const uint8_t ludo_corners[GB_MAX_SEATS + 1][GB_MAX_SEATS] = {
	{ 0, 0, 0, 0 },
	{ 0, 0, 0, 0 },
	{ 0, 2, 0, 0 },
	{ 0, 1, 2, 0 },
	{ 0, 1, 2, 3 },
};

/* ---- board geometry ---------------------------------------------------- */

int ludo_ring_square(int corner, int p)
{
	if (corner < 0 || corner > 3 || p < 1 || p > LUDO_LAST_RING)
		return -1;
	return (corner * LUDO_SIDE + p - 1) % LUDO_RING;
}

bool ludo_ring_is_star(int sq)
{
	/* start squares (13k) and the squares eight ahead of them (13k + 8) */
	return sq >= 0 && sq < LUDO_RING && (sq % LUDO_SIDE == 0 || sq % LUDO_SIDE == 8);
}

bool ludo_route_is_star(int p)
{
	/* every corner is a multiple of 13, so route stars are the same for all */
	return p >= 1 && p <= LUDO_LAST_RING && ludo_ring_is_star(p - 1);
}

bool ludo_rule_on(const struct ludo *st, int rule)
{
	switch (rule) {
	case LUDO_RULE_ONE_RELEASES:
		return st->rules.v[rule] == 1;  /* values: off, on */
	case LUDO_RULE_SIX_BONUS:
	case LUDO_RULE_CAPTURE_BONUS:
		return st->rules.v[rule] == 0;  /* values: on, off */
	default:
		return false;
	}
}

/* ---- the moves ---------------------------------------------------------- */

int ludo_target_of(const struct ludo *st, int seat, int token, int die)
{
	int p, to = -1;

	if (!st || seat < 0 || seat >= st->players || token < 0 || token >= LUDO_TOKENS || die < 1 ||
	    die > 6)
		goto out;
	p = st->pos[seat][token];
	if (p == 0) {
		/* LU-8: the six opens the door and puts the token on its start
		 * square; LU-11: with one_releases=on a one does the same. */
		if (die == 6 || (die == 1 && ludo_rule_on(st, LUDO_RULE_ONE_RELEASES)))
			to = 1;
	} else if (p + die <= LUDO_CENTRE) {
		/* LU-18: the last step is exact; a token in the centre never moves */
		to = p + die;
	}
out:
	return to;
}

int ludo_target(const struct ludo *st, int token, int die)
{
	if (!st || st->winner >= 0)
		return -1;
	return ludo_target_of(st, st->seat, token, die);
}

/* Tokens of seats other than `seat` standing on ring square sq. */
static int count_on_ring(const struct ludo *st, int seat, int sq)
{
	int n = 0;

	for (int s = 0; s < st->players; s++) {
		if (s == seat)
			continue;
		for (int t = 0; t < LUDO_TOKENS; t++)
			if (ludo_ring_square(st->corner[s], st->pos[s][t]) == sq)
				n++;
	}
	return n;
}

int ludo_captures(const struct ludo *st, int seat, int token, int die)
{
	int to = ludo_target_of(st, seat, token, die);

	/* LU-16: nothing is captured on a star or off the ring; LU-10: coming
	 * out lands on the start square, a star, so it never captures */
	if (to < 1 || to > LUDO_LAST_RING || ludo_route_is_star(to))
		return 0;
	return count_on_ring(st, seat, ludo_ring_square(st->corner[seat], to));
}

int ludo_movable(const struct ludo *st, int die, int out[LUDO_TOKENS])
{
	int n = 0;

	for (int t = 0; t < LUDO_TOKENS; t++)
		if (ludo_target(st, t, die) >= 0)
			out[n++] = t;
	return n;
}

int ludo_choices(const struct ludo *st, int die, int out[LUDO_TOKENS])
{
	int n = 0;

	/* Moving one token of a stack or another gives the same board (LU-7):
	 * the outcome depends only on the square the token leaves. */
	for (int t = 0; t < LUDO_TOKENS; t++) {
		bool seen = false;

		if (ludo_target(st, t, die) < 0)
			continue;
		for (int i = 0; i < n; i++)
			if (st->pos[st->seat][out[i]] == st->pos[st->seat][t])
				seen = true;
		if (!seen)
			out[n++] = t;
	}
	return n;
}

int ludo_home_count(const struct ludo *st, int seat)
{
	int n = 0;

	if (!st || seat < 0 || seat >= GB_MAX_SEATS)
		return 0;
	for (int t = 0; t < LUDO_TOKENS; t++)
		if (st->pos[seat][t] == LUDO_CENTRE)
			n++;
	return n;
}

/* ---- apply -------------------------------------------------------------- */

/* The turn passes to the next seat; a new turn starts with no sixes. */
static void end_turn(struct ludo *st)
{
	st->phase = LUDO_PHASE_ROLL;
	st->die = 0;
	st->sixes = 0;
	st->seat = (uint8_t)((st->seat + 1) % st->players);
	st->turns++;
}

/*
 * Move `token` of the seat to act by `die` (already known to be legal) and
 * settle everything that follows: captures, the centre, the win, and who
 * rolls next.
 */
static void do_move(struct ludo *st, int token, int die, int evtype, struct gb_events *ev)
{
	int seat = st->seat;
	int from = st->pos[seat][token];
	int to = ludo_target_of(st, seat, token, die);
	int captured = 0, reason = -1;

	st->pos[seat][token] = (uint8_t)to;
	gb_events_push(ev, evtype, seat, token, from, to);

	/* LU-12..16: only the square where the move ends counts; every opponent
	 * token on it goes home unless it is a star. Home columns and the centre
	 * are never shared, so nothing happens there. */
	if (to <= LUDO_LAST_RING && !ludo_route_is_star(to)) {
		int sq = ludo_ring_square(st->corner[seat], to);

		for (int s = 0; s < st->players; s++) {
			int n = 0;

			if (s == seat)
				continue;
			for (int t = 0; t < LUDO_TOKENS; t++) {
				if (ludo_ring_square(st->corner[s], st->pos[s][t]) == sq) {
					st->pos[s][t] = 0;
					n++;
				}
			}
			if (n) {
				gb_events_push(ev, LUDO_EV_CAPTURE, seat, s, n, sq);
				captured += n;
			}
		}
	}

	if (to == LUDO_CENTRE)
		gb_events_push(ev, LUDO_EV_CENTRE, seat, token, 0, 0);

	/* LU-20: one reason is announced, capture before centre before six;
	 * the centre's roll cannot be switched off. */
	if (captured && ludo_rule_on(st, LUDO_RULE_CAPTURE_BONUS))
		reason = LUDO_EXTRA_CAPTURE;
	else if (to == LUDO_CENTRE)
		reason = LUDO_EXTRA_CENTRE;
	else if (die == 6 && ludo_rule_on(st, LUDO_RULE_SIX_BONUS))
		reason = LUDO_EXTRA_SIX;

	if (to == LUDO_CENTRE && ludo_home_count(st, seat) == LUDO_TOKENS) {
		/* LU-19: the moment one player has all four home the game stops;
		 * the turn that won counts as taken */
		gb_events_push(ev, LUDO_EV_WIN, seat, 0, 0, 0);
		st->winner = (int8_t)seat;
		st->phase = LUDO_PHASE_ROLL;
		st->die = 0;
		st->sixes = 0;
		st->turns++;
	} else if (reason < 0) {
		end_turn(st);
	} else {
		/* the six count runs on across extra rolls of any reason (LU-21) */
		st->phase = LUDO_PHASE_ROLL;
		st->die = 0;
		gb_events_push(ev, LUDO_EV_EXTRA, seat, reason, 0, 0);
	}
}

/* Roll (die 0: from the state's generator) and do whatever needs no choice. */
static void do_roll(struct ludo *st, int die, struct gb_events *ev)
{
	int choice[LUDO_TOKENS];
	int n;

	if (die == 0)
		die = gb_rng_die(&st->rng);
	gb_events_push(ev, LUDO_EV_ROLL, st->seat, die, 0, 0);

	/* LU-21: the third six in a row ends the turn unmoved, nothing undone.
	 * The Nepali original: "तेस्रो छक्कामा त्यो अंक चलाउनै नपाई पालो सकिन्छ". */
	st->sixes = die == 6 ? (uint8_t)(st->sixes + 1) : 0;
	n = st->sixes >= LUDO_MAX_SIXES ? 0 : ludo_choices(st, die, choice);
	if (st->sixes >= LUDO_MAX_SIXES) {
		gb_events_push(ev, LUDO_EV_THIRD_SIX, st->seat, 0, 0, 0);
		end_turn(st);
	} else if (n == 0) {
		/* LU-6, LU-22: nothing can use it; no extra roll, not even for a six */
		gb_events_push(ev, LUDO_EV_WASTED, st->seat, die, 0, 0);
		end_turn(st);
	} else if (n == 1) {
		/* LU-7: identical outcomes are not a decision */
		do_move(st, choice[0], die, LUDO_EV_AUTOMOVE, ev);
	} else {
		st->phase = LUDO_PHASE_MOVE;
		st->die = (uint8_t)die;
	}
}

int ludo_apply(void *vst, const struct gb_action *act, struct gb_events *ev)
{
	struct ludo *st = vst;
	int rc = GB_OK;

	if (st->winner >= 0) {
		rc = GB_EOVER;
		goto out;
	}
	switch (act->kind) {
	case GB_ACT_ROLL:
		if (st->phase != LUDO_PHASE_ROLL) {
			rc = GB_EPHASE;
			goto out;
		}
		/* exactly the legal list's action (a = b = 0), with a die 0..6 */
		if (act->a || act->b || act->die < 0 || act->die > 6) {
			rc = GB_EILLEGAL;
			goto out;
		}
		do_roll(st, act->die, ev);
		break;
	case GB_ACT_MOVE:
		if (st->phase != LUDO_PHASE_MOVE) {
			rc = GB_EPHASE;
			goto out;
		}
		if (act->b || ludo_target(st, act->a, st->die) < 0) {
			rc = GB_EILLEGAL;
			goto out;
		}
		do_move(st, act->a, st->die, LUDO_EV_MOVE, ev);
		break;
	default:
		rc = GB_EILLEGAL;  /* not a ludo action at all */
		break;
	}
out:
	return rc;
}

/* ---- the common interface ------------------------------------------------ */

int ludo_init(void *vst, const struct gb_setup *su)
{
	struct ludo *st = vst;
	int rc = GB_OK;

	memset(st, 0, sizeof(*st));
	if (su->players < LUDO_MIN_PLAYERS || su->players > LUDO_MAX_PLAYERS) {
		rc = GB_EPLAYERS;
		goto out;
	}
	for (int i = 0; i < GB_MAX_RULES; i++) {
		int nvalues = 0;

		if (i < LUDO_NRULES)
			while (ludo_rules[i].values[nvalues])
				nvalues++;
		if (su->rules.v[i] >= (i < LUDO_NRULES ? nvalues : 1)) {
			rc = GB_ERULE_VALUE;
			goto out;
		}
	}
	st->rules = su->rules;
	st->players = (uint8_t)su->players;
	for (int s = 0; s < su->players; s++)
		st->corner[s] = ludo_corners[su->players][s];
	st->winner = -1;
	gb_rng_seed(&st->rng, su->seed);
out:
	if (rc)
		memset(st, 0, sizeof(*st));
	return rc;
}

int ludo_turn(const void *vst)
{
	const struct ludo *st = vst;

	return st->winner >= 0 ? -1 : st->seat;
}

int ludo_legal(const void *vst, struct gb_action *out)
{
	const struct ludo *st = vst;
	int n = 0;

	if (st->winner >= 0)
		goto out;
	if (st->phase == LUDO_PHASE_ROLL) {
		out[n++] = (struct gb_action){ GB_ACT_ROLL, 0, 0, 0 };
		goto out;
	}
	/* Every token that can move is legal, stacked ones included: a player
	 * who names token 3 of a stack is obeyed (ludo_choices() is the set
	 * without duplicates). */
	for (int t = 0; t < LUDO_TOKENS; t++)
		if (ludo_target(st, t, st->die) >= 0)
			out[n++] = (struct gb_action){ GB_ACT_MOVE, t, 0, 0 };
out:
	return n;
}

int ludo_parse(const void *vst, const char *text, struct gb_action *out)
{
	char word[32], num[32];
	const char *rest;
	int rc = GB_OK, n;

	(void)vst;
	memset(out, 0, sizeof(*out));
	rest = gb_next_word(text, word, sizeof(word));
	if (!rest) {
		rc = GB_EPARSE;
		goto out;
	}
	if (strcmp(word, "roll") == 0) {
		/* the die is never the player's to name */
		if (gb_next_word(rest, num, sizeof(num))) {
			rc = GB_EPARSE;
			goto out;
		}
		out->kind = GB_ACT_ROLL;
	} else if (strcmp(word, "move") == 0) {
		rest = gb_next_word(rest, num, sizeof(num));
		/* a word that fills num may have been cut short by gb_next_word;
		 * reading its first part would accept junk after a padded number */
		if (!rest || strlen(num) + 1 >= sizeof(num) || gb_parse_uint(num, LUDO_TOKENS, &n) ||
		    n < 1 || gb_next_word(rest, word, sizeof(word))) {
			rc = GB_EPARSE;
			goto out;
		}
		out->kind = GB_ACT_MOVE;
		out->a = n - 1;
	} else {
		rc = GB_EPARSE;
	}
out:
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

void ludo_format(const void *vst, const struct gb_action *act, char *buf, size_t n)
{
	(void)vst;
	if (!buf || n == 0)
		return;
	if (act->kind == GB_ACT_ROLL)
		snprintf(buf, n, "roll");
	else if (act->kind == GB_ACT_MOVE)
		snprintf(buf, n, "move %d", act->a + 1);
	else
		buf[0] = '\0';
}

void ludo_format_event(const struct gb_event *e, char *buf, size_t n)
{
	static const char *const extra[] = { "capture", "centre", "six" };

	if (!buf || n == 0)
		return;
	buf[0] = '\0';
	switch (e->type) {
	case LUDO_EV_ROLL:
		snprintf(buf, n, "roll %d", e->a);
		break;
	case LUDO_EV_MOVE:
	case LUDO_EV_AUTOMOVE:
		snprintf(buf, n, "move %d", e->a + 1);
		break;
	case LUDO_EV_CAPTURE:
		snprintf(buf, n, "capture %d", e->a);
		break;
	case LUDO_EV_CENTRE:
		snprintf(buf, n, "centre");
		break;
	case LUDO_EV_EXTRA:
		if (e->a >= 0 && e->a <= LUDO_EXTRA_SIX)
			snprintf(buf, n, "extra roll %s", extra[e->a]);
		break;
	case LUDO_EV_WASTED:
		snprintf(buf, n, "wasted");
		break;
	case LUDO_EV_THIRD_SIX:
		snprintf(buf, n, "third six");
		break;
	case LUDO_EV_WIN:
		snprintf(buf, n, "wins");
		break;
	default:
		break;
	}
}

static json_t *int_or_null(int v, bool null)
{
	return null ? json_null() : json_integer(v);
}

/*
 * The contract's fields (tokens, phase, dice, winner) and everything else
 * the state holds: players, corners (derived, for readers), seat (the seat
 * to act; "turn" belongs to gb_state_json), sixes, turns, rules, rng. A
 * finished game keeps phase "roll" with dice null. Caller owns the result.
 */
json_t *ludo_to_json(const void *vst)
{
	const struct ludo *st = vst;
	json_t *o = json_object(), *tokens = json_array(), *corners = json_array();
	char hex[65];

	if (!o || !tokens || !corners) {
		json_decref(o);
		json_decref(tokens);
		json_decref(corners);
		return NULL;
	}
	for (int s = 0; s < st->players; s++) {
		json_t *row = json_array();

		for (int t = 0; row && t < LUDO_TOKENS; t++)
			json_array_append_new(row, json_integer(st->pos[s][t]));
		json_array_append_new(tokens, row);
		json_array_append_new(corners, json_integer(st->corner[s]));
	}
	gb_rng_to_hex(&st->rng, hex);
	json_object_set_new(o, "players", json_integer(st->players));
	json_object_set_new(o, "corners", corners);
	json_object_set_new(o, "tokens", tokens);
	json_object_set_new(o, "phase", json_string(st->phase == LUDO_PHASE_MOVE ? "move" : "roll"));
	json_object_set_new(o, "dice", int_or_null(st->die, st->phase != LUDO_PHASE_MOVE));
	json_object_set_new(o, "winner", int_or_null(st->winner, st->winner < 0));
	json_object_set_new(o, "seat", json_integer(st->seat));
	json_object_set_new(o, "sixes", json_integer(st->sixes));
	json_object_set_new(o, "turns", json_integer(st->turns));
	json_object_set_new(o, "rules", gb_rule_defs_json(ludo_rules, LUDO_NRULES, &st->rules));
	json_object_set_new(o, "rng", json_string(hex));
	return o;
}

/* ludo_to_json()'s fields as text, in its order (struct gb_game's to_text). */
bool ludo_to_text(const void *vst, struct strbuf *sb)
{
	const struct ludo *st = vst;
	char hex[65];

	sb_add(sb, ",\"players\":");
	gb_text_int(sb, st->players);
	sb_add(sb, ",\"corners\":[");
	for (int s = 0; s < st->players; s++) {
		if (s)
			sb_addn(sb, ",", 1);
		gb_text_int(sb, st->corner[s]);
	}
	sb_add(sb, "],\"tokens\":[");
	for (int s = 0; s < st->players; s++) {
		sb_add(sb, s ? ",[" : "[");
		for (int t = 0; t < LUDO_TOKENS; t++) {
			if (t)
				sb_addn(sb, ",", 1);
			gb_text_int(sb, st->pos[s][t]);
		}
		sb_addn(sb, "]", 1);
	}
	sb_add(sb, st->phase == LUDO_PHASE_MOVE ? "],\"phase\":\"move\",\"dice\":" :
						  "],\"phase\":\"roll\",\"dice\":");
	if (st->phase != LUDO_PHASE_MOVE)
		sb_addn(sb, "null", 4);
	else
		gb_text_int(sb, st->die);
	sb_add(sb, ",\"winner\":");
	if (st->winner < 0)
		sb_addn(sb, "null", 4);
	else
		gb_text_int(sb, st->winner);
	sb_add(sb, ",\"seat\":");
	gb_text_int(sb, st->seat);
	sb_add(sb, ",\"sixes\":");
	gb_text_int(sb, st->sixes);
	sb_add(sb, ",\"turns\":");
	gb_text_int(sb, st->turns);
	sb_add(sb, ",\"rules\":");
	if (!gb_rule_defs_text(ludo_rules, LUDO_NRULES, &st->rules, sb))
		return false;
	gb_rng_to_hex(&st->rng, hex);
	sb_add(sb, ",\"rng\":");
	return gb_text_str(sb, hex);
}

/* An integer min..max at key; null_ok: a JSON null gives *out = -1. */
static int get_int(const json_t *j, const char *key, long long min, long long max, bool null_ok,
		   int *out)
{
	const json_t *v = json_object_get(j, key);
	int rc = GB_ESTATE;

	if (null_ok && json_is_null(v)) {
		*out = -1;
		rc = GB_OK;
	} else if (json_is_integer(v) && json_integer_value(v) >= min &&
		   json_integer_value(v) <= max) {
		*out = (int)json_integer_value(v);
		rc = GB_OK;
	}
	return rc;
}


int ludo_from_json(void *vst, const json_t *j)
{
	struct ludo *st = vst;
	const json_t *tokens, *corners, *game, *v;
	int rc = GB_ESTATE, players, seat, sixes, turns, dice, winner;
	const char *phase;

	memset(st, 0, sizeof(*st));
	if (!json_is_object(j))
		goto out;
	game = json_object_get(j, "game");
	if (game && (!json_is_string(game) || strcmp(json_string_value(game), "ludo")))
		goto out;
	if (get_int(j, "players", LUDO_MIN_PLAYERS, LUDO_MAX_PLAYERS, false, &players) ||
	    get_int(j, "seat", 0, players - 1, false, &seat) ||
	    get_int(j, "sixes", 0, LUDO_MAX_SIXES - 1, false, &sixes) ||
	    get_int(j, "turns", 0, INT32_MAX, false, &turns) ||
	    get_int(j, "dice", 1, 6, true, &dice) ||
	    get_int(j, "winner", 0, players - 1, true, &winner))
		goto out;
	st->players = (uint8_t)players;
	st->seat = (uint8_t)seat;
	st->sixes = (uint8_t)sixes;
	st->turns = turns;
	st->winner = (int8_t)winner;

	v = json_object_get(j, "phase");
	phase = json_is_string(v) ? json_string_value(v) : "";
	if (strcmp(phase, "roll") == 0 && dice < 0) {
		st->phase = LUDO_PHASE_ROLL;
	} else if (strcmp(phase, "move") == 0 && dice > 0) {
		st->phase = LUDO_PHASE_MOVE;
		st->die = (uint8_t)dice;
	} else {
		goto out;
	}

	tokens = json_object_get(j, "tokens");
	if (!json_is_array(tokens) || json_array_size(tokens) != (size_t)players)
		goto out;
	for (int s = 0; s < players; s++) {
		const json_t *row = json_array_get(tokens, (size_t)s);

		if (!json_is_array(row) || json_array_size(row) != LUDO_TOKENS)
			goto out;
		for (int t = 0; t < LUDO_TOKENS; t++) {
			const json_t *p = json_array_get(row, (size_t)t);

			if (!json_is_integer(p) || json_integer_value(p) < 0 ||
			    json_integer_value(p) > LUDO_CENTRE)
				goto out;
			st->pos[s][t] = (uint8_t)json_integer_value(p);
		}
		st->corner[s] = ludo_corners[players][s];
	}
	/* corners follow from the table size; when given they must agree */
	corners = json_object_get(j, "corners");
	if (corners) {
		if (!json_is_array(corners) || json_array_size(corners) != (size_t)players)
			goto out;
		for (int s = 0; s < players; s++) {
			const json_t *c = json_array_get(corners, (size_t)s);

			if (!json_is_integer(c) || json_integer_value(c) != st->corner[s])
				goto out;
		}
	}

	v = json_object_get(j, "rules");
	if (v && gb_rule_defs_from_json(ludo_rules, LUDO_NRULES, &st->rules, v))
		goto out;
	v = json_object_get(j, "rng");
	if (!json_is_string(v) || gb_rng_from_hex(&st->rng, json_string_value(v)))
		goto out;
	if (ludo_check(st))
		goto out;
	rc = GB_OK;
out:
	if (rc)
		memset(st, 0, sizeof(*st));
	return rc;
}

int ludo_check(const void *vst)
{
	const struct ludo *st = vst;
	int rc = GB_EINVARIANT, finished = -1, choice[LUDO_TOKENS];
	int owner[LUDO_RING];

	if (st->players < 2 || st->players > GB_MAX_SEATS || st->seat >= st->players)
		goto out;
	if (st->turns < 0 || st->sixes >= LUDO_MAX_SIXES)
		goto out;
	if (!(st->rng.s[0] | st->rng.s[1] | st->rng.s[2] | st->rng.s[3]))
		goto out;
	for (int i = 0; i < GB_MAX_RULES; i++)
		if (st->rules.v[i] > (i < LUDO_NRULES ? 1 : 0))
			goto out;

	for (int sq = 0; sq < LUDO_RING; sq++)
		owner[sq] = -1;
	for (int s = 0; s < GB_MAX_SEATS; s++) {
		int home = 0;

		if (s >= st->players) {
			/* empty seats hold nothing */
			if (st->corner[s])
				goto out;
			for (int t = 0; t < LUDO_TOKENS; t++)
				if (st->pos[s][t])
					goto out;
			continue;
		}
		if (st->corner[s] != ludo_corners[st->players][s])
			goto out;
		for (int t = 0; t < LUDO_TOKENS; t++) {
			int p = st->pos[s][t], sq = ludo_ring_square(st->corner[s], p);

			if (p > LUDO_CENTRE)
				goto out;
			home += p == LUDO_CENTRE;
			/* every arrival on an ordinary square captures, so no two
			 * seats ever share one (LU-12, LU-15) */
			if (sq >= 0 && !ludo_ring_is_star(sq)) {
				if (owner[sq] >= 0 && owner[sq] != s)
					goto out;
				owner[sq] = s;
			}
		}
		if (home == LUDO_TOKENS) {
			if (finished >= 0)
				goto out;  /* the game stops at the first (LU-19) */
			finished = s;
		}
	}
	if (st->winner != finished)
		goto out;

	if (st->winner >= 0) {
		if (st->seat != st->winner || st->phase != LUDO_PHASE_ROLL || st->die || st->sixes)
			goto out;
	} else if (st->phase == LUDO_PHASE_ROLL) {
		if (st->die)
			goto out;
	} else if (st->phase == LUDO_PHASE_MOVE) {
		if (st->die < 1 || st->die > 6)
			goto out;
		/* the die was counted when rolled */
		if (st->die == 6 ? (st->sixes < 1) : (st->sixes != 0))
			goto out;
		/* fewer than two distinct outcomes would have moved by itself (LU-7)
		 * or been wasted (LU-22) */
		if (ludo_choices(st, st->die, choice) < 2)
			goto out;
	} else {
		goto out;
	}
	rc = GB_OK;
out:
	return rc;
}

void ludo_outcome(const void *vst, struct gb_outcome *out)
{
	const struct ludo *st = vst;

	memset(out, 0, sizeof(*out));
	out->over = st->winner >= 0;
	out->winner = st->winner;
	out->draw = false;
	out->turns = st->turns;
}
