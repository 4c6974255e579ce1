/*
 * test_callbreak_net.c - cmocka suite for the learned Call Break networks
 * (games/ai/callbreak_net.c) and the inputs the hard level gives them
 * (games/ai/callbreak_ai.c).
 *
 * What it proves: the compiled-in weights pass their checksum, and one
 * changed weight is refused; the inputs of a position say what the seat
 * knows and nothing else (its hand, the cards still out as one set, the
 * table, the bids and tricks; two states that differ only in how the other
 * hands are dealt give the same inputs), for every decision of whole games;
 * both play networks' cards are always legal ones; the bid network gives a
 * distribution over 0..13 tricks that ranks hands as a player would (a hand
 * of top spades takes eight tricks or more, a hand of low side cards most
 * likely none); and the hard level with its learned parts makes the same
 * decision for the same view and seed, and another one when they are off
 * somewhere; the network's chances over the legal cards sum to one, and
 * the search narrowed to the network's likeliest card (prune=1) or swayed
 * by an overwhelming prior plays that card.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "games/ai/ai.h"
#include "games/ai/callbreak_ai.h"
#include "games/ai/callbreak_net.h"
#include "games/callbreak.h"
#include "games/game.h"
#include "games/rng.h"
#include "tests/size.h"

static const struct gb_game *G = &callbreak_game;

static void start(struct callbreak *st, uint64_t seed, int dealer)
{
	struct gb_setup su;

	gb_setup_init(&su, G);
	su.seed = seed;
	su.dealer = dealer;
	assert_int_equal(G->init(st, &su), GB_OK);
}

static void test_weights_checked(void **state)
{
	const struct callbreak_net *net = callbreak_net_builtin();
	struct callbreak_net *copy;
	uint32_t sum;

	(void)state;
	assert_non_null(net);
	assert_ptr_equal(callbreak_net_builtin(), net); /* the same answer every time */
	copy = malloc(sizeof(*copy));
	assert_non_null(copy);
	memcpy(copy, net, sizeof(*copy));
	sum = callbreak_net_checksum(copy, CBN_VERSION);
	assert_int_equal(sum, callbreak_net_checksum(net, CBN_VERSION));
	copy->field.w2[17][3] += 1.0f / 1024.0f;
	assert_int_not_equal(callbreak_net_checksum(copy, CBN_VERSION), sum);
	/* weights installed for the training tools: only with their checksum */
	assert_int_equal(callbreak_net_install(copy, sum), -1);
	assert_ptr_equal(callbreak_net_builtin(), net);
	copy->field.w2[17][3] = net->field.w2[17][3];
	assert_int_not_equal(callbreak_net_checksum(copy, CBN_VERSION + 1), sum);
	assert_int_equal(callbreak_net_install(copy, sum), 0);
	assert_ptr_equal(callbreak_net_builtin(), copy);
	/* the same weights as the compiled-in ones: the later tests play alike;
	 * copy is never freed, as an installed set must outlive its players */
}

/* The value of input i in f, 0 when absent; every index appears once. */
static float input(const struct cbn_feat *f, int i)
{
	float x = 0.0f;
	int seen = 0;

	for (int k = 0; k < f->n; k++)
		if (f->idx[k] == i) {
			x = f->val[k];
			seen++;
		}
	assert_true(seen <= 1);
	return x;
}

/* Deal the other seats' cards again by swapping two of them between two other hands, when the rules allow. */
static void reshuffle(struct callbreak *st, int me, struct gb_rng *r)
{
	for (int t = 0; t < 200; t++) {
		int a = (int)gb_rng_below(r, CB_SEATS), b = (int)gb_rng_below(r, CB_SEATS), x, y;
		uint64_t ha, hb;

		if (a == me || b == me || a == b || !st->hand[a] || !st->hand[b])
			continue;
		ha = st->hand[a];
		hb = st->hand[b];
		x = (int)__builtin_ctzll(ha);
		for (uint32_t k = gb_rng_below(r, (uint32_t)__builtin_popcountll(ha)); k; k--)
			x = (int)__builtin_ctzll(ha &= ha - 1);
		y = (int)__builtin_ctzll(hb);
		for (uint32_t k = gb_rng_below(r, (uint32_t)__builtin_popcountll(hb)); k; k--)
			y = (int)__builtin_ctzll(hb &= hb - 1);
		if ((st->lacks[b] & CB_BIT(x)) || (st->lacks[a] & CB_BIT(y)))
			continue;
		st->hand[a] = (st->hand[a] & ~CB_BIT(x)) | CB_BIT(y);
		st->hand[b] = (st->hand[b] & ~CB_BIT(y)) | CB_BIT(x);
	}
}

