/*
 * cbparts.c - what each part of the Call Break hard level adds: the hard
 * level with one part turned off (or with all of it), one seat against
 * three opponents of one kind, in whole five-round games.
 *
 *   build/bench/cbparts VARIANT OPPONENT GAMES [SEED [WEIGHT=VALUE]... [oracle=N]]
 *
 * VARIANT: full (the hard level as it plays), no-exact (no double-dummy
 * solution of the last tricks), count-bid (bids by counting, as medium,
 * not by playing the round out), uniform (deals of the unseen cards not
 * weighted by the bids and the cards played), points (plays and bids for
 * the round's expected points, not for the chance of winning the game, and
 * so without the charge for a failed bid on top), small (the
 * search sizes of the earlier hard level: 200 deals, 1,000 play-outs a
 * card, 300 deals a bid). OPPONENT: medium or ismcts (1,000 iterations a decision). Decision
 * times are the CPU time of the deciding thread, what a decision costs on
 * an idle core.
 *
 * WEIGHT=VALUE sets one field of struct callbreak_ai_params (dets,
 * rollouts, min_dets, bid_deals, bid_risk, dd_cards, dd_root, model_eps,
 * mcmc, bid_sigma, play_sigma, game_sigma, game_aware, net, net_bid,
 * prior, prune, bid_lift, value) on top of the variant, for tuning runs: net=0 is the hard
 * level before its learned play-outs (the arena's hard-classic), net=3
 * adds the learned model of the other seats (net=9 in the bids' play-outs
 * only, net=11 in both; with bit 64 `own` in its place, net=67 and net=73), net_bid=1 the learned bid network, prior=K and
 * prune=K the play network steering the search, bid_lift=K a trick more
 * counted in K tenths of the bids' play-outs, value=K play-outs ended
 * K - 1 tricks after the candidate's by the networks' values; with
 * dets=0 bid_deals=0, net=4 plays the learned network's cards without a
 * search.
 *
 * The hard seat sits at each of the four places in turn and the deals come
 * from the seed, so two variants meet the same deals. Prints one line: the
 * win share of the hard seat with its 95% Wilson interval, its share of
 * bids made, its decision p99 in ms, the tricks it takes over its bid when
 * it makes it, and its points a round; then its mean bid and the
 * opponents' mean bid, tricks and share of bids made.
 *
 * With CBPARTS_SEER=FILE the seer in FILE (tests/bench/cbblob.h) is
 * installed: net bit 16 plays the hard seat's own later cards by it in the
 * cards' play-outs (net=17 with `own` in the bids'), bit 32 in the bids'.
 *
 * With CBPARTS_WINS=FILE it also writes one character a game to FILE, '1'
 * where the hard seat won; with CBPARTS_VS=FILE (such a file of an earlier
 * run on the same GAMES and SEED) it prints the difference from that run
 * game by game with its 95% interval.
 *
 * oracle=1, 2 or 3 (a measurement, never a level) gives the hard search the
 * true hands for its bids, its cards or both: what reading the unseen cards
 * perfectly would win. oracle=4 searches its cards on deals drawn as usual
 * but starts their chain from the true deal: what an inference that never
 * loses its way would win. Only this program hands the search the hands
 * (callbreak_ai_play_oracle(), games/ai/callbreak_oracle.h); every other
 * decision here, as at a table, is made from the seat's view.
 *
 * Settings measured once and since taken out of the players, so that the
 * rows they gave can no longer be rerun: game_model=0 (the chance of
 * winning the game as the product of the chances of finishing ahead of
 * each opponent), game_model=2 (every seat's rounds to come scored as
 * medium players score them), bid_bonus (bids as if taking more tricks
 * than the play-outs) and opp_weight (a share of the opponents' round
 * score taken off the own). What its runs measured: tests/bench/players.md.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games/ai/ai.h"
#include "games/ai/callbreak_ai.h"
#include "games/ai/callbreak_ismcts.h"
#include "games/ai/callbreak_oracle.h"
#include "games/callbreak.h"
#include "games/game.h"
#include "games/rng.h"
#include "cbblob.h"
#include "tune.h"

/* The hard level's weights with the part `name` turned off; -1 for an unknown name. */
static int variant(const char *name, struct callbreak_ai_params *p)
{
	*p = *callbreak_ai_defaults(GB_LEVEL_HARD);
	if (strcmp(name, "no-exact") == 0) {
		p->dd_cards = 0;
		p->dd_root = 0;
	} else if (strcmp(name, "count-bid") == 0) {
		p->bid_deals = 0;
	} else if (strcmp(name, "uniform") == 0) {
		p->mcmc = 0;
		p->model_eps = 0;
		p->bid_sigma = 0;
		p->play_sigma = 0;
	} else if (strcmp(name, "points") == 0) {
		p->game_aware = 0;
		p->game_sigma = 0;
		p->bid_risk = 0; /* its charge is in chances of winning the game: none on points */
	} else if (strcmp(name, "small") == 0) {
		p->dets = 200;
		p->rollouts = 1000;
		p->min_dets = 50;
		p->bid_deals = 300;
	} else if (strcmp(name, "full") != 0) {
		return -1;
	}
	return 0;
}

