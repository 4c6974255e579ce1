/*
 * snakes.c - rules core for Snakes and Ladders.
 *
 * Implements the operations of snakes_game (game.h; its row is
 * games/rows/snakes.c) over struct snakes (snakes.h) from
 * games/rules/snakes-and-ladders.md; comments cite its rule numbers (SL-n)
 * and the Nepali original where it decides. The only action is `roll`;
 * one apply() is one roll, and a turn is every roll a player makes before
 * the die passes on (an entering six, a six with six_bonus=on).
 *
 * Guarantees: apply() validates before it changes anything, so a refused
 * action leaves the state byte for byte as it was; from_json() accepts
 * exactly what to_json() writes (and runs check() on the result); no I/O,
 * no globals that change, randomness only from the state's generator.
 */
#include "snakes.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/*
 * House rules, keys and values exactly as in the rules document, default
 * first. three_sixes only means something while six_bonus=on (SL-14): the
 * settings page shows it greyed out otherwise.
 */
const struct gb_rule_def snakes_rules[SNAKES_NRULES] = {
	[SNAKES_RULE_ENTRY] = { "entry", { "six", "any", NULL }, NULL,
				"a six is needed to come onto the board, or any roll moves from 0" },
	[SNAKES_RULE_SIX_BONUS] = { "six_bonus", { "on", "off", NULL }, NULL,
				    "a six gives another roll" },
	[SNAKES_RULE_THREE_SIXES] = { "three_sixes", { "lose_turn", "restart", NULL }, "six_bonus=on",
				      "what the third six in a row costs" },
	[SNAKES_RULE_FINISH] = { "finish", { "exact", "overshoot", NULL }, NULL,
				 "100 must be reached exactly, or reaching/passing 100 wins" },
	[SNAKES_RULE_BOARD] = { "board", { "classic", "random", NULL }, NULL,
				"the printed board, or a new layout drawn from the game's seed" },
};

/* Number of values of each rule, for range checks. */
static int rule_nvalues(int i)
{
	int n = 0;

	while (snakes_rules[i].values[n])
		n++;
	return n;
}

/* SL-6: the printed board, the Nepali original's list in its order. */
static const unsigned char classic_ladders[SNAKES_LADDERS][2] = {
	{ 1, 38 }, { 4, 14 }, { 9, 31 }, { 21, 42 }, { 28, 84 },
	{ 36, 44 }, { 51, 67 }, { 71, 91 }, { 80, 100 },
};
static const unsigned char classic_snakes[SNAKES_SNAKES][2] = {
	{ 16, 6 }, { 47, 26 }, { 49, 11 }, { 56, 53 }, { 62, 19 },
	{ 64, 60 }, { 87, 24 }, { 93, 73 }, { 95, 75 }, { 98, 78 },
};

/*
 * The dice draw from the game seed itself; a random board from a seed of
 * its own derived from it, so a game's dice are the same on either board.
 */
#define SEED_STREAM_BOARD 1

static void classic_board(unsigned char jump[SNAKES_SQUARES + 1])
{
	memset(jump, 0, SNAKES_SQUARES + 1);
	for (int i = 0; i < SNAKES_LADDERS; i++)
		jump[classic_ladders[i][0]] = classic_ladders[i][1];
	for (int i = 0; i < SNAKES_SNAKES; i++)
		jump[classic_snakes[i][0]] = classic_snakes[i][1];
}

/* ---- random board (SL-7) ---- */

/* Is square q (1..100) an endpoint of any piece on the board so far? */
static bool used(const unsigned char jump[SNAKES_SQUARES + 1], const bool *is_end, int q)
{
	return jump[q] != 0 || is_end[q];
}

/* Length of the run of snake heads through h if h became one too. */
static int head_run(const unsigned char jump[SNAKES_SQUARES + 1], int h)
{
	int run = 1;

	for (int q = h - 1; q >= 1 && jump[q] && jump[q] < q; q--)
		run++;
	for (int q = h + 1; q <= SNAKES_SQUARES && jump[q] && jump[q] < q; q++)
		run++;
	return run;
}