/* Check the play inputs of the seat to play in st against what its view says. */
static void check_play_inputs(const struct callbreak *st, struct gb_rng *r)
{
	const struct callbreak_net *net = callbreak_net_builtin();
	struct callbreak_view v, v2;
	struct callbreak other = *st;
	struct cbn_feat f, f2;
	uint64_t table = 0;
	float hid[CBN_PLAY_HID];
	int me = G->turn(st), c;

	callbreak_view(st, me, &v);
	callbreak_ai_features(&v, &f);
	for (int i = 0; i < v.ntrick; i++)
		table |= CB_BIT(v.trick[i]);
	for (int k = 0; k < f.n; k++)
		assert_true(f.idx[k] < CBN_PLAY_IN);
	for (int card = 0; card < CB_CARDS; card++) {
		bool out = !(v.hand & CB_BIT(card)) && !(v.gone & CB_BIT(card)) && !(table & CB_BIT(card));

		assert_true(input(&f, card) == ((v.hand & CB_BIT(card)) ? 1.0f : 0.0f));
		assert_true(input(&f, 52 + card) == (out ? 1.0f : 0.0f));
	}
	for (int i = 0; i < v.ntrick; i++) {
		int r1 = ((v.leader + i) % CB_SEATS - me + CB_SEATS) % CB_SEATS;

		assert_true(input(&f, 104 + (r1 - 1) * 52 + v.trick[i]) == 1.0f);
	}
	assert_true(input(&f, 272) == (float)v.bid[me] / 8.0f);
	assert_true(input(&f, 273) == (float)v.tricks[me] / 8.0f);
	assert_true(input(&f, 289 + v.ntrick) == 1.0f);
	/* the other hands dealt again: the same inputs */
	reshuffle(&other, me, r);
	assert_int_equal(G->check(&other), GB_OK);
	callbreak_view(&other, me, &v2);
	callbreak_ai_features(&v2, &f2);
	assert_int_equal(f.n, f2.n);
	assert_memory_equal(f.idx, f2.idx, (size_t)f.n * sizeof(f.idx[0]));
	assert_memory_equal(f.val, f2.val, (size_t)f.n * sizeof(f.val[0]));
	/* the network's card is a legal one */
	callbreak_net_hidden(&net->own, &f, hid);
	c = callbreak_net_card(&net->own, hid, v.legal);
	assert_true(c >= 0 && (v.legal & CB_BIT(c)));
	callbreak_net_hidden(&net->field, &f, hid);
	c = callbreak_net_card(&net->field, hid, v.legal);
	assert_true(c >= 0 && (v.legal & CB_BIT(c)));
}

static void test_play_inputs(void **state)
{
	struct gb_rng r;
	long checked = 0;
	const int games = test_size(40, 10);

	(void)state;
	gb_rng_seed(&r, 606);
	for (int g = 0; g < games; g++) {
		struct callbreak st;
		struct gb_outcome oc;

		start(&st, gb_rng_next(&r), g % 4);
		for (long k = 0;; k++) {
			struct gb_action a;

			G->outcome(&st, &oc);
			if (oc.over)
				break;
			if (st.phase == CB_PHASE_PLAY) {
				check_play_inputs(&st, &r);
				checked++;
			}
			assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_MEDIUM, gb_rng_next(&r), 0, &a), GB_OK);
			assert_int_equal(G->apply(&st, &a, NULL), GB_OK);
		}
	}
	printf("play inputs checked at %ld decisions\n", checked);
	assert_true(checked == 52L * 5 * games);
}

