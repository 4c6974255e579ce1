/*
 * callbreak_json.c - a Call Break state as JSON and back
 * (callbreak_to_json(), callbreak_from_json(); games/callbreak.h).
 *
 * What is written: the primary facts (the hands, the bids and the cards
 * played this round in order, the finished rounds' bids and tricks, the
 * house rules and the dealing stream) and, for readers, the facts derived
 * from them. What is read: the primary facts alone, rebuilt by
 * callbreak_rebuild() through the same legality tests and steps as play,
 * and the derived facts only checked against that rebuild, so a saved state
 * can never hold a position the rules could not reach.
 */
#include "callbreak.h"
#include "callbreak_state.h"

#include <stdio.h>
#include <string.h>

/* Cards of a set in the order people sort a hand: S H D C, high to low. */
static json_t *cards_json(uint64_t m)
{
	json_t *a = json_array();

	for (int s = 0; a && s < 4; s++)
		for (int r = CB_RANKS - 1; r >= 0; r--)
			if (m & CB_BIT(CB_CARD(s, r)))
				json_array_append_new(a, json_string(callbreak_card_name(CB_CARD(s, r))));
	return a;
}

static json_t *seat_or_null(int s)
{
	return s < 0 ? json_null() : json_integer(s);
}

/*
 * Points as a JSON number. jansson writes reals with %.17g, so 3.2 comes out
 * as 3.2000000000000002: that text reads back as exactly the double nearest
 * 3.2, i.e. the one-decimal value; "totals_text" carries the same numbers as
 * people write them ("3.2") for anyone who prints them.
 */
static json_t *points_json(int tenths)
{
	return json_real(tenths / 10.0);
}

json_t *callbreak_to_json(const void *vst)
{
	const struct callbreak *st = vst;
	json_t *o = json_object(), *a;
	char hex[65], text[16];
	int t[CB_SEATS], nt = callbreak_trick_now(st, t);

	if (!o)
		return NULL;
	gb_rng_to_hex(&st->rng, hex);
	json_object_set_new(o, "rules", gb_rule_defs_json(callbreak_rules, CB_NRULES, &st->rules));
	json_object_set_new(o, "rng", json_string(hex));
	json_object_set_new(o, "round", json_integer(st->round));
	json_object_set_new(o, "rounds", json_integer(st->rounds));
	json_object_set_new(o, "dealer", json_integer(st->dealer));
	json_object_set_new(o, "phase", json_string(callbreak_phase_name(st->phase)));

	a = json_array();
	for (int s = 0; s < CB_SEATS; s++)
		json_array_append_new(a, cards_json(st->hand[s]));
	json_object_set_new(o, "hands", a);
	a = json_array();
	for (int s = 0; s < CB_SEATS; s++)
		json_array_append_new(a, st->bid[s] ? json_integer(st->bid[s]) : json_null());
	json_object_set_new(o, "bids", a);
	a = json_array();
	for (int s = 0; s < CB_SEATS; s++)
		json_array_append_new(a, json_integer(st->tricks[s]));
	json_object_set_new(o, "tricks", a);
	a = json_array();
	for (int i = 0; i < nt; i++)
		json_array_append_new(a, json_pack("{s:i,s:s}", "seat", (st->leader + i) % CB_SEATS,
						   "card", callbreak_card_name(t[i])));
	json_object_set_new(o, "trick", a);
	json_object_set_new(o, "leader", json_integer(st->leader));
	a = json_array();
	for (int i = 0; i < st->nplayed; i++)
		json_array_append_new(a, json_string(callbreak_card_name(st->seq[i])));
	json_object_set_new(o, "played", a);
	a = json_array();
	for (int s = 0; s < CB_SEATS; s++) {
		json_t *v = json_array();

		for (int u = 0; u < 4; u++)
			if ((st->lacks[s] & CB_SUIT_MASK(u)) == CB_SUIT_MASK(u))
				json_array_append_new(v, json_string(callbreak_suit_letter(u)));
		json_array_append_new(a, v);
	}
	json_object_set_new(o, "voids", a);

	a = json_array();
	for (int s = 0; s < CB_SEATS; s++)
		json_array_append_new(a, points_json(st->total[s]));
	json_object_set_new(o, "totals", a);
	a = json_array();
	for (int s = 0; s < CB_SEATS; s++) {
		callbreak_tenths_text(st->total[s], false, text, sizeof(text));
		json_array_append_new(a, json_string(text));
	}
	json_object_set_new(o, "totals_text", a);
	a = json_array();
	for (int r = 0; r < st->nhist; r++) {
		json_t *row = json_array();

		for (int s = 0; s < CB_SEATS; s++) {
			const struct cb_line *l = &st->hist[r][s];

			json_array_append_new(row, json_pack("[i,i,o]", l->bid, l->tricks,
							     points_json(l->points)));
		}
		json_array_append_new(a, row);
	}
	json_object_set_new(o, "history", a);
	json_object_set_new(o, "winner", seat_or_null(st->winner));
	a = json_array();
	for (int s = 0; s < CB_SEATS; s++)
		if (st->tied & (1 << s))
			json_array_append_new(a, json_integer(s));
	json_object_set_new(o, "tied", a);
	json_object_set_new(o, "turns", json_integer(callbreak_turns_taken(st)));
	return o;
}