/*
 * Does the piece from -> to fit on the board so far? Spans 3..42, both ends
 * on the path and free (all 38 endpoints distinct: the original's "no square is
 * at once the head of one and the tail of another", read so that no square
 * carries two pieces at all), no snake on 100, no run of six snake heads.
 *
 * The Nepali original does not name 100 for snakes; the English does, and a snake
 * there could never bite anyway, since reaching 100 ends the game (SL-4).
 * What stays allowed, because the printed board has it too: a ladder foot
 * on square 1 (climbed only with entry=any, SL-11/SL-12), a ladder to 100
 * (a win, SL-21), a snake tail on square 1. The run bound is ours, not the
 * original's: six heads in a row would make every square beyond unreachable
 * (see SNAKES_MAX_HEAD_RUN), and with five or fewer some roll always moves
 * forward, so every game ends.
 */
static bool piece_fits(const unsigned char jump[SNAKES_SQUARES + 1], const bool *is_end, int from, int to)
{
	int span = from < to ? to - from : from - to;

	if (from < 1 || from > SNAKES_SQUARES || to < 1 || to > SNAKES_SQUARES)
		return false;
	if (span < SNAKES_SPAN_MIN || span > SNAKES_SPAN_MAX)
		return false;
	if (used(jump, is_end, from) || used(jump, is_end, to))
		return false;
	if (to < from && (from == SNAKES_SQUARES || head_run(jump, from) > SNAKES_MAX_HEAD_RUN))
		return false;
	return true;
}

/*
 * Place one piece. Candidates are (start, span) pairs drawn from a fixed
 * rectangle, so rejection draws and enumeration both pick uniformly among
 * the pieces that fit. Ladders: foot 1..97, span 3..42. Snakes: head 4..99.
 */
static void place_piece(struct gb_rng *r, int max_tries, unsigned char jump[SNAKES_SQUARES + 1],
			bool *is_end, bool ladder)
{
	const int lo = ladder ? 1 : 1 + SNAKES_SPAN_MIN;
	const int nstart = ladder ? SNAKES_SQUARES - SNAKES_SPAN_MIN : SNAKES_SQUARES - 1 - SNAKES_SPAN_MIN;
	const int nspan = SNAKES_SPAN_MAX - SNAKES_SPAN_MIN + 1;
	int from = 0, to = 0, count = 0, pick;

	for (int t = 0; t < max_tries; t++) {
		int f = lo + (int)gb_rng_below(r, (uint32_t)nstart);
		int k = SNAKES_SPAN_MIN + (int)gb_rng_below(r, (uint32_t)nspan);
		int e = ladder ? f + k : f - k;

		if (piece_fits(jump, is_end, f, e)) {
			from = f;
			to = e;
			goto place;
		}
	}
	/* Enumerate: count the pieces that fit, then take the pick-th one. */
	for (int f = lo; f < lo + nstart; f++)
		for (int k = SNAKES_SPAN_MIN; k <= SNAKES_SPAN_MAX; k++)
			count += piece_fits(jump, is_end, f, ladder ? f + k : f - k);
	/* At most 36 squares are taken, so at least 22 starts and 4 ends stay free. */
	assert(count > 0);
	pick = (int)gb_rng_below(r, (uint32_t)count);
	for (int f = lo; f < lo + nstart && !from; f++)
		for (int k = SNAKES_SPAN_MIN; k <= SNAKES_SPAN_MAX; k++) {
			int e = ladder ? f + k : f - k;

			if (piece_fits(jump, is_end, f, e) && pick-- == 0) {
				from = f;
				to = e;
				break;
			}
		}
place:
	jump[from] = (unsigned char)to;
	is_end[to] = true;
}

void snakes_board_generate(struct gb_rng *r, int max_tries, unsigned char jump[SNAKES_SQUARES + 1])
{
	bool is_end[SNAKES_SQUARES + 1] = { false };
	int ladders = 0, snakes = 0;

	for (int q = 1; q <= SNAKES_SQUARES; q++) {
		if (!jump[q])
			continue;
		is_end[jump[q]] = true;
		if (jump[q] > q)
			ladders++;
		else
			snakes++;
	}
	for (; ladders < SNAKES_LADDERS; ladders++)
		place_piece(r, max_tries, jump, is_end, true);
	for (; snakes < SNAKES_SNAKES; snakes++)
		place_piece(r, max_tries, jump, is_end, false);
}

/* ---- read-only view ---- */