/* The bid network's distribution for a hand (cards by name) bid first; returns the mean. */
static double bid_mean(const char *const *cards, int n, double p[CBN_BID_OUT])
{
	struct callbreak_view v;
	struct cbn_feat f;
	double sum = 0.0, mean = 0.0;

	memset(&v, 0, sizeof(v));
	v.seat = 1;
	v.dealer = 0;
	v.round = 1;
	v.rounds = 5;
	v.phase = CB_PHASE_BID;
	for (int i = 0; i < n; i++) {
		int c;

		assert_int_equal(callbreak_card_parse(cards[i], &c), GB_OK);
		v.hand |= CB_BIT(c);
	}
	callbreak_ai_bid_features(&v, &f);
	assert_true(input(&f, 52) == 1.0f); /* the first to bid */
	for (int i = 53; i < 80; i++)
		assert_true(input(&f, i) == 0.0f); /* no bids before it */
	callbreak_net_bid(callbreak_net_builtin(), &f, p);
	for (int t = 0; t < CBN_BID_OUT; t++) {
		assert_true(p[t] >= 0.0 && p[t] <= 1.0);
		sum += p[t];
		mean += t * p[t];
	}
	assert_true(sum > 0.999 && sum < 1.001);
	return mean;
}

static void test_bid_distribution(void **state)
{
	static const char *const strong[] = { "AS", "KS", "QS", "JS", "10S", "9S", "8S",
					      "AH", "KH", "AD", "KD", "AC", "KC" };
	static const char *const weak[] = { "2H", "3H", "4H", "5H", "2D", "3D", "4D",
					    "5D", "2C", "3C", "4C", "5C", "6C" };
	double p[CBN_BID_OUT], hi, lo, hi8;

	(void)state;
	hi = bid_mean(strong, 13, p);
	hi8 = p[8] + p[9] + p[10] + p[11] + p[12] + p[13];
	lo = bid_mean(weak, 13, p);
	printf("bid network: strong hand %.2f tricks (8 or more %.2f), weak hand %.2f (none %.2f)\n", hi, hi8, lo,
	       p[0]);
	assert_true(hi > 7.0);
	assert_true(hi8 > 0.5);
	assert_true(lo < 1.0);
	assert_true(p[0] > 0.4);
}

/* The hard level's weights with a search of `deals` deals a decision (and four times that many play-outs). */
static struct callbreak_ai_params small_hard(int deals)
{
	struct callbreak_ai_params p = *callbreak_ai_defaults(GB_LEVEL_HARD);

	p.dets = p.min_dets = p.bid_deals = deals;
	p.rollouts = 4 * deals;
	return p;
}

/* The hard level with its learned parts: the same decision for the same view and seed. */
static void test_same_view_same_decision(void **state)
{
	struct callbreak_ai_params p, off;
	struct callbreak st;
	struct gb_rng r;
	int differ = 0, decisions = 0;

	(void)state;
	p = small_hard(20);
	p.net = 3;
	p.net_bid = 1;
	off = p;
	off.net = 0;
	off.net_bid = 0;
	gb_rng_seed(&r, 99);
	start(&st, 4242, 2);
	for (long k = 0; !(st.phase == CB_PHASE_ROUND_OVER || st.phase == CB_PHASE_GAME_OVER); k++) {
		struct callbreak_view v;
		struct gb_action a, b, c;
		uint64_t seed = gb_rng_next(&r);

		callbreak_view(&st, G->turn(&st), &v);
		assert_int_equal(callbreak_ai_play(&v, &p, seed, 0, &a), GB_OK);
		assert_int_equal(callbreak_ai_play(&v, &p, seed, 0, &b), GB_OK);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_int_equal(callbreak_ai_play(&v, &off, seed, 0, &c), GB_OK);
		decisions++;
		differ += a.a != c.a;
		assert_int_equal(G->apply(&st, &a, NULL), GB_OK);
	}
	printf("learned parts on and off: %d of %d decisions differ\n", differ, decisions);
	assert_int_equal(decisions, 4 + 52);
	assert_true(differ > 0);
}

/*
 * The chance `pol` gives card c and the cards of the hand equal to it: the
 * same suit with no card still out between them.
 */
static float class_chance(const struct callbreak_view *v, const float *pol, int c)
{
	uint64_t live = CB_DECK & ~v->hand & ~v->gone;
	float sum = 0.0f;

	for (int d = 0; d < CB_CARDS; d++) {
		int lo = d < c ? d : c, hi = d < c ? c : d;
		bool between = false;

		if (!(v->legal & CB_BIT(d)) || CB_SUIT(d) != CB_SUIT(c))
			continue;
		for (int x = lo + 1; x < hi; x++)
			between |= (live & CB_BIT(x)) != 0;
		if (!between)
			sum += pol[d];
	}
	return sum;
}

