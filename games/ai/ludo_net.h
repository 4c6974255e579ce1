/*
 * ludo_net.h - the learned evaluation of Ludo: a small network that reads a
 * four-player position from the point of view of the seat to roll and
 * gives every seat's chance of winning.
 *
 * Inputs (LUDO_NET_IN, mostly zero, so they travel as a sparse list): for
 * each seat in turn order from the seat to roll, its tokens in base as a
 * thermometer (one unit per token), how many of its tokens stand on each
 * route position 1..56, its tokens in the centre as a thermometer; then,
 * per seat, a few dense numbers the hand-written evaluation computes: the
 * remaining distance, the expected loss of tokens opponents can hit and
 * how many of its tokens stand within reach (ludo_ai_features()).
 * One hidden layer of tanh units, LUDO_NET_OUT outputs through a softmax:
 * out[r] is the chance that the seat r places after the seat to roll wins.
 *
 * The weights are trained by TD(lambda) in self-play (tests/bench/
 * ludotrain.c, `make train-ludo`) and compiled in from the generated
 * header ludo_weights.h, which carries a format version and a checksum;
 * ludo_net_check() refuses weights whose checksum does not match, and the
 * hard level then falls back to the hand-written evaluation.
 *
 * Pure and deterministic: the same features and weights give the same
 * output bit for bit on the same build. No allocation.
 */
#ifndef GB_LUDO_NET_H
#define GB_LUDO_NET_H

#include <stddef.h>
#include <stdint.h>

#define LUDO_NET_VERSION 1   /* format of the inputs and weights */
#define LUDO_NET_SEAT_IN 64  /* base x4, route 1..56, centre x4 */
#define LUDO_NET_DENSE 3     /* dense inputs per seat */
#define LUDO_NET_IN (4 * LUDO_NET_SEAT_IN + 4 * LUDO_NET_DENSE)
#define LUDO_NET_HID 48
#define LUDO_NET_OUT 4
#define LUDO_NET_MAXACT (4 * 16 + 4 * LUDO_NET_DENSE) /* nonzero inputs at most */

/* The weights, as one flat block of floats (checksummed as such). */
struct ludo_net {
	float w1[LUDO_NET_IN][LUDO_NET_HID];  /* input -> hidden, row per input */
	float b1[LUDO_NET_HID];
	float w2[LUDO_NET_OUT][LUDO_NET_HID];
	float b2[LUDO_NET_OUT];
};

/* The nonzero inputs of one position. */
struct ludo_feat {
	int n;
	uint16_t idx[LUDO_NET_MAXACT];
	float val[LUDO_NET_MAXACT];
};

/* What a forward pass leaves behind: the hidden units and the outputs. */
struct ludo_net_act {
	float hid[LUDO_NET_HID];
	double out[LUDO_NET_OUT];
};

/* Forward pass: out[r] in (0, 1), summing to 1. */
void ludo_net_forward(const struct ludo_net *net, const struct ludo_feat *f, struct ludo_net_act *a);

/* FNV-1a over the bytes of the weights, mixed with the version. */
uint32_t ludo_net_checksum(const struct ludo_net *net, uint32_t version);

/* GB_OK when version and checksum match the weights, else GB_ESTATE. */
int ludo_net_check(const struct ludo_net *net, uint32_t version, uint32_t sum);

/* The compiled-in weights when they pass ludo_net_check(), else NULL. */
const struct ludo_net *ludo_net_builtin(void);

#endif
