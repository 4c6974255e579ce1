/*
 * test_callbreak_search.c - cmocka suite for the searching Call Break
 * players: the hard level (games/ai/callbreak_ai.c) and the reference
 * opponent `ismcts` (games/ai/callbreak_ismcts.c).
 *
 * What it proves: nothing they do reads another seat's hand. Whole games
 * are played, and at every decision of a searching seat the hidden hands
 * are replaced by a fresh random deal consistent with everything that seat
 * could know (hand sizes, the cards gone, every card play proved a seat
 * lacks; check() accepts the result) and the generator of later deals is
 * scrambled: the same seed must give the same decision. Also that ismcts
 * only ever bids and plays what the rules allow, is deterministic from its
 * seed and leaves the state untouched, and that between rounds both say
 * `next`. That the check has teeth: the measurement that hands hard the
 * true hands (callbreak_ai_play_oracle(), which no level can reach)
 * changes its decisions when they are redealt.
 * That a seer (a play network that reads every hand, callbreak_net.h)
 * reads the hands of the play-outs' deals only: the hard search with one
 * in its play-outs passes the same redealing check, while its inputs are
 * the seat's own followed by the other hands.
 * And that in the last three tricks the hard level plays, on the
 * deal it searches, a card as good for itself as the best one a naive
 * double-dummy search through the rules core finds (every seat playing for
 * itself): the exact endgame, where medium's rules would often play
 * another card.
 *
 * Searches are small here (a few dozen iterations, the hard level with few
 * play-outs, and its real size on a few decisions) so that the suite stays
 * fast under the sanitizers; strength and speed are `make bench` rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "games/ai/ai.h"
#include "games/ai/callbreak_ai.h"
#include "games/ai/callbreak_ismcts.h"
#include "games/ai/callbreak_oracle.h"
#include "games/ai/netsum.h"
#include "games/callbreak.h"
#include "games/game.h"
#include "games/rng.h"

static const struct gb_game *G = &callbreak_game;

#define NO_CAP 1000000 /* a budget_ms above the default: the hard level's full search */

enum kind { MEDIUM, HARD_SMALL, HARD, ISMCTS, ORACLE, ORACLE_CHAIN };

static const char *const kind_names[] = { "medium", "hard (small search)", "hard", "ismcts", "oracle",
					   "oracle (chain)" };

/* The view the players are handed: the seat to move's (a spectator's between rounds). */
static struct callbreak_view view_of(const struct callbreak *st)
{
	struct callbreak_view v;

	callbreak_view(st, G->turn(st), &v);
	return v;
}

static int choose(const struct callbreak *st, enum kind k, uint64_t seed, struct gb_action *a)
{
	struct callbreak_ai_params p = *callbreak_ai_defaults(GB_LEVEL_HARD);
	struct callbreak_view v = view_of(st);
	int oracle = 0;

	switch (k) {
	case ORACLE_CHAIN:
		oracle = CB_ORACLE_CHAIN; /* with the small search's sizes */
		/* fall through */
	case HARD_SMALL:
		p.dets = 8;
		p.rollouts = 30;
		p.min_dets = 4;
		p.bid_deals = 8;
		return callbreak_ai_play_oracle(&v, &p, oracle, st->hand, seed, NO_CAP, a);
	case HARD:
		return gb_ai_choose(G, st, GB_LEVEL_HARD, seed, NO_CAP, a);
	case ISMCTS:
		return gb_ai_reference(G, st, 40, seed, a);
	case ORACLE:
		return callbreak_ai_play_oracle(&v, &p, CB_ORACLE_BIDS | CB_ORACLE_CARDS, st->hand, seed, NO_CAP,
						a);
	default:
		return gb_ai_choose(G, st, GB_LEVEL_MEDIUM, seed, 0, a);
	}
}

static void start(struct callbreak *st, uint64_t seed, int rounds_value, int dealer)
{
	struct gb_setup su;

	gb_setup_init(&su, G);
	su.seed = seed;
	su.rules.v[0] = (unsigned char)rounds_value;
	su.dealer = dealer;
	assert_int_equal(G->init(st, &su), GB_OK);
}

static void apply_ok(struct callbreak *st, const struct gb_action *a)
{
	assert_true(gb_action_is_legal(G, st, a));
	assert_int_equal(G->apply(st, a, NULL), GB_OK);
	assert_int_equal(G->check(st), GB_OK);
}

