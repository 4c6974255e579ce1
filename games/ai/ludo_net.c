/*
 * ludo_net.c - the learned Ludo evaluation (see ludo_net.h): a sparse
 * input layer, tanh hidden units, a softmax over the seats, and the
 * checksum that guards the compiled-in weights of ludo_weights.h.
 *
 * The forward pass adds up the rows of the nonzero inputs only (a position
 * has a few dozen of them out of LUDO_NET_IN), so it costs about
 * LUDO_NET_MAXACT * LUDO_NET_HID multiply-adds. Sums run in float in a
 * fixed order; the result is deterministic on a given build.
 */
#include "ludo_net.h"

#include <math.h>
#include <string.h>

#include "../error.h"
#include "netsum.h"
#include "ludo_weights.h"

void ludo_net_forward(const struct ludo_net *net, const struct ludo_feat *f, struct ludo_net_act *a)
{
	float h[LUDO_NET_HID];
	double z[LUDO_NET_OUT], top, sum = 0.0;

	memcpy(h, net->b1, sizeof(h));
	for (int i = 0; i < f->n; i++) {
		const float *row = net->w1[f->idx[i]];
		float v = f->val[i];

		for (int j = 0; j < LUDO_NET_HID; j++)
			h[j] += v * row[j];
	}
	for (int j = 0; j < LUDO_NET_HID; j++)
		a->hid[j] = tanhf(h[j]);
	for (int k = 0; k < LUDO_NET_OUT; k++) {
		float s = net->b2[k];

		for (int j = 0; j < LUDO_NET_HID; j++)
			s += net->w2[k][j] * a->hid[j];
		z[k] = s;
	}
	top = z[0];
	for (int k = 1; k < LUDO_NET_OUT; k++)
		if (z[k] > top)
			top = z[k];
	for (int k = 0; k < LUDO_NET_OUT; k++) {
		a->out[k] = exp(z[k] - top);
		sum += a->out[k];
	}
	for (int k = 0; k < LUDO_NET_OUT; k++)
		a->out[k] /= sum;
}

uint32_t ludo_net_checksum(const struct ludo_net *net, uint32_t version)
{
	return gb_netsum(net, sizeof(*net), version);
}

int ludo_net_check(const struct ludo_net *net, uint32_t version, uint32_t sum)
{
	if (!net || version != LUDO_NET_VERSION || ludo_net_checksum(net, version) != sum)
		return GB_ESTATE;
	return GB_OK;
}

const struct ludo_net *ludo_net_builtin(void)
{
	return ludo_net_check(&ludo_weights, LUDO_WEIGHTS_VERSION, LUDO_WEIGHTS_SUM) == GB_OK ? &ludo_weights
											   : NULL;
}