static int get_int(const json_t *o, const char *key, int lo, int hi, int *out)
{
	json_t *v = json_object_get(o, key);
	json_int_t x;

	if (!json_is_integer(v))
		return GB_ESTATE;
	x = json_integer_value(v);
	if (x < lo || x > hi)
		return GB_ESTATE;
	*out = (int)x;
	return GB_OK;
}

/* A JSON array of card texts -> set (ordered list into seq when seq != NULL). */
static int get_cards(const json_t *a, uint64_t *set, unsigned char *seq, int max, int *count)
{
	size_t i;
	json_t *v;
	int card;

	*set = 0;
	if (!json_is_array(a) || json_array_size(a) > (size_t)max)
		return GB_ESTATE;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || callbreak_card_parse(json_string_value(v), &card) ||
		    (*set & CB_BIT(card)))
			return GB_ESTATE;
		*set |= CB_BIT(card);
		if (seq)
			seq[i] = (unsigned char)card;
	}
	if (count)
		*count = (int)json_array_size(a);
	return GB_OK;
}

/* Is JSON number v the value `tenths` / 10 (to well within a tenth)? */
static bool is_tenths(const json_t *v, int tenths)
{
	double d;

	if (!json_is_number(v))
		return false;
	d = json_number_value(v) * 10.0 - tenths;
	return d > -1e-6 && d < 1e-6;
}

/* Four-seat arrays of integers that must equal want[]. Absent is fine. */
static int same_ints(const json_t *o, const char *key, const int32_t want[CB_SEATS])
{
	json_t *a = json_object_get(o, key);

	if (!a)
		return GB_OK;
	if (!json_is_array(a) || json_array_size(a) != CB_SEATS)
		return GB_ESTATE;
	for (int s = 0; s < CB_SEATS; s++) {
		json_t *v = json_array_get(a, (size_t)s);

		if (!json_is_integer(v) || json_integer_value(v) != want[s])
			return GB_ESTATE;
	}
	return GB_OK;
}

/* Is v, when present, the integer want (or null when want < 0 and nullable)? */
static bool int_ok(const json_t *v, int want, bool nullable)
{
	if (!v)
		return true;
	if (nullable && want < 0)
		return json_is_null(v);
	return json_is_integer(v) && json_integer_value(v) == want;
}

/* Compare the derived fields to_json() writes with the rebuilt state. */
static int same_derived(const json_t *j, const struct callbreak *st)
{
	json_t *v, *a;
	int t[CB_SEATS], nt = callbreak_trick_now(st, t), x;
	size_t i;

	v = json_object_get(j, "phase");
	if (v && (!json_is_string(v) || strcmp(json_string_value(v), callbreak_phase_name(st->phase))))
		return GB_ESTATE;
	if (!int_ok(json_object_get(j, "rounds"), st->rounds, false) ||
	    !int_ok(json_object_get(j, "leader"), st->leader, false) ||
	    !int_ok(json_object_get(j, "turns"), callbreak_turns_taken(st), false) ||
	    !int_ok(json_object_get(j, "winner"), st->winner, true))
		return GB_ESTATE;
	if (same_ints(j, "tricks", st->tricks))
		return GB_ESTATE;
	a = json_object_get(j, "trick");
	if (a) {
		if (!json_is_array(a) || json_array_size(a) != (size_t)nt)
			return GB_ESTATE;
		json_array_foreach(a, i, v) {
			if (!json_is_object(v) || get_int(v, "seat", 0, CB_SEATS - 1, &x) ||
			    x != (st->leader + (int)i) % CB_SEATS ||
			    !json_is_string(json_object_get(v, "card")) ||
			    callbreak_card_parse(json_string_value(json_object_get(v, "card")), &x) ||
			    x != t[i])
				return GB_ESTATE;
		}
	}
	a = json_object_get(j, "totals");
	if (a) {
		if (!json_is_array(a) || json_array_size(a) != CB_SEATS)
			return GB_ESTATE;
		for (int s = 0; s < CB_SEATS; s++)
			if (!is_tenths(json_array_get(a, (size_t)s), st->total[s]))
				return GB_ESTATE;
	}
	a = json_object_get(j, "totals_text");
	if (a) {
		char text[16];

		if (!json_is_array(a) || json_array_size(a) != CB_SEATS)
			return GB_ESTATE;
		for (int s = 0; s < CB_SEATS; s++) {
			v = json_array_get(a, (size_t)s);
			callbreak_tenths_text(st->total[s], false, text, sizeof(text));
			if (!json_is_string(v) || strcmp(json_string_value(v), text))
				return GB_ESTATE;
		}
	}
	a = json_object_get(j, "tied");
	if (a) {
		int mask = 0;

		if (!json_is_array(a))
			return GB_ESTATE;
		json_array_foreach(a, i, v) {
			if (!json_is_integer(v) || json_integer_value(v) < 0 ||
			    json_integer_value(v) >= CB_SEATS)
				return GB_ESTATE;
			mask |= 1 << json_integer_value(v);
		}
		if (mask != st->tied)
			return GB_ESTATE;
	}
	a = json_object_get(j, "voids");
	if (a) {
		if (!json_is_array(a) || json_array_size(a) != CB_SEATS)
			return GB_ESTATE;
		for (int s = 0; s < CB_SEATS; s++) {
			json_t *row = json_array_get(a, (size_t)s);
			int mask = 0, want = 0;

			if (!json_is_array(row))
				return GB_ESTATE;
			json_array_foreach(row, i, v) {
				const char *u = json_is_string(v) ? json_string_value(v) : "";
				int k;

				for (k = 0; k < 4 && strcmp(u, callbreak_suit_letter(k)); k++)
					;
				if (k == 4)
					return GB_ESTATE;
				mask |= 1 << k;
			}
			for (int u = 0; u < 4; u++)
				if ((st->lacks[s] & CB_SUIT_MASK(u)) == CB_SUIT_MASK(u))
					want |= 1 << u;
			if (mask != want)
				return GB_ESTATE;
		}
	}
	return GB_OK;
}