/*
 * The state as another seat-to-move could equally be in: the hands `seat`
 * cannot see dealt afresh, consistently with its view, and the generator of
 * later deals scrambled. Returns whether any hidden hand changed.
 */
static bool hide(const struct callbreak *st, int seat, struct gb_rng *r, struct callbreak *other)
{
	struct callbreak_view v;
	uint64_t hand[CB_SEATS];

	*other = *st;
	callbreak_view(st, seat, &v);
	assert_int_equal(callbreak_ai_deal(&v, gb_rng_next(r), hand), GB_OK);
	memcpy(other->hand, hand, sizeof(hand));
	other->rng.s[0] ^= gb_rng_next(r) | 1;
	assert_int_equal(G->check(other), GB_OK);
	return memcmp(other->hand, st->hand, sizeof(hand)) != 0;
}

/*
 * Whole games of two searching seats and two medium ones; every decision of
 * a searching seat is also taken on a state with the hidden hands redealt.
 * The real hard level takes one decision in ten of the hard seat.
 */
static void test_nothing_reads_another_hand(void **state)
{
	struct gb_rng r;
	long compared[4] = { 0 }, changed = 0, total = 0;

	(void)state;
	gb_rng_seed(&r, 4242);
	for (int g = 0; g < 16; g++) {
		enum kind seats[CB_SEATS] = { HARD_SMALL, MEDIUM, ISMCTS, MEDIUM };
		struct callbreak st;

		start(&st, gb_rng_next(&r), g < 2 ? 1 : 2, g % 4); /* two 3-round games, the rest 1 round */
		for (long k = 0; st.phase != CB_PHASE_GAME_OVER; k++) {
			int seat = G->turn(&st);
			enum kind kd = seat < 0 ? MEDIUM : seats[(seat + g) % CB_SEATS];
			uint64_t seed = gb_seed_derive((uint64_t)g, (uint64_t)k);
			struct gb_action a, b;

			if (kd == HARD_SMALL && total % 10 == 0)
				kd = HARD;
			assert_int_equal(choose(&st, kd, seed, &a), GB_OK);
			if (kd != MEDIUM) {
				struct callbreak other;

				changed += hide(&st, seat, &r, &other);
				assert_int_equal(choose(&other, kd, seed, &b), GB_OK);
				if (memcmp(&a, &b, sizeof(a)) != 0)
					fail_msg("%s, game %d decision %ld: %d/%d with the real hands, %d/%d with others",
						 kind_names[kd], g, k, a.kind, a.a, b.kind, b.a);
				compared[kd]++;
				total++;
			}
			apply_ok(&st, &a);
		}
	}
	printf("hidden hands redealt at %ld decisions (%ld changed): hard %ld (small search %ld), ismcts %ld\n",
	       total, changed, compared[HARD], compared[HARD_SMALL], compared[ISMCTS]);
	assert_true(compared[HARD] >= 20);
	assert_true(compared[HARD_SMALL] >= 200);
	assert_true(compared[ISMCTS] >= 250);
	assert_true(changed > total * 3 / 4);
}

/*
 * The measurements that hand the hard search the true hands (oracle 3, and
 * 4 where they only start its chain of deals) do read them: the
 * redealing above tells their decisions apart, so that check would catch a
 * level that read another seat's hand.
 */
static void oracle_reads(enum kind kind, const char *name)
{
	struct gb_rng r;
	long compared = 0, differ = 0;

	gb_rng_seed(&r, 77);
	for (int g = 0; g < 4; g++) {
		struct callbreak st;

		start(&st, gb_rng_next(&r), 1, g);
		for (long k = 0; st.phase != CB_PHASE_GAME_OVER; k++) {
			int seat = G->turn(&st);
			uint64_t seed = gb_seed_derive((uint64_t)g, (uint64_t)k);
			struct gb_action a, b;
			struct callbreak other;

			if (seat != g % CB_SEATS) {
				assert_int_equal(choose(&st, MEDIUM, seed, &a), GB_OK);
				apply_ok(&st, &a);
				continue;
			}
			assert_int_equal(choose(&st, kind, seed, &a), GB_OK);
			if (hide(&st, seat, &r, &other)) {
				assert_int_equal(choose(&other, kind, seed, &b), GB_OK);
				assert_true(gb_action_is_legal(G, &other, &b));
				differ += memcmp(&a, &b, sizeof(a)) != 0;
				compared++;
			}
			apply_ok(&st, &a);
		}
	}
	printf("%s: %ld of %ld decisions changed with the hidden hands\n", name, differ, compared);
	assert_true(compared >= 40);
	assert_true(differ >= compared / 10);
}