/*
 * The policy prior: with prune=1 only the card `own` gives the most chance
 * (with the cards equal to it) is played out, so hard plays it; with a
 * prior too strong for any play-out to outweigh, the same card.
 */
static void test_policy_prior(void **state)
{
	const struct callbreak_net *net = callbreak_net_builtin();
	struct callbreak_ai_params p, strong;
	struct callbreak st;
	struct gb_rng r;
	int decisions = 0;

	(void)state;
	p = small_hard(12);
	strong = p;
	p.prune = 1;
	strong.prior = 1000000;
	gb_rng_seed(&r, 7);
	start(&st, 515, 1);
	while (st.phase != CB_PHASE_ROUND_OVER && st.phase != CB_PHASE_GAME_OVER) {
		struct callbreak_view v;
		struct gb_action a, b;
		uint64_t seed = gb_rng_next(&r);

		callbreak_view(&st, G->turn(&st), &v);
		assert_int_equal(callbreak_ai_play(&v, &p, seed, 0, &a), GB_OK);
		if (v.phase == CB_PHASE_PLAY && __builtin_popcountll(v.legal) > 1) {
			struct cbn_feat f;
			float hid[CBN_PLAY_HID], pol[52], sum = 0.0f;
			int top;

			callbreak_ai_features(&v, &f);
			callbreak_net_hidden(&net->own, &f, hid);
			top = callbreak_net_card(&net->own, hid, v.legal);
			callbreak_net_policy(&net->own, hid, v.legal, pol);
			for (int c = 0; c < CB_CARDS; c++) {
				assert_true(pol[c] >= 0.0f && (pol[c] == 0.0f || (v.legal & CB_BIT(c))));
				sum += pol[c];
			}
			assert_true(sum > 0.999f && sum < 1.001f);
			assert_true(v.legal & CB_BIT(a.a));
			assert_true(class_chance(&v, pol, a.a) >= class_chance(&v, pol, top) - 1e-6f);
			assert_int_equal(callbreak_ai_play(&v, &strong, seed, 0, &b), GB_OK);
			assert_int_equal(b.a, a.a);
			decisions++;
		}
		assert_int_equal(G->apply(&st, &a, NULL), GB_OK);
	}
	printf("policy prior: %d card decisions with a choice\n", decisions);
	assert_true(decisions > 10);
}

/*
 * The value of a position: at the start of every trick, what `own` says
 * the seat to lead will take from there to the round's end follows what
 * it then takes (medium players at every seat): the errors are smaller
 * than guessing each seat's mean, and every value is a number of tricks
 * there could be. A hard search ending its play-outs by the values
 * (value=1 and value=3) plays legal cards, the same for the same seed.
 */
