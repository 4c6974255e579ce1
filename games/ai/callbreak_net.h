/*
 * callbreak_net.h - the learned parts of the Call Break hard level: two
 * card-play networks and a bid network, small enough to run inside the
 * search's play-outs.
 *
 * A play network reads a position from the seat to play (inputs below,
 * CBN_PLAY_IN, most of them zero, so they travel as a sparse list), has one
 * hidden layer of CBN_PLAY_HID rectified units, and gives a score for each
 * of the 52 cards; only the legal ones are ever read, and the card it plays
 * is the best-scored legal one. `own` learned the cards the hard level
 * chose; `field` learned the cards its opponents chose (medium and the
 * `ismcts` yardstick), a model of the other seats. Beside the cards, each
 * gives a value of the position: the tricks the seat it reads from will
 * take from there to the end of the round, as its players took them.
 *
 *   0..51     the seat's own hand
 *   52..103   the cards held by the other seats (not seen, not gone)
 *   104..259  the cards on the table, 52 for each of the three other seats
 *             (seat after, opposite, before)
 *   260..271  for each other seat and suit: proven to hold none of what is
 *             left of that suit
 *   272..287  for each seat from the one to play: bid/8, tricks/8, tricks
 *             still needed for the bid/8, bid made (0 or 1)
 *   288       cards in hand/13
 *   289..292  cards already on the table (one of four)
 *   293..295  each other seat's game total less the own, in tenths / 200
 *   296       rounds still to come after this one / 4
 *
 * The bid network reads the hand before the bids (CBN_BID_IN): the hand
 * (0..51), how many seats bid before it (52..55, one of four), the bids
 * they made (56..79, eight for each of the seats after, opposite and
 * before), the three other totals less the own in tenths / 200 (80..82)
 * and the rounds to come / 4 (83); it gives the distribution of the tricks
 * the hard level took with such a hand, 0..13.
 *
 * All three are trained from self-play data written by
 * tests/bench/cbdata.c (`make train-callbreak`, tests/bench/cbtrain.py)
 * and compiled in from the generated callbreak_weights.h, which carries a
 * format version and a checksum: callbreak_net_builtin() refuses weights
 * whose checksum does not match, and the hard level then plays without
 * them.
 *
 * Pure and deterministic: the same inputs and weights give the same output
 * bit for bit on the same build. No allocation.
 */
#ifndef GB_CALLBREAK_NET_H
#define GB_CALLBREAK_NET_H

#include <stddef.h>
#include <stdint.h>

#define CBN_VERSION 3
#define CBN_PLAY_IN 297
#define CBN_PLAY_HID 128
#define CBN_PLAY_MAXACT 160 /* nonzero play inputs at most (a seer's included) */
#define CBN_SEER_X 156      /* a seer's inputs past CBN_PLAY_IN: the other hands */
#define CBN_SEER_IN (CBN_PLAY_IN + CBN_SEER_X)
#define CBN_BID_IN 84
#define CBN_BID_HID 64
#define CBN_BID_OUT 14      /* tricks 0..13 */

/* One play network's weights. */
struct cbn_play {
	float w1[CBN_PLAY_IN][CBN_PLAY_HID]; /* input -> hidden, a row an input */
	float b1[CBN_PLAY_HID];
	float w2[52][CBN_PLAY_HID];          /* hidden -> card scores, a row a card */
	float b2[52];
	float wv[CBN_PLAY_HID];              /* hidden -> the value of the position */
	float bv;
};

/*
 * A seer: a play network that also reads the cards each other seat holds
 * (inputs CBN_PLAY_IN.. : 52 for each of the seats after, opposite and
 * before). It plays a seat's later cards inside the search's play-outs,
 * where the deal is drawn and every hand is known; it learned the cards
 * the hard search chose when handed the true deal. Never at a table.
 */
struct cbn_seer {
	struct cbn_play p;
	float wx[CBN_SEER_X][CBN_PLAY_HID];
};

/* The weights, one flat block of floats (checksummed as such). */
struct callbreak_net {
	struct cbn_play own, field;
	float bw1[CBN_BID_IN][CBN_BID_HID];
	float bb1[CBN_BID_HID];
	float bw2[CBN_BID_OUT][CBN_BID_HID];
	float bb2[CBN_BID_OUT];
};

/* The nonzero inputs of one position. */
struct cbn_feat {
	int n;
	uint16_t idx[CBN_PLAY_MAXACT];
	float val[CBN_PLAY_MAXACT];
};

/* Add input i with value x (x == 0 is skipped). */
static inline void cbn_put(struct cbn_feat *f, int i, float x)
{
	if (x != 0.0f && f->n < CBN_PLAY_MAXACT) {
		f->idx[f->n] = (uint16_t)i;
		f->val[f->n++] = x;
	}
}

/* A play network's hidden layer for f (CBN_PLAY_HID units). */
void callbreak_net_hidden(const struct cbn_play *net, const struct cbn_feat *f, float *hid);

/* A seer's hidden layer for f (inputs up to CBN_SEER_IN). */
void callbreak_seer_hidden(const struct cbn_seer *net, const struct cbn_feat *f, float *hid);

/* The best-scored card of `legal` (not empty) from the hidden layer. */
int callbreak_net_card(const struct cbn_play *net, const float *hid, uint64_t legal);

/* The value of the position from the hidden layer: the tricks the seat will take to the round's end. */
float callbreak_net_value(const struct cbn_play *net, const float *hid);

/* The chances the network gives each card of `legal` (not empty), p[c] for c in legal, 0 elsewhere. */
void callbreak_net_policy(const struct cbn_play *net, const float *hid, uint64_t legal, float p[52]);

/* The bid network: p[t], t = 0..13, the chance of taking t tricks. */
void callbreak_net_bid(const struct callbreak_net *net, const struct cbn_feat *f, double p[CBN_BID_OUT]);

/* FNV-1a over the bytes of the weights, mixed with the version. */
uint32_t callbreak_net_checksum(const struct callbreak_net *net, uint32_t version);

/*
 * The weights the players use: those given to callbreak_net_install() if
 * any, else the compiled-in ones when their version and checksum match,
 * else NULL.
 */
const struct callbreak_net *callbreak_net_builtin(void);

/*
 * For the training tools only (tests/bench/cbdata.c), before any player
 * runs: play with `net` (kept, not copied) in place of the compiled-in
 * weights, so that a network just trained plays the next round of
 * self-play games. Returns 0, or -1 (nothing changed) when `net`'s
 * checksum is not `sum`.
 */
int callbreak_net_install(const struct callbreak_net *net, uint32_t sum);

/*
 * For the measuring tools only: a seer for the play-outs (p->net bit 16),
 * kept, not copied (NULL: none again). Returns 0, or -1 (nothing changed)
 * when its checksum (FNV-1a over its bytes, mixed with CBN_VERSION) is not
 * `sum`.
 */
int callbreak_seer_install(const struct cbn_seer *net, uint32_t sum);

/* The seer installed, or NULL. */
const struct cbn_seer *callbreak_seer(void);

#endif