bool snakes_needs_six(const struct snakes *s)
{
	return s->winner < 0 && s->rules.v[SNAKES_RULE_ENTRY] == SNAKES_ENTRY_SIX && s->pos[s->to_move] == 0;
}

enum snakes_status snakes_status(const struct snakes *s)
{
	if (s->winner >= 0)
		return SNAKES_STATUS_OVER;
	if (s->sixes > 0)
		return SNAKES_STATUS_ROLL_AGAIN;
	if (snakes_needs_six(s))
		return SNAKES_STATUS_NEEDS_SIX;
	return SNAKES_STATUS_ROLL;
}

const char *snakes_status_text(enum snakes_status st)
{
	switch (st) {
	case SNAKES_STATUS_OVER:
		return "game over";
	case SNAKES_STATUS_NEEDS_SIX:
		return "needs a 6 to enter";
	case SNAKES_STATUS_ROLL:
		return "to roll";
	case SNAKES_STATUS_ROLL_AGAIN:
		return "rolls again";
	}
	return "";
}

int snakes_position(const struct snakes *s, int seat)
{
	return seat >= 0 && seat < GB_MAX_SEATS ? s->pos[seat] : 0;
}

int snakes_winner(const struct snakes *s)
{
	return s->winner;
}

int snakes_sixes(const struct snakes *s)
{
	return s->sixes;
}

int snakes_rule(const struct snakes *s, enum snakes_rule rule)
{
	return (int)rule >= 0 && rule < SNAKES_NRULES ? s->rules.v[rule] : 0;
}

int snakes_jump(const struct snakes *s, int square)
{
	if (square < 1 || square > SNAKES_SQUARES || !s->jump[square])
		return square;
	return s->jump[square];
}

int snakes_pieces(const struct snakes *s, int kind, int out[][2])
{
	int n = 0;

	for (int q = 1; q <= SNAKES_SQUARES; q++) {
		int d = s->jump[q];

		if (d && (kind == 0 ? d > q : d < q) && n < SNAKES_SNAKES) {
			out[n][0] = q;
			out[n][1] = d;
			n++;
		}
	}
	return n;
}

void snakes_square_xy(int square, int *col, int *row)
{
	int i = square - 1;

	if (square < 1 || square > SNAKES_SQUARES) {
		*col = *row = -1;
		return;
	}
	*row = i / 10;
	*col = (*row % 2 == 0) ? i % 10 : 9 - i % 10;
}

/* ---- the game ---- */

int snakes_init(void *st, const struct gb_setup *su)
{
	struct snakes *s = st;
	struct gb_rng board_rng;
	int rc = GB_OK;

	memset(s, 0, sizeof(*s));
	/* one seat is allowed for analysis (arena: a lone token's race length); tables need two */
	if (su->players < 1 || su->players > SNAKES_MAX_PLAYERS) {
		rc = GB_EPLAYERS;
		goto out;
	}
	for (int i = 0; i < GB_MAX_RULES; i++)
		if (su->rules.v[i] >= (i < SNAKES_NRULES ? rule_nvalues(i) : 1)) {
			rc = GB_ERULE_VALUE;
			goto out;
		}
	s->rules = su->rules;
	s->players = (unsigned char)su->players;
	s->winner = -1;
	gb_rng_seed(&s->rng, su->seed);
	if (s->rules.v[SNAKES_RULE_BOARD] == SNAKES_BOARD_RANDOM) {
		/* SL-7: from the seed, on a stream of its own so the dice do not depend on the board */
		gb_rng_seed(&board_rng, gb_seed_derive(su->seed, SEED_STREAM_BOARD));
		memset(s->jump, 0, sizeof(s->jump));
		snakes_board_generate(&board_rng, SNAKES_BOARD_TRIES, s->jump);
	} else {
		classic_board(s->jump);
	}
out:
	if (rc)
		memset(s, 0, sizeof(*s));
	return rc;
}

int snakes_turn(const void *st)
{
	const struct snakes *s = st;

	return s->winner >= 0 ? -1 : s->to_move;
}

int snakes_legal(const void *st, struct gb_action *out)
{
	const struct snakes *s = st;

	if (s->winner >= 0)
		return 0;
	out[0] = (struct gb_action){ .kind = GB_ACT_ROLL };
	return 1;
}

