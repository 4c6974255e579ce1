/*
 * callbreak_medium.c - the Call Break players by rule, easy and medium
 * (games/ai/callbreak_ai.c says what each does): the counting of a hand
 * that gives their bids, and the card each plays. Hard's play-outs and
 * its reading of the other seats' plays run medium's rules from here too
 * (callbreak_sim.h).
 */
#include "callbreak_sim.h"

/* ---- counting a hand ------------------------------------------------------ */

/* easy: aces, half the kings, every spade past four (tenths). */
static int count_easy(uint64_t h)
{
	int t = 0, ns = popcount(h & SPADES_MASK);

	for (int s = 0; s < 4; s++) {
		t += (h & CB_BIT(CB_CARD(s, 12))) ? 10 : 0;
		t += (h & CB_BIT(CB_CARD(s, 11))) ? 5 : 0;
	}
	if (ns > 4)
		t += (ns - 4) * 10;
	return t;
}

/*
 * medium: sure and likely tricks (tenths). Spades: the honours a length can
 * guard, then every spade past four once the others run out. Side suits: an
 * ace unless the suit is so long it will be ruffed, a guarded king, a queen
 * behind an honour. Short side suits with spades to spare are ruffs.
 */
static int count_medium(uint64_t h)
{
	int t = 0, ns = popcount(h & SPADES_MASK), used = 0, spare;
	bool a = h & CB_BIT(CB_CARD(CB_SPADES, 12)), k = h & CB_BIT(CB_CARD(CB_SPADES, 11));
	bool q = h & CB_BIT(CB_CARD(CB_SPADES, 10)), j = h & CB_BIT(CB_CARD(CB_SPADES, 9));

	if (a) {
		t += 10;
		used++;
	}
	if (k) {
		t += ns >= 2 ? 10 : 3;
		used++;
	}
	if (q && ns >= 3) {
		t += a || k ? 8 : 6;
		used++;
	}
	if (j && ns >= 4) {
		t += 5;
		used++;
	}
	if (ns > 4)
		t += (ns - 4) * 8;
	spare = ns - used - (ns > 4 ? ns - 4 : 0);
	for (int s = 1; s < 4; s++) {
		uint64_t m = h & CB_SUIT_MASK(s);
		int len = popcount(m);
		bool sa = m & CB_BIT(CB_CARD(s, 12)), sk = m & CB_BIT(CB_CARD(s, 11));
		bool sq = m & CB_BIT(CB_CARD(s, 10));

		if (sa)
			t += len <= 5 ? 10 : 6;
		if (sk && len >= 2)
			t += len > 5 ? 2 : sa ? 8 : len <= 4 ? 5 : 3;
		if (sq && len >= 3 && len <= 4 && (sa || sk))
			t += 3;
		if (spare > 0 && len <= 2) {
			int ruffs = 2 - len < spare ? 2 - len : spare;

			t += ruffs * 7;
			spare -= ruffs;
		}
	}
	return t;
}

int callbreak_ai_count(uint64_t hand, int policy)
{
	return policy == CB_AI_EASY ? count_easy(hand) : count_medium(hand);
}

int cb_clamp_bid(int b)
{
	return b < CB_MIN_BID ? CB_MIN_BID : b > CB_MAX_BID ? CB_MAX_BID : b;
}

/* The bid a policy makes from its count, rounded with `shift` tenths added. */
int cb_count_bid(uint64_t hand, int policy, int shift)
{
	int t = callbreak_ai_count(hand, policy) + shift;

	return cb_clamp_bid(t < 0 ? 0 : t / 10);
}

/* ---- card play --------------------------------------------------------- */

/* Does seat q still need tricks to make its bid (an unset bid needs none)? */
static bool needy(const struct sim *s, int q)
{
	return s->bid[q] > s->tricks[q];
}

/* Which card of m to give away: the least useful one. */
static int throw_card(uint64_t m, uint64_t hand, uint64_t out)
{
	int best = -1, bestv = 1 << 30;

	for (uint64_t x = m; x; x &= x - 1) {
		int c = lowest(x), s = CB_SUIT(c);
		int v = CB_RANK(c) * 4 + popcount(hand & CB_SUIT_MASK(s));

		if (s == CB_SPADES)
			v += 200;
		if (!(out & above(c)))
			v += 100; /* a master: a trick later */
		if (v < bestv) {
			bestv = v;
			best = c;
		}
	}
	return best;
}

/* Could seat q hold no card of suit s, as far as the table can tell? */
static bool maybe_void(const struct sim *s, const struct callbreak_ai_params *p, uint64_t out,
		       int q, int suit)
{
	return popcount(out & CB_SUIT_MASK(suit) & ~s->lacks[q]) <= p->void_guess;
}

/*
 * Could a seat still to play this trick beat card c, if c were winning it?
 * Cards out of the player's sight (`out`) that a seat is not proven to lack
 * are taken as possibly its; a seat that may be void in the led suit and may
 * hold spades may trump.
 */
