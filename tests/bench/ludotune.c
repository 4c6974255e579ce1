/*
 * ludotune.c - the Ludo hard level with its weights changed, one seat
 * against three medium players, for tuning runs.
 *
 *   build/bench/ludotune GAMES [SEED [WEIGHT=VALUE]...]
 *
 * WEIGHT is a field of struct ludo_ai_params (base_cost, idle_cost, danger,
 * later, home_cost, tau, cut, my_extra, rounds, max_nodes, eval), set on top of
 * the hard level's defaults; eval=0 is the hand-written evaluation at the
 * search's leaves (hard as it played before the learned one), eval=1 the
 * learned one (games/ai/ludo_net.h, hard's default), eval=2 the learned
 * one a single move deep. The hard seat sits at each of the four places
 * in turn; games come from the seed, so two runs with the same seed start
 * alike. Prints the win share of the hard seat with its 95% Wilson
 * interval and its decision p99 (CPU time of the deciding thread).
 *
 * With LUDOTUNE_WINS=FILE it also writes one character a game to FILE, '1'
 * where the hard seat won; with LUDOTUNE_VS=FILE (such a file of an earlier
 * run on the same GAMES and SEED) it prints the difference from that run
 * game by game with its 95% interval. Two runs roll the same dice for as
 * long as their games stay alike, so the paired difference is less noisy
 * than the two shares apart (with LUDOTUNE_DICE=seat, about 1.1 points of
 * standard error over 2,000 games instead of 1.5).
 *
 * With LUDOTUNE_DICE=seat every seat rolls from a stream of its own (the
 * k-th roll of seat s comes from the game's seed, s and k) instead of the
 * game's one generator: the dice are as fair, but a seat keeps its luck when
 * a different move earlier changes who rolls how often, so the runs of two
 * weightings stay alike for longer. For comparing weightings only; the
 * arena's numbers are with the game's own dice. What its runs measured:
 * tests/bench/players.md.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games/ai/ai.h"
#include "games/ai/ludo_ai.h"
#include "games/game.h"
#include "games/ludo.h"
#include "games/rng.h"
#include "tune.h"

/* Apply one WEIGHT=VALUE; -1 when it names no weight. */
static int set_weight(struct ludo_ai_params *p, const char *kv)
{
	const char *eq = strchr(kv, '=');
	double v;

	if (!eq)
		return -1;
	v = strtod(eq + 1, NULL);
#define W(name, type)                                                                                        \
	if (strlen(#name) == (size_t)(eq - kv) && strncmp(kv, #name, (size_t)(eq - kv)) == 0) {                 \
		p->name = (type)v;                                                                                \
		return 0;                                                                                         \
	}
	W(base_cost, double)
	W(idle_cost, double)
	W(danger, double)
	W(later, double)
	W(home_cost, double)
	W(tau, double)
	W(cut, double)
	W(my_extra, int)
	W(rounds, int)
	W(max_nodes, long)
	W(eval, int)
#undef W
	return -1;
}

int main(int argc, char **argv)
{
	struct ludo_ai_params p;
	long games = argc > 1 ? strtol(argv[1], NULL, 10) : 0, won = 0;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	size_t nt = 0, cap = 1 << 20;
	double *t = malloc(cap * sizeof(double));
	char *mine = games > 0 ? malloc((size_t)games + 1) : NULL;
	const char *wins_path = getenv("LUDOTUNE_WINS"), *vs_path = getenv("LUDOTUNE_VS");
	const char *dice = getenv("LUDOTUNE_DICE");
	bool own_dice = dice && strcmp(dice, "seat") == 0;
	int rc = 2;

	if (games <= 0 || !t || !mine) {
		fprintf(stderr, "usage: ludotune GAMES [SEED [WEIGHT=VALUE]...]\n");
		goto out;
	}
	p = *ludo_ai_defaults(GB_LEVEL_HARD);
	for (int i = 3; i < argc; i++) {
		if (set_weight(&p, argv[i])) {
			fprintf(stderr, "ludotune: no weight '%s'\n", argv[i]);
			goto out;
		}
	}
	for (long g = 0; g < games; g++) {
		uint64_t gseed = gb_seed_derive(seed, (uint64_t)g);
		int me = (int)(g % 4);
		struct gb_setup su;
		struct ludo st;
		struct gb_outcome oc;
		uint64_t rolls[GB_MAX_SEATS] = { 0 };

		gb_setup_init(&su, &ludo_game);
		su.players = 4;
		su.seed = gseed;
		ludo_game.init(&st, &su);
		for (long k = 0; k < 100000; k++) {
			struct gb_action a;
			int turn = ludo_game.turn(&st);
			uint64_t s = gb_seed_derive(gseed ^ 0x5eed, (uint64_t)k);
			double t0 = now_ms();

			ludo_game.outcome(&st, &oc);
			if (oc.over)
				break;
			if (turn == me)
				ludo_ai_choose_with(&st, GB_LEVEL_HARD, s, 0, &p, &a);
			else
				ludo_ai_choose_with(&st, GB_LEVEL_MEDIUM, s, 0, NULL, &a);
			if (turn == me && a.kind == GB_ACT_MOVE && nt < cap)
				t[nt++] = now_ms() - t0;
			if (own_dice && a.kind == GB_ACT_ROLL)
				a.die = 1 + (int)(gb_seed_derive(gseed ^ (0xd1ceull + (uint64_t)turn), rolls[turn]++) % 6);
			if (ludo_game.apply(&st, &a, NULL)) {
				fprintf(stderr, "ludotune: an illegal action in game %ld\n", g);
				rc = 1;
				goto out;
			}
		}
		won += oc.winner == me;
		mine[g] = oc.winner == me ? '1' : '0';
	}
	mine[games] = '\0';
	{
		double lo, hi;

		wilson(won, games, &lo, &hi);
		printf("ludo hard vs 3 medium %5ld games  wins %5.1f%% [%4.1f, %4.1f]  p99 %.2f ms\n", games,
		       100.0 * (double)won / (double)games, 100 * lo, 100 * hi, p99_ms(t, nt));
	}
	if (vs_path)
		compare_wins(vs_path, mine, games);
	rc = wins_path && write_wins(wins_path, mine) ? 2 : 0;
out:
	free(mine);
	free(t);
	return rc;
}