static void test_oracle_reads_the_hands(void **state)
{
	(void)state;
	oracle_reads(ORACLE, "oracle=3");
	oracle_reads(ORACLE_CHAIN, "oracle=4");
}

/* A number in [-0.05, 0.05) from a counter, for a seer's weights. */
static float small_weight(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((*x >> 40) % 1000) / 10000.0f - 0.05f;
}

/*
 * A seer's inputs, its hidden layer, its installation, and the hard search
 * with it in the play-outs (net bits 16 and 32): decisions that depend on
 * it and on nothing of the true deal.
 */
static void test_seer(void **state)
{
	static struct cbn_seer seer;
	const struct callbreak_net *net = callbreak_net_builtin();
	struct callbreak_ai_params p = *callbreak_ai_defaults(GB_LEVEL_HARD);
	struct gb_rng r;
	uint64_t x = 99;
	long positions = 0, compared = 0, differ = 0;
	uint32_t sum;

	(void)state;
	assert_non_null(net);
	/* a seer that is `own` and does not look: own's hidden layer exactly */
	seer.p = net->own;
	memset(seer.wx, 0, sizeof(seer.wx));
	sum = gb_netsum(&seer, sizeof(seer), CBN_VERSION);
	assert_int_equal(callbreak_seer_install(&seer, sum ^ 1), -1);
	assert_null(callbreak_seer());
	gb_rng_seed(&r, 5150);
	for (int g = 0; g < 3; g++) {
		struct callbreak st;

		start(&st, gb_rng_next(&r), 1, g);
		for (long k = 0; st.phase != CB_PHASE_GAME_OVER; k++) {
			struct callbreak_view v = view_of(&st);
			struct gb_action a;

			if (st.phase == CB_PHASE_PLAY) {
				struct cbn_feat f, fs;
				float h1[CBN_PLAY_HID], h2[CBN_PLAY_HID];
				int extra = 0;

				callbreak_ai_features(&v, &f);
				callbreak_ai_seer_features(&v, st.hand, &fs);
				assert_true(fs.n >= f.n);
				assert_memory_equal(f.idx, fs.idx, (size_t)f.n * sizeof(f.idx[0]));
				assert_memory_equal(f.val, fs.val, (size_t)f.n * sizeof(f.val[0]));
				for (int q = 1; q < CB_SEATS; q++)
					for (int c = 0; c < CB_CARDS; c++) {
						bool held = st.hand[(v.seat + q) % CB_SEATS] & CB_BIT(c);
						bool seen = false;

						for (int i = f.n; i < fs.n; i++)
							seen |= fs.idx[i] == CBN_PLAY_IN + (q - 1) * CB_CARDS + c &&
								fs.val[i] == 1.0f;
						assert_true(seen == held);
						extra += held;
					}
				assert_int_equal(fs.n - f.n, extra);
				callbreak_net_hidden(&net->own, &f, h1);
				callbreak_seer_hidden(&seer, &fs, h2);
				assert_memory_equal(h1, h2, sizeof(h1));
				positions++;
			}
			assert_int_equal(choose(&st, MEDIUM, gb_seed_derive((uint64_t)g, (uint64_t)k), &a), GB_OK);
			apply_ok(&st, &a);
		}
	}
	assert_true(positions >= 100);

	/* a seer that looks, in the small search's play-outs */
	for (int i = 0; i < CBN_SEER_X; i++)
		for (int j = 0; j < CBN_PLAY_HID; j++)
			seer.wx[i][j] = small_weight(&x) * 20.0f;
	sum = gb_netsum(&seer, sizeof(seer), CBN_VERSION);
	assert_int_equal(callbreak_seer_install(&seer, sum), 0);
	assert_ptr_equal(callbreak_seer(), &seer);
	p.dets = 8;
	p.rollouts = 30;
	p.min_dets = 4;
	p.bid_deals = 8;
	for (int g = 0; g < 4; g++) {
		struct callbreak st;

		start(&st, gb_rng_next(&r), 1, g);
		for (long k = 0; st.phase != CB_PHASE_GAME_OVER; k++) {
			int seat = G->turn(&st);
			uint64_t seed = gb_seed_derive((uint64_t)g + 50, (uint64_t)k);
			struct gb_action a, b, c;
			struct callbreak other;
			struct callbreak_view v = view_of(&st), w;

			if (seat != g % CB_SEATS) {
				assert_int_equal(choose(&st, MEDIUM, seed, &a), GB_OK);
				apply_ok(&st, &a);
				continue;
			}
			p.net = 1 | 16 | 32;
			assert_int_equal(callbreak_ai_play(&v, &p, seed, NO_CAP, &a), GB_OK);
			hide(&st, seat, &r, &other);
			w = view_of(&other);
			assert_int_equal(callbreak_ai_play(&w, &p, seed, NO_CAP, &b), GB_OK);
			assert_memory_equal(&a, &b, sizeof(a));
			p.net = 1;
			assert_int_equal(callbreak_ai_play(&v, &p, seed, NO_CAP, &c), GB_OK);
			differ += memcmp(&a, &c, sizeof(a)) != 0;
			compared++;
			apply_ok(&st, &a);
		}
	}
	assert_int_equal(callbreak_seer_install(NULL, 0), 0);
	assert_null(callbreak_seer());
	printf("seer: inputs checked at %ld positions; %ld of %ld decisions with it in the play-outs differ from "
	       "without\n",
	       positions, differ, compared);
	assert_true(compared >= 40);
	assert_true(differ >= 3);
}

