/*
 * ludotrain.c - trains the learned Ludo evaluation (games/ai/ludo_net.h) by
 * temporal differences in self-play, as TD-Gammon did for backgammon, and
 * writes the weights as a C header.
 *
 *   build/bench/ludotrain GAMES SEED OUT.h      (make train-ludo)
 *
 * Four-player games with the default rules. In each game every seat is,
 * by a coin of the game's seed, either the network playing one move deep
 * (the move whose position the network likes best for the mover) or the
 * medium level, so the network learns positions against the players hard
 * meets as well as against itself. Every position where a seat is to roll
 * is a training example; after the game each is pulled towards its
 * TD(lambda) return (lambda LAMBDA): the mix of the network's later
 * predictions and, at the end, who won. The loss is the cross-entropy of
 * the softmax over the seats, by plain stochastic gradient with a step
 * that falls linearly from ALPHA0 to ALPHA1 over the run.
 *
 * Deterministic: the same GAMES and SEED write the same file on the same
 * build. Prints progress every tenth of the run (the win share of network
 * seats against medium ones) and the time it took.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games/ai/ai.h"
#include "games/ai/ludo_ai.h"
#include "games/ai/ludo_net.h"
#include "games/game.h"
#include "games/ludo.h"
#include "games/rng.h"

#define LAMBDA 0.7
#define ALPHA0 0.02
#define ALPHA1 0.002
#define MAXPOS 4000 /* roll positions kept per game; longer games are cut */

struct example {
	struct ludo_feat f;
	int seat;                 /* the seat to roll: the frame of f */
	double v[LUDO_NET_OUT];   /* the network's prediction, absolute seats */
};

static double wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* The network's prediction for st in absolute seats into v. */
static void predict(const struct ludo_net *net, const struct ludo *st, struct ludo_feat *f, double *v)
{
	struct ludo_net_act a;

	ludo_ai_features(st, f);
	ludo_net_forward(net, f, &a);
	for (int r = 0; r < LUDO_NET_OUT; r++)
		v[(st->seat + r) % 4] = a.out[r];
}

/* The network's move: the choice whose position it likes best for the mover. */
static int net_pick(const struct ludo_net *net, const struct ludo *st)
{
	int choice[LUDO_TOKENS], n = ludo_choices(st, st->die, choice), best = choice[0];
	double bestv = -1.0;

	for (int i = 0; i < n; i++) {
		struct ludo c = *st;
		struct gb_action act = { GB_ACT_MOVE, choice[i], 0, 0 };
		struct ludo_feat f;
		double v[4], w;

		ludo_game.apply(&c, &act, NULL);
		if (c.winner >= 0)
			w = c.winner == st->seat ? 1.0 : 0.0;
		else {
			predict(net, &c, &f, v);
			w = v[st->seat];
		}
		if (w > bestv) {
			bestv = w;
			best = choice[i];
		}
	}
	return best;
}

/* One gradient step of the cross-entropy towards target y (relative seats). */
static void step(struct ludo_net *net, const struct ludo_feat *f, const double *y, float lr)
{
	struct ludo_net_act a;
	float g[LUDO_NET_OUT], dh[LUDO_NET_HID];

	ludo_net_forward(net, f, &a);
	for (int k = 0; k < LUDO_NET_OUT; k++)
		g[k] = (float)(a.out[k] - y[k]);
	for (int j = 0; j < LUDO_NET_HID; j++) {
		float s = 0.0f;

		for (int k = 0; k < LUDO_NET_OUT; k++)
			s += g[k] * net->w2[k][j];
		dh[j] = s * (1.0f - a.hid[j] * a.hid[j]);
	}
	for (int k = 0; k < LUDO_NET_OUT; k++) {
		for (int j = 0; j < LUDO_NET_HID; j++)
			net->w2[k][j] -= lr * g[k] * a.hid[j];
		net->b2[k] -= lr * g[k];
	}
	for (int i = 0; i < f->n; i++) {
		float *row = net->w1[f->idx[i]], v = lr * f->val[i];

		for (int j = 0; j < LUDO_NET_HID; j++)
			row[j] -= v * dh[j];
	}
	for (int j = 0; j < LUDO_NET_HID; j++)
		net->b1[j] -= lr * dh[j];
}

/* Play one game, learn from it; returns the winner (-1 if cut) and whether seats were the net. */
static int play(struct ludo_net *net, struct example *ex, uint64_t gseed, float lr, int *is_net)
{
	struct gb_setup su;
	struct ludo st;
	struct gb_rng rng;
	double g[4];
	int n = 0;

	gb_rng_seed(&rng, gseed ^ 0x7d);
	for (int s = 0; s < 4; s++)
		is_net[s] = (int)gb_rng_below(&rng, 2);
	gb_setup_init(&su, &ludo_game);
	su.players = 4;
	su.seed = gseed;
	ludo_game.init(&st, &su);
	for (long k = 0; k < 100000 && st.winner < 0; k++) {
		struct gb_action a;

		if (st.phase == LUDO_PHASE_ROLL) {
			if (n == MAXPOS)
				break;
			ex[n].seat = st.seat;
			predict(net, &st, &ex[n].f, ex[n].v);
			n++;
			a.kind = GB_ACT_ROLL;
			a.a = a.b = a.die = 0;
		} else if (is_net[st.seat]) {
			a.kind = GB_ACT_MOVE;
			a.a = net_pick(net, &st);
			a.b = a.die = 0;
		} else {
			ludo_ai_choose_with(&st, GB_LEVEL_MEDIUM, gb_seed_derive(gseed, (uint64_t)k), 0, NULL, &a);
		}
		if (ludo_game.apply(&st, &a, NULL)) {
			fprintf(stderr, "ludotrain: an illegal action\n");
			exit(1);
		}
	}
	if (st.winner < 0)
		return -1;
	for (int s = 0; s < 4; s++)
		g[s] = s == st.winner;
	/* backwards: G_t = (1 - lambda) V_{t+1} + lambda G_{t+1} */
	for (int t = n - 1; t >= 0; t--) {
		double y[4];

		if (t < n - 1)
			for (int s = 0; s < 4; s++)
				g[s] = (1.0 - LAMBDA) * ex[t + 1].v[s] + LAMBDA * g[s];
		for (int r = 0; r < 4; r++)
			y[r] = g[(ex[t].seat + r) % 4];
		step(net, &ex[t].f, y, lr);
	}
	return st.winner;
}