static void test_position_value(void **state)
{
	const struct callbreak_net *net = callbreak_net_builtin();
	struct callbreak_ai_params p = small_hard(12), q;
	double val[CB_TRICKS * 4], took[CB_TRICKS * 4], err = 0.0, spread = 0.0, mean = 0.0;
	int seat[CB_TRICKS * 4], start_tricks[CB_TRICKS * 4], n = 0, searched = 0;
	struct callbreak st;
	struct gb_rng r;

	(void)state;
	gb_rng_seed(&r, 4711);
	q = p;
	p.value = 1;
	q.value = 3;
	for (int round = 0; round < 4; round++) {
		int first = n;

		start(&st, gb_rng_next(&r), round);
		while (st.phase != CB_PHASE_ROUND_OVER && st.phase != CB_PHASE_GAME_OVER) {
			struct callbreak_view v;
			struct gb_action a, b;
			uint64_t seed = gb_rng_next(&r);

			callbreak_view(&st, G->turn(&st), &v);
			if (v.phase == CB_PHASE_PLAY && v.ntrick == 0) {
				struct cbn_feat f;
				float hid[CBN_PLAY_HID];

				callbreak_ai_features(&v, &f);
				callbreak_net_hidden(&net->own, &f, hid);
				val[n] = callbreak_net_value(&net->own, hid);
				assert_true(val[n] > -1.0 && val[n] < CB_TRICKS + 1.0);
				seat[n] = v.seat;
				start_tricks[n++] = v.tricks[v.seat];
			}
			if (v.phase == CB_PHASE_PLAY && v.ntrick == 0 && (v.held[v.seat] % 4) == 1) {
				assert_int_equal(callbreak_ai_play(&v, &p, seed, 0, &a), GB_OK);
				assert_int_equal(callbreak_ai_play(&v, &p, seed, 0, &b), GB_OK);
				assert_int_equal(a.a, b.a);
				assert_true(v.legal & CB_BIT(a.a));
				assert_int_equal(callbreak_ai_play(&v, &q, seed, 0, &b), GB_OK);
				assert_true(v.legal & CB_BIT(b.a));
				searched++;
			}
			assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_MEDIUM, seed, 0, &a), GB_OK);
			assert_int_equal(G->apply(&st, &a, NULL), GB_OK);
		}
		for (int i = first; i < n; i++)
			took[i] = st.hist[st.nhist - 1][seat[i]].tricks - start_tricks[i];
	}
	for (int i = 0; i < n; i++)
		mean += took[i] / n;
	for (int i = 0; i < n; i++) {
		err += (val[i] - took[i]) * (val[i] - took[i]);
		spread += (mean - took[i]) * (mean - took[i]);
	}
	printf("position values: %d leads, squared error %.2f a lead against %.2f for the mean; %d searches\n", n,
	       err / n, spread / n, searched);
	assert_int_equal(n, 4 * CB_TRICKS);
	assert_true(err < 0.5 * spread);
	assert_true(searched >= 4);
}

/*
 * What the search made of each card, for the training data: the card
 * played as callbreak_ai_play() plays it for the same seed, and it has
 * the best value; every legal card is valued whenever two or more differ
 * (cards equal to each other share one value), nothing else is, and bids
 * and forced cards are not valued at all.
 */
static void test_card_values(void **state)
{
	struct callbreak_ai_params p = small_hard(12);
	struct callbreak st;
	struct gb_rng r;
	int valued = 0, shared = 0;

	(void)state;
	gb_rng_seed(&r, 31);
	start(&st, 1717, 3);
	while (st.phase != CB_PHASE_ROUND_OVER && st.phase != CB_PHASE_GAME_OVER) {
		struct callbreak_view v;
		struct gb_action a, b;
		uint64_t seed = gb_rng_next(&r), live;
		float value[CB_CARDS];
		int finite = 0;

		callbreak_view(&st, G->turn(&st), &v);
		live = CB_DECK & ~v.hand & ~v.gone;
		assert_int_equal(callbreak_ai_play_values(&v, &p, seed, 0, &a, value), GB_OK);
		assert_int_equal(callbreak_ai_play(&v, &p, seed, 0, &b), GB_OK);
		assert_memory_equal(&a, &b, sizeof(a));
		for (int c = 0; c < CB_CARDS; c++) {
			if (isnan(value[c]))
				continue;
			finite++;
			assert_true(v.phase == CB_PHASE_PLAY && (v.legal & CB_BIT(c)));
			assert_true(value[c] <= value[a.a]);
			/* the next higher legal card with nothing live between shares the value */
			for (int d = c + 1; d < CB_CARDS && CB_SUIT(d) == CB_SUIT(c) && !(live & CB_BIT(d)); d++)
				if (v.legal & CB_BIT(d)) {
					assert_true(value[d] == value[c]);
					shared++;
					break;
				}
		}
		if (finite) {
			assert_int_equal(finite, __builtin_popcountll(v.legal));
			valued++;
		}
		assert_int_equal(G->apply(&st, &a, NULL), GB_OK);
	}
	printf("card values: %d decisions valued, %d pairs of equal cards sharing one\n", valued, shared);
	assert_true(valued > 10);
	assert_true(shared > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_checked),
		cmocka_unit_test(test_play_inputs),
		cmocka_unit_test(test_bid_distribution),
		cmocka_unit_test(test_same_view_same_decision),
		cmocka_unit_test(test_policy_prior),
		cmocka_unit_test(test_card_values),
		cmocka_unit_test(test_position_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