static bool threatened(const struct sim *s, const struct callbreak_ai_params *p, uint64_t out,
		       int c, int led)
{
	for (int k = s->n + 1; k < CB_SEATS; k++) {
		int q = (s->leader + k) % CB_SEATS;
		uint64_t may = out & ~s->lacks[q];

		if (CB_SUIT(c) == led) {
			if (may & above(c))
				return true;
			if (led != CB_SPADES && (may & SPADES_MASK) && maybe_void(s, p, out, q, led))
				return true;
		} else if ((may & above(c)) && maybe_void(s, p, out, q, led)) {
			return true;
		}
	}
	return false;
}

static int easy_card(const struct sim *s, uint64_t legal)
{
	uint64_t w = 0;
	int c;

	if (s->n == 0) {
		for (int u = 1; u < 4; u++)
			if (legal & CB_BIT(CB_CARD(u, 12)))
				return CB_CARD(u, 12);
		w = legal & ~SPADES_MASK;
		return throw_card(w ? w : legal, legal, 0);
	}
	c = s->trick[callbreak_trick_winner(s->trick, s->n)];
	for (uint64_t x = legal; x; x &= x - 1) {
		int d = lowest(x);

		if (CB_SUIT(d) == CB_SUIT(c) ? CB_RANK(d) > CB_RANK(c) : CB_SUIT(d) == CB_SPADES)
			w |= CB_BIT(d);
	}
	if (w)
		return lowest(w & SPADES_MASK ? w & SPADES_MASK : w);
	return throw_card(legal, legal, 0);
}

static int medium_lead(const struct sim *s, const struct callbreak_ai_params *p, int me,
		       uint64_t hand, uint64_t out)
{
	uint64_t spades = hand & SPADES_MASK, opp_spades = 0;
	bool want = needy(s, me);
	int best = -1, bestn = -1;

	for (int q = 0; q < CB_SEATS; q++) {
		if (q == me)
			continue;
		want = want || needy(s, q);
		opp_spades |= out & SPADES_MASK & ~s->lacks[q];
	}
	if (!want)
		return throw_card(hand, hand, out);
	/* draw trumps with the top spade when long in them */
	if (spades && opp_spades && !(out & above(highest(spades))) &&
	    popcount(spades) >= p->draw_len)
		return highest(spades);
	/* a master in a side suit nobody is likely to ruff */
	for (int u = 1; u < 4; u++) {
		uint64_t m = hand & CB_SUIT_MASK(u);
		int c, left;
		bool safe = true;

		if (!m)
			continue;
		c = highest(m);
		if (out & above(c))
			continue;
		for (int q = 0; q < CB_SEATS && safe; q++)
			if (q != me && (out & SPADES_MASK & ~s->lacks[q]) && maybe_void(s, p, out, q, u))
				safe = false;
		left = popcount(out & CB_SUIT_MASK(u));
		if (safe && left > bestn) {
			bestn = left;
			best = c;
		}
	}
	if (best >= 0)
		return best;
	/* the top spade is a sure trick too */
	if (spades && !(out & above(highest(spades))) && !(hand & ~SPADES_MASK))
		return highest(spades);
	/* lead low: from a short suit when there are spades to ruff with later,
	 * else from the longest */
	for (int u = 1; u < 4; u++) {
		uint64_t m = hand & CB_SUIT_MASK(u);
		int len = popcount(m), score;

		if (!m)
			continue;
		score = spades ? 20 - len : len;
		if (score > bestn) {
			bestn = score;
			best = lowest(m);
		}
	}
	if (best >= 0)
		return best;
	return lowest(spades);
}

int cb_medium_card(const struct sim *s, const struct callbreak_ai_params *p, uint64_t legal)
{
	int me = sim_turn(s), wi, w, led, wseat;
	uint64_t hand = s->hand[me], out = CB_DECK & ~hand & ~s->gone & ~s->table, win = 0;
	bool want;

	if (popcount(legal) == 1)
		return lowest(legal);
	if (s->n == 0)
		return medium_lead(s, p, me, hand, out);
	led = CB_SUIT(s->trick[0]);
	wi = callbreak_trick_winner(s->trick, s->n);
	w = s->trick[wi];
	wseat = (s->leader + wi) % CB_SEATS;
	if (CB_SUIT(w) == CB_SPADES)
		win = legal & above(w);
	else
		win = (legal & above(w)) | (legal & SPADES_MASK);
	want = needy(s, me) || needy(s, wseat);
	for (int k = s->n + 1; k < CB_SEATS && !want; k++)
		want = needy(s, (s->leader + k) % CB_SEATS);
	if (!win || !want)
		return throw_card(legal & ~win ? legal & ~win : legal, hand, out);
	for (uint64_t x = win; x; x &= x - 1)
		if (!threatened(s, p, out, lowest(x), led))
			return lowest(x);
	/* no sure winner: third hand plays its best card if it tops the led
	 * suit, second hand plays low */
	if (s->n == 2 && needy(s, me)) {
		int c = highest(win);

		if (CB_SUIT(c) == led && !(out & above(c)))
			return c;
	}
	return throw_card(legal & ~win ? legal & ~win : legal, hand, out);
}

/* The card a policy plays at position s (the seat to move holds hand[]). */
int cb_policy_card(const struct sim *s, const struct callbreak_ai_params *p)
{
	uint64_t legal = callbreak_legal_cards(s->hand[sim_turn(s)], s->trick, s->n);

	if (p->policy == CB_AI_EASY)
		return easy_card(s, legal);
	return cb_medium_card(s, p, legal);
}