int callbreak_from_json(void *vst, const json_t *j)
{
	struct callbreak in, out;
	json_t *a, *row, *cell;
	int rc = GB_ESTATE, n, finished;
	size_t r;

	memset(&in, 0, sizeof(in));
	if (!json_is_object(j))
		goto out;
	if (gb_rule_defs_from_json(callbreak_rules, CB_NRULES, &in.rules, json_object_get(j, "rules")))
		goto out;
	if (!json_is_string(json_object_get(j, "rng")) ||
	    gb_rng_from_hex(&in.rng, json_string_value(json_object_get(j, "rng"))))
		goto out;
	if (get_int(j, "round", 1, CB_MAX_ROUNDS, &in.round) ||
	    get_int(j, "dealer", 0, CB_SEATS - 1, &in.dealer))
		goto out;

	a = json_object_get(j, "hands");
	if (!json_is_array(a) || json_array_size(a) != CB_SEATS)
		goto out;
	for (int s = 0; s < CB_SEATS; s++)
		if (get_cards(json_array_get(a, (size_t)s), &in.hand[s], NULL, CB_RANKS, NULL))
			goto out;
	a = json_object_get(j, "bids");
	if (!json_is_array(a) || json_array_size(a) != CB_SEATS)
		goto out;
	for (int s = 0; s < CB_SEATS; s++) {
		json_t *b = json_array_get(a, (size_t)s);

		if (json_is_null(b))
			continue;
		if (!json_is_integer(b) || json_integer_value(b) < CB_MIN_BID ||
		    json_integer_value(b) > CB_MAX_BID)
			goto out;
		in.bid[s] = (int)json_integer_value(b);
	}
	{
		uint64_t set;

		if (get_cards(json_object_get(j, "played"), &set, in.seq, CB_CARDS, &in.nplayed))
			goto out;
	}

	/* history: the rounds before this one are primary; a finished current
	 * round's line is derived and must agree with the replay */
	finished = in.nplayed == CB_CARDS;
	a = json_object_get(j, "history");
	n = in.round - 1 + finished;
	if (!json_is_array(a) || json_array_size(a) != (size_t)n)
		goto out;
	json_array_foreach(a, r, row) {
		if (!json_is_array(row) || json_array_size(row) != CB_SEATS)
			goto out;
		for (int s = 0; s < CB_SEATS; s++) {
			json_t *b, *t;

			cell = json_array_get(row, (size_t)s);
			if (!json_is_array(cell) || json_array_size(cell) != 3)
				goto out;
			b = json_array_get(cell, 0);
			t = json_array_get(cell, 1);
			if (!json_is_integer(b) || !json_is_integer(t) ||
			    json_integer_value(b) < CB_MIN_BID || json_integer_value(b) > CB_MAX_BID ||
			    json_integer_value(t) < 0 || json_integer_value(t) > CB_TRICKS ||
			    !is_tenths(json_array_get(cell, 2),
				       callbreak_score((int)json_integer_value(b),
						       (int)json_integer_value(t))))
				goto out;
			in.hist[r][s].bid = (int)json_integer_value(b);
			in.hist[r][s].tricks = (int)json_integer_value(t);
		}
	}
	if (callbreak_rebuild(&in, &out))
		goto out;
	if (finished)
		for (int s = 0; s < CB_SEATS; s++)
			if (out.hist[n - 1][s].bid != in.hist[n - 1][s].bid ||
			    out.hist[n - 1][s].tricks != in.hist[n - 1][s].tricks)
				goto out;
	if (same_derived(j, &out))
		goto out;
	memcpy(vst, &out, sizeof(out));
	rc = GB_OK;
out:
	return rc;
}