static void put_row(FILE *f, const float *v, int n)
{
	fputs("{", f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%af,", i % 6 ? " " : "\n\t", (double)v[i]);
	fputs(" },\n", f);
}

static int write_header(const char *path, const struct ludo_net *net, long games, uint64_t seed, double ms)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "/*\n * ludo_weights.h - the weights of the learned Ludo evaluation (ludo_net.h),\n"
		   " * generated by tests/bench/ludotrain.c (make train-ludo): %ld games of\n"
		   " * self-play from seed %" PRIu64 ", %.0f s. Do not edit: ludo_net_check() refuses\n"
		   " * weights whose checksum does not match LUDO_WEIGHTS_SUM.\n */\n",
		games, seed, ms / 1000.0);
	fprintf(f, "#define LUDO_WEIGHTS_VERSION %d\n#define LUDO_WEIGHTS_SUM 0x%08" PRIx32 "u\n\n",
		LUDO_NET_VERSION, ludo_net_checksum(net, LUDO_NET_VERSION));
	fputs("static const struct ludo_net ludo_weights = {\n.w1 = {\n", f);
	for (int i = 0; i < LUDO_NET_IN; i++)
		put_row(f, net->w1[i], LUDO_NET_HID);
	fputs("},\n.b1 = ", f);
	put_row(f, net->b1, LUDO_NET_HID);
	fputs(".w2 = {\n", f);
	for (int k = 0; k < LUDO_NET_OUT; k++)
		put_row(f, net->w2[k], LUDO_NET_HID);
	fputs("},\n.b2 = ", f);
	put_row(f, net->b2, LUDO_NET_OUT);
	fputs("};\n", f);
	rc = fclose(f) ? -1 : 0;
	if (rc)
		perror(path);
	return rc;
}

int main(int argc, char **argv)
{
	long games = argc > 3 ? strtol(argv[1], NULL, 10) : 0, netw = 0, netg = 0, cut = 0;
	uint64_t seed = argc > 3 ? strtoull(argv[2], NULL, 10) : 0;
	struct ludo_net *net = calloc(1, sizeof(*net));
	struct example *ex = malloc(MAXPOS * sizeof(*ex));
	struct gb_rng rng;
	double t0 = wall_ms();
	int rc = 2;

	if (games <= 0 || !net || !ex) {
		fprintf(stderr, "usage: ludotrain GAMES SEED OUT.h\n");
		goto out;
	}
	gb_rng_seed(&rng, seed);
	for (int i = 0; i < LUDO_NET_IN; i++)
		for (int j = 0; j < LUDO_NET_HID; j++)
			net->w1[i][j] = (float)((double)gb_rng_below(&rng, 20001) / 10000.0 - 1.0) * 0.1f;
	for (int k = 0; k < LUDO_NET_OUT; k++)
		for (int j = 0; j < LUDO_NET_HID; j++)
			net->w2[k][j] = (float)((double)gb_rng_below(&rng, 20001) / 10000.0 - 1.0) * 0.1f;
	for (long g = 0; g < games; g++) {
		float lr = (float)(ALPHA0 + (ALPHA1 - ALPHA0) * (double)g / (double)games);
		int is_net[4], w = play(net, ex, gb_seed_derive(seed, (uint64_t)g), lr, is_net), k = 0;

		for (int s = 0; s < 4; s++)
			k += is_net[s];
		if (w < 0)
			cut++;
		else if (k > 0 && k < 4) {
			netg += k;
			netw += is_net[w];
		}
		if ((g + 1) % (games / 10 > 0 ? games / 10 : 1) == 0) {
			printf("ludotrain: %ld games, %.0f s; a network seat won %.1f%% of mixed games (even: 25%%)\n",
			       g + 1, (wall_ms() - t0) / 1000.0, netg ? 100.0 * (double)netw / (double)netg : 0.0);
			fflush(stdout);
			netw = netg = 0;
		}
	}
	printf("ludotrain: %ld games (%ld cut) in %.0f s, %d weights\n", games, cut, (wall_ms() - t0) / 1000.0,
	       (int)(sizeof(*net) / sizeof(float)));
	rc = write_header(argv[3], net, games, seed, wall_ms() - t0) ? 1 : 0;
out:
	free(ex);
	free(net);
	return rc;
}
