/*
 * callbreak_net.c - the learned Call Break networks (see callbreak_net.h):
 * a sparse input layer, rectified hidden units, card scores read only for
 * the legal cards, and the checksum that guards the compiled-in weights of
 * callbreak_weights.h.
 *
 * The play network adds up the rows of the nonzero inputs only (a position
 * has about 60 of CBN_PLAY_IN), so a card choice costs about
 * 60 * CBN_PLAY_HID multiply-adds plus CBN_PLAY_HID a legal card. Sums run
 * in float in a fixed order; the result is deterministic on a given build.
 *
 * The two loops the search runs millions of times a decision (the hidden
 * layer and a card's score) check their indexes themselves and are left
 * out of AddressSanitizer's instrumentation (HOT), which would make the
 * hard level's play-outs several times slower in the sanitized suites;
 * UndefinedBehaviorSanitizer still checks them.
 */
#include "callbreak_net.h"

#include <math.h>
#include <string.h>

#include "../callbreak.h"
#include "callbreak_weights.h"
#include "netsum.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__clang__)
#define HOT __attribute__((no_sanitize("address")))
#else
#define HOT
#endif

/* The hidden layer: inputs below CBN_PLAY_IN by net's rows, the rest (a seer's) by wx's. */
static HOT void hidden(const struct cbn_play *net, const float (*wx)[CBN_PLAY_HID], const struct cbn_feat *f,
		       float *hid)
{
	float h[CBN_PLAY_HID];
	int n = f->n < CBN_PLAY_MAXACT ? f->n : CBN_PLAY_MAXACT;

	memcpy(h, net->b1, sizeof(h));
	for (int i = 0; i < n; i++) {
		const float *row;
		float v = f->val[i];

		if (f->idx[i] < CBN_PLAY_IN)
			row = net->w1[f->idx[i]];
		else if (wx && f->idx[i] < CBN_SEER_IN)
			row = wx[f->idx[i] - CBN_PLAY_IN];
		else
			continue;

		for (int j = 0; j < CBN_PLAY_HID; j++)
			h[j] += v * row[j];
	}
	for (int j = 0; j < CBN_PLAY_HID; j++)
		hid[j] = h[j] > 0.0f ? h[j] : 0.0f;
}

void callbreak_net_hidden(const struct cbn_play *net, const struct cbn_feat *f, float *hid)
{
	hidden(net, NULL, f, hid);
}

void callbreak_seer_hidden(const struct cbn_seer *net, const struct cbn_feat *f, float *hid)
{
	hidden(&net->p, net->wx, f, hid);
}

/* c is a card, 0..51: callers take it from a set of cards */
static HOT float card_score(const struct cbn_play *net, const float *hid, int c)
{
	const float *row = net->w2[c];
	float s = 0.0f;

	for (int j = 0; j < CBN_PLAY_HID; j++)
		s += row[j] * hid[j];
	return s + net->b2[c];
}

float callbreak_net_value(const struct cbn_play *net, const float *hid)
{
	float s = net->bv;

	for (int j = 0; j < CBN_PLAY_HID; j++)
		s += net->wv[j] * hid[j];
	return s;
}

int callbreak_net_card(const struct cbn_play *net, const float *hid, uint64_t legal)
{
	int best = -1;
	float top = 0.0f;

	for (uint64_t x = legal & CB_DECK; x; x &= x - 1) {
		int c = __builtin_ctzll(x);
		float s = card_score(net, hid, c);

		if (best < 0 || s > top) {
			best = c;
			top = s;
		}
	}
	return best;
}

void callbreak_net_policy(const struct cbn_play *net, const float *hid, uint64_t legal, float p[52])
{
	float top = -1e30f, sum = 0.0f;

	for (int c = 0; c < 52; c++)
		p[c] = 0.0f;
	for (uint64_t x = legal & CB_DECK; x; x &= x - 1) {
		int c = __builtin_ctzll(x);

		p[c] = card_score(net, hid, c);
		top = p[c] > top ? p[c] : top;
	}
	for (uint64_t x = legal & CB_DECK; x; x &= x - 1) {
		int c = __builtin_ctzll(x);

		p[c] = expf(p[c] - top);
		sum += p[c];
	}
	for (uint64_t x = legal & CB_DECK; x; x &= x - 1)
		p[__builtin_ctzll(x)] /= sum;
}

void callbreak_net_bid(const struct callbreak_net *net, const struct cbn_feat *f, double p[CBN_BID_OUT])
{
	float h[CBN_BID_HID];
	double top = -1e300, sum = 0.0;

	memcpy(h, net->bb1, sizeof(h));
	for (int i = 0; i < f->n; i++) {
		const float *row = net->bw1[f->idx[i]];
		float v = f->val[i];

		for (int j = 0; j < CBN_BID_HID; j++)
			h[j] += v * row[j];
	}
	for (int j = 0; j < CBN_BID_HID; j++)
		h[j] = h[j] > 0.0f ? h[j] : 0.0f;
	for (int k = 0; k < CBN_BID_OUT; k++) {
		float s = net->bb2[k];

		for (int j = 0; j < CBN_BID_HID; j++)
			s += net->bw2[k][j] * h[j];
		p[k] = s;
		if (p[k] > top)
			top = p[k];
	}
	for (int k = 0; k < CBN_BID_OUT; k++) {
		p[k] = exp(p[k] - top);
		sum += p[k];
	}
	for (int k = 0; k < CBN_BID_OUT; k++)
		p[k] /= sum;
}

uint32_t callbreak_net_checksum(const struct callbreak_net *net, uint32_t version)
{
	return gb_netsum(net, sizeof(*net), version);
}

static const struct callbreak_net *installed;
static const struct cbn_seer *seer;

int callbreak_seer_install(const struct cbn_seer *net, uint32_t sum)
{
	if (net && gb_netsum(net, sizeof(*net), CBN_VERSION) != sum)
		return -1;
	__atomic_store_n(&seer, net, __ATOMIC_RELEASE);
	return 0;
}

const struct cbn_seer *callbreak_seer(void)
{
	return __atomic_load_n(&seer, __ATOMIC_ACQUIRE);
}

int callbreak_net_install(const struct callbreak_net *net, uint32_t sum)
{
	if (!net || callbreak_net_checksum(net, CBN_VERSION) != sum)
		return -1;
	__atomic_store_n(&installed, net, __ATOMIC_RELEASE);
	return 0;
}

const struct callbreak_net *callbreak_net_builtin(void)
{
	/* 0 not yet checked, 1 good, -1 refused: the same answer every time,
	 * whichever thread asks first */
	static int checked;
	const struct callbreak_net *own = __atomic_load_n(&installed, __ATOMIC_ACQUIRE);
	int c;

	if (own)
		return own;
	c = __atomic_load_n(&checked, __ATOMIC_RELAXED);

	if (!c) {
		c = CALLBREAK_WEIGHTS_VERSION == CBN_VERSION &&
				    callbreak_net_checksum(&callbreak_weights, CBN_VERSION) == CALLBREAK_WEIGHTS_SUM
			    ? 1
			    : -1;
		__atomic_store_n(&checked, c, __ATOMIC_RELAXED);
	}
	return c > 0 ? &callbreak_weights : NULL;
}