/* The die passes on: next seat, a fresh turn. */
static void pass_turn(struct snakes *s)
{
	s->turns++;
	s->to_move = (unsigned char)((s->to_move + 1) % s->players);
	s->sixes = 0;
	s->turn_start = s->pos[s->to_move];
}

static void finish_game(struct snakes *s, int seat, struct gb_events *ev)
{
	gb_events_push(ev, SNAKES_EV_WIN, seat, 0, 0, 0);
	s->winner = (signed char)seat;
	s->turns++;
	s->sixes = 0;
	s->turn_start = SNAKES_SQUARES;
}

/*
 * One roll. Order of the checks follows the rules: the three-sixes check
 * comes before the move is worked out (SL-16), then entering (SL-8..SL-12),
 * then the move with its finish rule (SL-18..SL-20) and the square's ladder
 * or snake (SL-3, SL-21), then whether the die comes back (SL-10, SL-13,
 * SL-14, SL-19).
 */
int snakes_apply(void *st, const struct gb_action *act, struct gb_events *ev)
{
	struct snakes *s = st;
	int rc = GB_OK, seat, from, die, to;
	bool again;

	if (s->winner >= 0) {
		rc = GB_EOVER;
		goto out;
	}
	if (act->kind != GB_ACT_ROLL) {
		rc = GB_EPHASE;
		goto out;
	}
	if (act->a != 0 || act->b != 0 || act->die < 0 || act->die > 6) {
		rc = GB_EILLEGAL;
		goto out;
	}
	/* validated: from here on the state changes */
	seat = s->to_move;
	from = s->pos[seat];
	die = act->die ? act->die : gb_rng_die(&s->rng);
	gb_events_push(ev, SNAKES_EV_ROLL, seat, die, 0, 0);
	if (die == 6)
		s->sixes++;
	if (s->sixes == 3) {
		/*
		 * SL-15/SL-16: the third six moves nothing. The Nepali original: lose_turn goes back
		 * to where the token was when the turn began ("पालो सुरु हुँदाको ठाउँ
		 * भनेको पूरै हो"), off the board if it began off; restart goes off.
		 */
		int back = s->rules.v[SNAKES_RULE_THREE_SIXES] == SNAKES_THREE_RESTART ? 0 : s->turn_start;

		gb_events_push(ev, SNAKES_EV_THIRD_SIX, seat, 0, 0, 0);
		gb_events_push(ev, SNAKES_EV_BACK, seat, back, 0, 0);
		s->pos[seat] = (unsigned char)back;
		pass_turn(s);
		goto out;
	}
	if (from == 0 && s->rules.v[SNAKES_RULE_ENTRY] == SNAKES_ENTRY_SIX) {
		if (die != 6) {
			gb_events_push(ev, SNAKES_EV_WAIT, seat, 0, 0, 0);
			pass_turn(s);
			goto out;
		}
		/* SL-9, SL-11: placed on 1, not landed there, so square 1's ladder is ignored;
		 * SL-10: the die always comes back, whatever six_bonus says. */
		gb_events_push(ev, SNAKES_EV_ENTER, seat, 1, 0, 0);
		s->pos[seat] = 1;
		goto out;
	}
	again = die == 6 && s->rules.v[SNAKES_RULE_SIX_BONUS] == SNAKES_BONUS_ON;
	to = from + die;
	if (to > SNAKES_SQUARES) {
		if (s->rules.v[SNAKES_RULE_FINISH] == SNAKES_FINISH_EXACT) {
			/* SL-18, SL-19: no move, no bounce; still a roll (and a six still counts) */
			gb_events_push(ev, SNAKES_EV_BLOCKED, seat, from, 0, 0);
			if (!again)
				pass_turn(s);
			goto out;
		}
		to = SNAKES_SQUARES; /* SL-20 */
	}
	if (s->jump[to]) {
		gb_events_push(ev, s->jump[to] > to ? SNAKES_EV_LADDER : SNAKES_EV_SNAKE, seat, to,
			       s->jump[to], from);
		to = s->jump[to];
	} else {
		gb_events_push(ev, SNAKES_EV_MOVE, seat, from, to, 0);
	}
	s->pos[seat] = (unsigned char)to;
	if (to == SNAKES_SQUARES) {
		finish_game(s, seat, ev); /* SL-4, SL-21: the winning roll gives no other */
		goto out;
	}
	if (!again)
		pass_turn(s);
out:
	return rc;
}