/* ismcts bids and plays only what the rules allow, from any seat, any rounds value. */
static void test_ismcts_plays_legally(void **state)
{
	struct gb_rng r;
	long actions = 0;

	(void)state;
	gb_rng_seed(&r, 77);
	for (int g = 0; g < 24; g++) {
		struct callbreak st;

		start(&st, gb_rng_next(&r), g % 3, g % 4);
		while (st.phase != CB_PHASE_GAME_OVER) {
			struct gb_action a;
			int seat = G->turn(&st);

			if (seat >= 0 && (seat + g) % 2 == 0) {
				struct callbreak copy = st;
				struct gb_action b;
				uint64_t seed = gb_rng_next(&r);

				assert_int_equal(gb_ai_reference(G, &st, 1 + (int)gb_rng_below(&r, 30), seed, &a), GB_OK);
				assert_true(a.kind == (st.phase == CB_PHASE_BID ? GB_ACT_BID : GB_ACT_PLAY));
				/* deterministic, and the state is not touched */
				assert_int_equal(gb_ai_reference(G, &copy, 0, seed, &b), GB_OK);
				assert_memory_equal(&st, &copy, sizeof(st));
				actions++;
			} else {
				assert_int_equal(gb_ai_random(G, &st, gb_rng_next(&r), &a), GB_OK);
			}
			apply_ok(&st, &a);
		}
		{
			struct gb_action a;

			assert_int_equal(gb_ai_reference(G, &st, 10, 1, &a), GB_EOVER);
		}
	}
	printf("ismcts legal play: %ld decisions\n", actions);
	assert_true(actions > 1800);
}

/* Between rounds every searching player says next. */
static void test_between_rounds_next(void **state)
{
	struct callbreak st;
	struct gb_action a;

	(void)state;
	start(&st, 5, 1, 0);
	while (st.phase != CB_PHASE_ROUND_OVER) {
		assert_int_equal(gb_ai_random(G, &st, (uint64_t)st.nplayed, &a), GB_OK);
		apply_ok(&st, &a);
	}
	assert_int_equal(gb_ai_reference(G, &st, 10, 1, &a), GB_OK);
	assert_int_equal(a.kind, GB_ACT_NEXT);
	assert_int_equal(choose(&st, HARD, 1, &a), GB_OK);
	assert_int_equal(a.kind, GB_ACT_NEXT);
}

/* ---- the last tricks, solved exactly --------------------------------------- */

/*
 * A naive reference through the rules core: the end of the round from st
 * with every hand known, each seat playing the legal card best for itself
 * (the first one on ties, cards in rank order): the seat `me` by its chance
 * of winning a one-round game (1000 for a win, 500 for each tie, times the
 * others), plus a hundredth of its points; every other seat by its round
 * score. Fills points[] with the
 * round's scores in tenths.
 */
static double value_of(const int pts[CB_SEATS], int me)
{
	double win = 1000.0;

	for (int q = 0; q < CB_SEATS; q++)
		if (q != me)
			win *= pts[me] > pts[q] ? 1.0 : pts[me] == pts[q] ? 0.5 : 0.0;
	return win + pts[me] / 100.0;
}