/* The weights a tuning run may set, by name. */
static const struct {
	const char *name;
	size_t off;
} weights[] = {
	{ "dets", offsetof(struct callbreak_ai_params, dets) },
	{ "rollouts", offsetof(struct callbreak_ai_params, rollouts) },
	{ "min_dets", offsetof(struct callbreak_ai_params, min_dets) },
	{ "bid_deals", offsetof(struct callbreak_ai_params, bid_deals) },
	{ "bid_risk", offsetof(struct callbreak_ai_params, bid_risk) },
	{ "dd_cards", offsetof(struct callbreak_ai_params, dd_cards) },
	{ "dd_root", offsetof(struct callbreak_ai_params, dd_root) },
	{ "model_eps", offsetof(struct callbreak_ai_params, model_eps) },
	{ "mcmc", offsetof(struct callbreak_ai_params, mcmc) },
	{ "bid_sigma", offsetof(struct callbreak_ai_params, bid_sigma) },
	{ "play_sigma", offsetof(struct callbreak_ai_params, play_sigma) },
	{ "game_sigma", offsetof(struct callbreak_ai_params, game_sigma) },
	{ "game_aware", offsetof(struct callbreak_ai_params, game_aware) },
	{ "net", offsetof(struct callbreak_ai_params, net) },
	{ "net_bid", offsetof(struct callbreak_ai_params, net_bid) },
	{ "prior", offsetof(struct callbreak_ai_params, prior) },
	{ "prune", offsetof(struct callbreak_ai_params, prune) },
	{ "bid_lift", offsetof(struct callbreak_ai_params, bid_lift) },
	{ "value", offsetof(struct callbreak_ai_params, value) },
};

/* Apply one WEIGHT=VALUE, or oracle=N to *oracle; -1 when it names neither. */
static int set_weight(struct callbreak_ai_params *p, int *oracle, const char *kv)
{
	const char *eq = strchr(kv, '=');

	if (eq && eq - kv == 6 && strncmp(kv, "oracle", 6) == 0) {
		*oracle = (int)strtol(eq + 1, NULL, 10);
		return 0;
	}
	for (size_t i = 0; eq && i < sizeof(weights) / sizeof(weights[0]); i++) {
		if (strlen(weights[i].name) == (size_t)(eq - kv) && strncmp(kv, weights[i].name, (size_t)(eq - kv)) == 0) {
			*(int *)((char *)p + weights[i].off) = (int)strtol(eq + 1, NULL, 10);
			return 0;
		}
	}
	return -1;
}

/*
 * The hard seat's decision: the one bench-only way to the search with the
 * true hands (oracle != 0), which takes the whole state; without the
 * oracle, the seat's view alone, as at a table.
 */
static void hard_decide(const struct callbreak *st, const struct callbreak_ai_params *p, int oracle,
			uint64_t seed, struct gb_action *a)
{
	struct callbreak_view v;

	callbreak_view(st, callbreak_turn(st), &v);
	callbreak_ai_play_oracle(&v, p, oracle, st->hand, seed, 0, a);
}