int snakes_parse(const void *st, const char *text, struct gb_action *out)
{
	char word[16];
	const char *rest;
	int rc = GB_OK;

	(void)st;
	rest = gb_next_word(text, word, sizeof(word));
	if (!rest || strcmp(word, "roll") != 0) {
		rc = GB_EPARSE;
		goto out;
	}
	/* Nothing may follow: the die is never the player's to name. */
	if (gb_next_word(rest, word, sizeof(word))) {
		rc = GB_EPARSE;
		goto out;
	}
	*out = (struct gb_action){ .kind = GB_ACT_ROLL };
out:
	return rc;
}

void snakes_format(const void *st, const struct gb_action *act, char *buf, size_t n)
{
	(void)st;
	if (n == 0)
		return;
	snprintf(buf, n, "%s", act->kind == GB_ACT_ROLL ? "roll" : "");
}

void snakes_format_event(const struct gb_event *e, char *buf, size_t n)
{
	if (n == 0)
		return;
	switch (e->type) {
	case SNAKES_EV_ROLL:
		snprintf(buf, n, "roll %d", e->a);
		break;
	case SNAKES_EV_ENTER:
		snprintf(buf, n, "enter");
		break;
	case SNAKES_EV_WAIT:
		snprintf(buf, n, "wait");
		break;
	case SNAKES_EV_MOVE:
		snprintf(buf, n, "move %d %d", e->a, e->b);
		break;
	case SNAKES_EV_LADDER:
		snprintf(buf, n, "ladder %d %d", e->a, e->b);
		break;
	case SNAKES_EV_SNAKE:
		snprintf(buf, n, "snake %d %d", e->a, e->b);
		break;
	case SNAKES_EV_BLOCKED:
		snprintf(buf, n, "blocked");
		break;
	case SNAKES_EV_THIRD_SIX:
		snprintf(buf, n, "third six");
		break;
	case SNAKES_EV_BACK:
		snprintf(buf, n, "back %d", e->a);
		break;
	case SNAKES_EV_WIN:
		snprintf(buf, n, "wins");
		break;
	default:
		buf[0] = '\0';
		break;
	}
}

/* ---- JSON ---- */

static json_t *pieces_json(const struct snakes *s, int kind)
{
	int p[SNAKES_SNAKES][2];
	int n = snakes_pieces(s, kind, p);
	json_t *arr = json_array();

	for (int i = 0; arr && i < n; i++)
		json_array_append_new(arr, json_pack("[ii]", p[i][0], p[i][1]));
	return arr;
}

/* Caller owns the result (json_decref). */
json_t *snakes_to_json(const void *st)
{
	const struct snakes *s = st;
	json_t *o = json_object(), *pos = json_array(), *board = json_object();
	char hex[65];

	if (!o || !pos || !board) {
		json_decref(o);
		json_decref(pos);
		json_decref(board);
		return NULL;
	}
	for (int i = 0; i < s->players; i++)
		json_array_append_new(pos, json_integer(s->pos[i]));
	json_object_set_new(board, "ladders", pieces_json(s, 0));
	json_object_set_new(board, "snakes", pieces_json(s, 1));
	gb_rng_to_hex(&s->rng, hex);
	json_object_set_new(o, "positions", pos);
	json_object_set_new(o, "winner", s->winner >= 0 ? json_integer(s->winner) : json_null());
	json_object_set_new(o, "board", board);
	json_object_set_new(o, "to_move", json_integer(s->to_move));
	json_object_set_new(o, "sixes", json_integer(s->sixes));
	json_object_set_new(o, "turn_start", json_integer(s->turn_start));
	json_object_set_new(o, "turns", json_integer(s->turns));
	json_object_set_new(o, "rules", gb_rule_defs_json(snakes_rules, SNAKES_NRULES, &s->rules));
	json_object_set_new(o, "rng", json_string(hex));
	return o;
}

/* An integer member lo..hi into *out, or GB_ESTATE. */
static int get_int(const json_t *o, const char *key, long long lo, long long hi, long long *out)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return GB_ESTATE;
	*out = json_integer_value(v);
	return GB_OK;
}