static void reference(const struct callbreak *st, int me, int points[CB_SEATS])
{
	int seat = G->turn(st);
	double bestv = -1e300;
	int best[CB_SEATS] = { 0 };

	if (st->phase != CB_PHASE_PLAY) {
		for (int q = 0; q < CB_SEATS; q++)
			points[q] = st->hist[st->nhist - 1][q].points;
		return;
	}
	for (int c = 0; c < CB_CARDS; c++) {
		struct gb_action a = { .kind = GB_ACT_PLAY, .a = c };
		struct callbreak next = *st;
		int pts[CB_SEATS];
		double val;

		if (!(callbreak_legal_cards(st->hand[seat], (const int[]){ -1 }, 0) & CB_BIT(c)) ||
		    G->apply(&next, &a, NULL) != GB_OK)
			continue;
		reference(&next, me, pts);
		val = seat == me ? value_of(pts, me) : pts[seat];
		if (val > bestv) {
			bestv = val;
			memcpy(best, pts, sizeof(best));
		}
	}
	memcpy(points, best, sizeof(best));
}

/*
 * With three cards or fewer in every hand the hard level follows each
 * candidate card by the exact solution on each deal. Given one deal (its
 * first, which callbreak_ai_deals reproduces), it must play a card that the
 * naive reference above finds best on that deal.
 */
static long last_tricks(long *not_medium)
{
	struct callbreak_ai_params p = *callbreak_ai_defaults(GB_LEVEL_HARD);
	struct gb_rng r;
	long positions = 0;

	p.dets = 1;
	p.rollouts = 1;
	p.min_dets = 1;
	gb_rng_seed(&r, 99);
	for (int g = 0; g < 120; g++) {
		struct callbreak st;

		start(&st, gb_rng_next(&r), 2, g % 4);
		/* to the first seat to move with no hand above three cards */
		while (st.phase == CB_PHASE_BID || __builtin_popcountll(st.hand[0]) > 3 ||
		       __builtin_popcountll(st.hand[1]) > 3 || __builtin_popcountll(st.hand[2]) > 3 ||
		       __builtin_popcountll(st.hand[3]) > 3) {
			struct gb_action a;

			assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_MEDIUM, gb_rng_next(&r), 0, &a), GB_OK);
			apply_ok(&st, &a);
		}
		while (st.phase == CB_PHASE_PLAY) {
			int me = G->turn(&st), want[CB_SEATS], got[CB_SEATS];
			uint64_t seed = gb_rng_next(&r), hands[1][CB_SEATS];
			struct callbreak_view v;
			struct callbreak dealt, after;
			struct gb_action a, m;

			callbreak_view(&st, me, &v);
			assert_int_equal(callbreak_ai_deals(&v, &p, seed, 1, hands), GB_OK);
			dealt = st;
			memcpy(dealt.hand, hands[0], sizeof(dealt.hand));
			assert_int_equal(G->check(&dealt), GB_OK);
			assert_int_equal(callbreak_ai_play(&v, &p, seed, NO_CAP, &a), GB_OK);
			reference(&dealt, me, want);
			after = dealt;
			assert_int_equal(G->apply(&after, &a, NULL), GB_OK);
			reference(&after, me, got);
			/* the card played reaches the best end for its seat on that deal */
			if (value_of(got, me) != value_of(want, me))
				fail_msg("game %d: seat %d played %s and scores %d, the best card on the deal scores %d", g,
					 me, callbreak_card_name(a.a), got[me], want[me]);
			assert_int_equal(gb_ai_choose(G, &st, GB_LEVEL_MEDIUM, seed, 0, &m), GB_OK);
			*not_medium += m.a != a.a;
			positions += __builtin_popcountll(v.legal) > 1;
			apply_ok(&st, &a);
		}
	}
	return positions;
}

static void test_last_tricks_solved_exactly(void **state)
{
	long not_medium = 0, positions;

	(void)state;
	positions = last_tricks(&not_medium);
	printf("last tricks: %ld positions with a choice, %ld where medium plays another card\n", positions,
	       not_medium);
	assert_true(positions >= 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_reads_another_hand),
		cmocka_unit_test(test_oracle_reads_the_hands),
		cmocka_unit_test(test_seer),
		cmocka_unit_test(test_ismcts_plays_legally),
		cmocka_unit_test(test_between_rounds_next),
		cmocka_unit_test(test_last_tricks_solved_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