int main(int argc, char **argv)
{
	struct callbreak_ai_params p;
	int oracle = 0;
	long games, won = 0, bids = 0, made = 0, over = 0, points = 0, bidsum = 0;
	long obids = 0, omade = 0, obidsum = 0, otricks = 0;
	size_t nt = 0, cap = 1 << 16;
	double *t = malloc(cap * sizeof(double));
	uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
	int ismcts = argc > 2 && strcmp(argv[2], "ismcts") == 0, status = 0;
	char *mine = NULL;

	games = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
	if (games > 0)
		mine = calloc((size_t)games + 1, 1);
	if (argc < 4 || games <= 0 || variant(argv[1], &p) || (!ismcts && strcmp(argv[2], "medium") != 0) || !t ||
	    !mine) {
		fprintf(stderr, "usage: cbparts full|no-exact|count-bid|uniform|points|small medium|ismcts GAMES "
				"[SEED [WEIGHT=VALUE]... [oracle=1|2|3|4]]\n");
		status = 2;
		goto out;
	}
	if (getenv("CBPARTS_SEER") && cb_seer_load(getenv("CBPARTS_SEER"))) {
		status = 2;
		goto out;
	}
	for (int i = 5; i < argc; i++) {
		if (set_weight(&p, &oracle, argv[i])) {
			fprintf(stderr, "cbparts: no weight '%s'\n", argv[i]);
			status = 2;
			goto out;
		}
	}
	for (long g = 0; g < games; g++) {
		uint64_t gseed = gb_seed_derive(seed, (uint64_t)g);
		int me = (int)(g % CB_SEATS);
		struct gb_setup su;
		struct callbreak st;
		struct gb_outcome oc;

		gb_setup_init(&su, &callbreak_game);
		su.seed = gseed;
		su.dealer = (int)(gseed % CB_SEATS);
		callbreak_game.init(&st, &su);
		for (long k = 0;; k++) {
			struct gb_action a;
			int turn = callbreak_game.turn(&st);
			uint64_t s = gb_seed_derive(gseed ^ 0x5eed, (uint64_t)k);
			double t0 = now_ms();

			callbreak_game.outcome(&st, &oc);
			if (oc.over)
				break;
			if (turn == me)
				hard_decide(&st, &p, oracle, s, &a);
			else if (ismcts && turn >= 0)
				gb_ai_reference(&callbreak_game, &st, CB_ISMCTS_BUDGET, s, &a);
			else
				gb_ai_choose(&callbreak_game, &st, GB_LEVEL_MEDIUM, s, 0, &a);
			if (turn == me && nt < cap)
				t[nt++] = now_ms() - t0;
			if (callbreak_game.apply(&st, &a, NULL)) {
				fprintf(stderr, "cbparts: an illegal action in game %ld\n", g);
				status = 1;
				goto out;
			}
		}
		won += oc.winner == me;
		mine[g] = oc.winner == me ? '1' : '0';
		for (int r = 0; r < st.nhist; r++) {
			bids++;
			made += st.hist[r][me].tricks >= st.hist[r][me].bid;
			if (st.hist[r][me].tricks >= st.hist[r][me].bid)
				over += st.hist[r][me].tricks - st.hist[r][me].bid;
			points += callbreak_score(st.hist[r][me].bid, st.hist[r][me].tricks);
			bidsum += st.hist[r][me].bid;
			for (int q = 0; q < CB_SEATS; q++) {
				if (q == me)
					continue;
				obids++;
				omade += st.hist[r][q].tricks >= st.hist[r][q].bid;
				obidsum += st.hist[r][q].bid;
				otricks += st.hist[r][q].tricks;
			}
		}
	}
	{
		double lo, hi;

		wilson(won, games, &lo, &hi);
		printf("hard %-9s", argv[1]);
		for (int i = 5; i < argc; i++)
			printf(" %s", argv[i]);
		printf(" vs 3 %-6s %5ld games  wins %5.1f%% [%4.1f, %4.1f]  bids made %5.1f%%  p99 %.0f ms"
		       "  overtricks %.2f  points a round %.2f\n",
		       argv[2], games, 100.0 * (double)won / (double)games, 100 * lo, 100 * hi,
		       100.0 * (double)made / (double)(bids ? bids : 1), p99_ms(t, nt),
		       (double)over / (double)(made ? made : 1), (double)points / 10.0 / (double)(bids ? bids : 1));
		printf("  bid %.2f; opponents: bid %.2f, tricks %.2f, bids made %.1f%%\n",
		       (double)bidsum / (double)(bids ? bids : 1), (double)obidsum / (double)(obids ? obids : 1),
		       (double)otricks / (double)(obids ? obids : 1), 100.0 * (double)omade / (double)(obids ? obids : 1));
	}
	if (getenv("CBPARTS_VS"))
		compare_wins(getenv("CBPARTS_VS"), mine, games);
	if (getenv("CBPARTS_WINS") && write_wins(getenv("CBPARTS_WINS"), mine))
		status = 1;
out:
	free(mine);
	free(t);
	return status;
}