/* One list of [from, to] pairs into jump[]; every pair must point the right way. */
static int pieces_from_json(const json_t *arr, bool ladders, unsigned char jump[SNAKES_SQUARES + 1])
{
	size_t i;
	const json_t *pair;

	if (!json_is_array(arr))
		return GB_ESTATE;
	json_array_foreach(arr, i, pair) {
		const json_t *a = json_array_get(pair, 0), *b = json_array_get(pair, 1);
		long long from, to;

		if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(a) ||
		    !json_is_integer(b))
			return GB_ESTATE;
		from = json_integer_value(a);
		to = json_integer_value(b);
		if (from < 1 || from > SNAKES_SQUARES || to < 1 || to > SNAKES_SQUARES || jump[from] ||
		    (ladders ? to <= from : to >= from))
			return GB_ESTATE;
		jump[from] = (unsigned char)to;
	}
	return GB_OK;
}


int snakes_from_json(void *st, const json_t *j)
{
	struct snakes *s = st;
	const json_t *pos, *board, *w, *v;
	long long x;
	size_t i;
	int rc = GB_OK;

	memset(s, 0, sizeof(*s));
	pos = json_object_get(j, "positions");
	board = json_object_get(j, "board");
	w = json_object_get(j, "winner");
	if (!json_is_object(j) || !json_is_array(pos) || json_array_size(pos) < 1 ||
	    json_array_size(pos) > GB_MAX_SEATS || !json_is_object(board) || !w) {
		rc = GB_ESTATE;
		goto out;
	}
	s->players = (unsigned char)json_array_size(pos);
	json_array_foreach(pos, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > SNAKES_SQUARES) {
			rc = GB_ESTATE;
			goto out;
		}
		s->pos[i] = (unsigned char)json_integer_value(v);
	}
	if (json_is_null(w)) {
		s->winner = -1;
	} else if (json_is_integer(w) && json_integer_value(w) >= 0 && json_integer_value(w) < s->players) {
		s->winner = (signed char)json_integer_value(w);
	} else {
		rc = GB_ESTATE;
		goto out;
	}
	rc = get_int(j, "to_move", 0, s->players - 1, &x);
	if (rc)
		goto out;
	s->to_move = (unsigned char)x;
	rc = get_int(j, "sixes", 0, 2, &x);
	if (rc)
		goto out;
	s->sixes = (unsigned char)x;
	rc = get_int(j, "turn_start", 0, SNAKES_SQUARES, &x);
	if (rc)
		goto out;
	s->turn_start = (unsigned char)x;
	rc = get_int(j, "turns", 0, INT32_MAX, &x);
	if (rc)
		goto out;
	s->turns = (int32_t)x;
	v = json_object_get(j, "rules");
	if (!v || gb_rule_defs_from_json(snakes_rules, SNAKES_NRULES, &s->rules, v)) {
		rc = GB_ESTATE;
		goto out;
	}
	v = json_object_get(j, "rng");
	if (!json_is_string(v) || gb_rng_from_hex(&s->rng, json_string_value(v))) {
		rc = GB_ESTATE;
		goto out;
	}
	rc = pieces_from_json(json_object_get(board, "ladders"), true, s->jump);
	if (!rc)
		rc = pieces_from_json(json_object_get(board, "snakes"), false, s->jump);
	if (rc)
		goto out;
	/* The fields gb_state_json() adds are derived: when present they must agree. */
	v = json_object_get(j, "game");
	if (v && (!json_is_string(v) || strcmp(json_string_value(v), "snakes") != 0))
		rc = GB_ESTATE;
	v = json_object_get(j, "over");
	if (v && (!json_is_boolean(v) || json_is_true(v) != (s->winner >= 0)))
		rc = GB_ESTATE;
	v = json_object_get(j, "turn");
	if (v && !(s->winner >= 0 ? json_is_null(v)
				  : json_is_integer(v) && json_integer_value(v) == s->to_move))
		rc = GB_ESTATE;
	if (!rc && snakes_check(s))
		rc = GB_ESTATE;
out:
	if (rc)
		memset(s, 0, sizeof(*s));
	return rc;
}

/* ---- invariants ---- */

/* The board: classic exactly, or a random one within every SL-7 bound. */
static bool board_ok(const struct snakes *s)
{
	unsigned char classic[SNAKES_SQUARES + 1];
	bool is_end[SNAKES_SQUARES + 1] = { false };
	int ladders = 0, snakes = 0, run = 0;

	if (s->rules.v[SNAKES_RULE_BOARD] == SNAKES_BOARD_CLASSIC) {
		classic_board(classic);
		return memcmp(classic, s->jump, sizeof(classic)) == 0;
	}
	if (s->jump[0] != 0)
		return false;
	for (int q = 1; q <= SNAKES_SQUARES; q++) {
		int d = s->jump[q];
		int span = d > q ? d - q : q - d;

		if (!d)
			continue;
		if (d > SNAKES_SQUARES || span < SNAKES_SPAN_MIN || span > SNAKES_SPAN_MAX || is_end[d])
			return false;
		is_end[d] = true;
		if (d > q)
			ladders++;
		else
			snakes++;
	}
	if (ladders != SNAKES_LADDERS || snakes != SNAKES_SNAKES || s->jump[SNAKES_SQUARES] != 0)
		return false;
	for (int q = 1; q <= SNAKES_SQUARES; q++) {
		if (s->jump[q] && is_end[q])
			return false; /* an end is also a start: one piece would carry into the next */
		run = (s->jump[q] && s->jump[q] < q) ? run + 1 : 0;
		if (run > SNAKES_MAX_HEAD_RUN)
			return false;
	}
	return true;
}

int snakes_check(const void *st)
{
	const struct snakes *s = st;
	const bool entry_six = s->rules.v[SNAKES_RULE_ENTRY] == SNAKES_ENTRY_SIX;
	const bool bonus = s->rules.v[SNAKES_RULE_SIX_BONUS] == SNAKES_BONUS_ON;
	int at100 = 0, rc = GB_EINVARIANT;

	if (s->players < 1 || s->players > GB_MAX_SEATS || s->to_move >= s->players)
		goto out;
	for (int i = 0; i < GB_MAX_RULES; i++)
		if (s->rules.v[i] >= (i < SNAKES_NRULES ? rule_nvalues(i) : 1))
			goto out;
	if ((s->rng.s[0] | s->rng.s[1] | s->rng.s[2] | s->rng.s[3]) == 0)
		goto out; /* xoshiro never leaves the all-zero state, nor reaches it */
	if (!board_ok(s) || s->turns < 0)
		goto out;
	for (int i = 0; i < GB_MAX_SEATS; i++) {
		int p = s->pos[i];

		if (i >= s->players ? p != 0 : p > SNAKES_SQUARES)
			goto out;
		at100 += p == SNAKES_SQUARES;
		/* Nobody rests on a ladder foot or snake head, except a token placed
		 * on square 1 by an entering six (SL-11). */
		if (p && s->jump[p] && !(p == 1 && entry_six))
			goto out;
	}
	if (s->winner >= 0) {
		/* SL-4: the first token on 100 ends the game, nobody plays on */
		if (s->winner >= s->players || s->to_move != s->winner || s->pos[s->winner] != SNAKES_SQUARES ||
		    at100 != 1 || s->sixes != 0 || s->turn_start != SNAKES_SQUARES || s->turns < 1)
			goto out;
	} else {
		if (s->winner != -1 || at100 != 0 || s->sixes > 2)
			goto out;
		if (s->sixes == 0 && s->turn_start != s->pos[s->to_move])
			goto out; /* nothing has happened yet in this turn */
		if (s->turn_start && s->jump[s->turn_start] && !(s->turn_start == 1 && entry_six))
			goto out;
		/* Without six_bonus only the entering six gives the die back (SL-14). */
		if (!bonus && s->sixes > 0 &&
		    !(entry_six && s->sixes == 1 && s->turn_start == 0 && s->pos[s->to_move] == 1))
			goto out;
		/* An entering six leaves the token on 1, so a turn begun off the board
		 * with entry=six has its token on the board once a six came. */
		if (entry_six && s->turn_start == 0 && s->sixes > 0 && s->pos[s->to_move] == 0)
			goto out;
	}
	rc = GB_OK;
out:
	return rc;
}

void snakes_outcome(const void *st, struct gb_outcome *out)
{
	const struct snakes *s = st;

	memset(out, 0, sizeof(*out));
	out->over = s->winner >= 0;
	out->winner = s->winner;
	out->draw = false;
	out->turns = s->turns;
}
