/*
 * callbreak_learned.c - the Call Break hard level's side of the learned
 * networks (callbreak_net.h): the inputs of a position, from the view of a
 * decision or from a play-out's round for any seat (one function for
 * both, so the training data and the play-outs cannot differ), the card
 * a play network chooses, and the bid the bid network alone would make.
 */
#include "callbreak_oracle.h"
#include "callbreak_sim.h"

/*
 * The play network's inputs for seat me at s (callbreak_net.h): what that
 * seat knows, its own hand and the table; the game totals and rounds come
 * from the view the decision is made in. me is the seat to play, or any
 * seat between tricks.
 */
static void seat_features(const struct sim *s, const struct callbreak_view *v, int me, struct cbn_feat *f)
{
	uint64_t hand = s->hand[me], unseen = CB_DECK & ~hand & ~s->gone & ~s->table;

	f->n = 0;
	for (uint64_t x = hand; x; x &= x - 1)
		cbn_put(f, lowest(x), 1.0f);
	for (uint64_t x = unseen; x; x &= x - 1)
		cbn_put(f, 52 + lowest(x), 1.0f);
	for (int i = 0; i < s->n; i++) {
		int r = ((s->leader + i) % CB_SEATS - me + CB_SEATS) % CB_SEATS;

		if (r > 0)
			cbn_put(f, 104 + (r - 1) * CB_CARDS + s->trick[i], 1.0f);
	}
	for (int r = 1; r < CB_SEATS; r++) {
		int q = (me + r) % CB_SEATS;

		for (int u = 0; u < 4; u++)
			if (!(unseen & CB_SUIT_MASK(u) & ~s->lacks[q]))
				cbn_put(f, 260 + (r - 1) * 4 + u, 1.0f);
	}
	for (int r = 0; r < CB_SEATS; r++) {
		int q = (me + r) % CB_SEATS, need = s->bid[q] - s->tricks[q];

		cbn_put(f, 272 + r * 4, (float)s->bid[q] / 8.0f);
		cbn_put(f, 273 + r * 4, (float)s->tricks[q] / 8.0f);
		cbn_put(f, 274 + r * 4, need > 0 ? (float)need / 8.0f : 0.0f);
		cbn_put(f, 275 + r * 4, s->bid[q] && need <= 0 ? 1.0f : 0.0f);
	}
	cbn_put(f, 288, (float)popcount(hand) / 13.0f);
	cbn_put(f, 289 + s->n, 1.0f);
	for (int r = 1; r < CB_SEATS; r++)
		cbn_put(f, 293 + r - 1, (float)(v->total[(me + r) % CB_SEATS] - v->total[me]) / 200.0f);
	cbn_put(f, 296, (float)(v->rounds - v->round) / 4.0f);
}

/* A seer's inputs for seat me at s: the seat's own, then every other hand. */
static void seer_features(const struct sim *s, const struct callbreak_view *v, int me, struct cbn_feat *f)
{
	seat_features(s, v, me, f);
	for (int r = 1; r < CB_SEATS; r++)
		for (uint64_t x = s->hand[(me + r) % CB_SEATS]; x; x &= x - 1)
			cbn_put(f, CBN_PLAY_IN + (r - 1) * CB_CARDS + lowest(x), 1.0f);
}

int cb_seer_card(const struct sim *s, const struct callbreak_view *v, const struct cbn_seer *net, uint64_t legal)
{
	struct cbn_feat f;
	float hid[CBN_PLAY_HID];

	seer_features(s, v, sim_turn(s), &f);
	callbreak_seer_hidden(net, &f, hid);
	return callbreak_net_card(&net->p, hid, legal);
}

void callbreak_ai_seer_features(const struct callbreak_view *v, const uint64_t hand[CB_SEATS], struct cbn_feat *f)
{
	struct sim s;

	sim_from_view(v, &s);
	memcpy(s.hand, hand, sizeof(s.hand));
	seer_features(&s, v, v->seat, f);
}

/* The inputs for the seat to play at s. */
static void play_features(const struct sim *s, const struct callbreak_view *v, struct cbn_feat *f)
{
	seat_features(s, v, sim_turn(s), f);
}

void cb_net_finish(struct sim *s, const struct callbreak_view *v, const struct callbreak_net *net)
{
	int left = popcount(s->hand[s->leader]), given = 0;
	double est[CB_SEATS], part[CB_SEATS], sum = 0.0;

	for (int q = 0; q < CB_SEATS; q++) {
		struct cbn_feat f;
		float hid[CBN_PLAY_HID];
		const struct cbn_play *pn = q == v->seat ? &net->own : &net->field;

		seat_features(s, v, q, &f);
		callbreak_net_hidden(pn, &f, hid);
		est[q] = callbreak_net_value(pn, hid);
		est[q] = est[q] > 0.0 ? est[q] : 0.0;
		sum += est[q];
	}
	/* the values shared out as the tricks left: whole tricks, the rest to the largest parts */
	for (int q = 0; q < CB_SEATS; q++) {
		double x = sum > 0.0 ? est[q] * left / sum : (double)left / CB_SEATS;
		int t = (int)x;

		s->tricks[q] += t;
		given += t;
		part[q] = x - t;
	}
	for (; given < left; given++) {
		int top = 0;

		for (int q = 1; q < CB_SEATS; q++)
			top = part[q] > part[top] ? q : top;
		s->tricks[top]++;
		part[top] = -1.0;
	}
	for (int q = 0; q < CB_SEATS; q++)
		s->hand[q] = 0;
}

int cb_net_card(const struct sim *s, const struct callbreak_view *v, const struct cbn_play *net, uint64_t legal)
{
	struct cbn_feat f;
	float hid[CBN_PLAY_HID];

	play_features(s, v, &f);
	callbreak_net_hidden(net, &f, hid);
	return callbreak_net_card(net, hid, legal);
}

void cb_net_policy(const struct sim *s, const struct callbreak_view *v, const struct cbn_play *net, uint64_t legal,
		   float p[52])
{
	struct cbn_feat f;
	float hid[CBN_PLAY_HID];

	play_features(s, v, &f);
	callbreak_net_hidden(net, &f, hid);
	callbreak_net_policy(net, hid, legal, p);
}

void cb_net_prior(const struct sim *s, const struct callbreak_view *v, const struct cbn_play *net, const int *cand,
		  int nc, double *prior)
{
	float pol[52];
	int i = -1;

	cb_net_policy(s, v, net, v->legal, pol);
	/* the candidates are the lowest of their classes, in order: each legal
	 * card belongs to the last candidate at or below it */
	for (uint64_t x = v->legal; x; x &= x - 1) {
		int c = lowest(x);

		while (i + 1 < nc && cand[i + 1] <= c)
			i++;
		if (i >= 0)
			prior[i] += pol[c];
	}
}

/*
 * Keep the k candidates with the highest chances under `own` (prior[]), in
 * their order; the number kept.
 */
int cb_net_prune(int *cand, double *prior, int nc, int k)
{
	int n = 0;

	for (int i = 0; i < nc; i++) {
		int above_me = 0;

		for (int j = 0; j < nc; j++)
			above_me += prior[j] > prior[i] || (prior[j] == prior[i] && j < i);
		if (above_me < k) {
			cand[n] = cand[i];
			prior[n++] = prior[i];
		}
	}
	return n;
}

void callbreak_ai_features(const struct callbreak_view *v, struct cbn_feat *f)
{
	struct sim s;

	sim_from_view(v, &s);
	play_features(&s, v, f);
}

void callbreak_ai_bid_features(const struct callbreak_view *v, struct cbn_feat *f)
{
	int me = v->seat, first = (v->dealer + 1) % CB_SEATS;

	f->n = 0;
	for (uint64_t x = v->hand; x; x &= x - 1)
		cbn_put(f, lowest(x), 1.0f);
	cbn_put(f, 52 + (me - first + CB_SEATS) % CB_SEATS, 1.0f);
	for (int r = 1; r < CB_SEATS; r++) {
		int b = v->bid[(me + r) % CB_SEATS];

		if (b >= CB_MIN_BID && b <= CB_MAX_BID)
			cbn_put(f, 56 + (r - 1) * 8 + b - 1, 1.0f);
	}
	for (int r = 1; r < CB_SEATS; r++)
		cbn_put(f, 80 + r - 1, (float)(v->total[(me + r) % CB_SEATS] - v->total[me]) / 200.0f);
	cbn_put(f, 83, (float)(v->rounds - v->round) / 4.0f);
}

int cb_net_bid_alone(const struct callbreak_view *v, const struct callbreak_ai_params *p)
{
	int best = CB_MIN_BID;
	double bestv = -1e300, pt[CBN_BID_OUT];
	struct cbn_feat f;

	callbreak_ai_bid_features(v, &f);
	callbreak_net_bid(callbreak_net_builtin(), &f, pt);
	for (int b = CB_MIN_BID; b <= CB_MAX_BID; b++) {
		double u = 0.0;

		for (int t = 0; t < CBN_BID_OUT; t++)
			u += pt[t] * (callbreak_score(b, t) - (t < b ? p->bid_risk : 0)) / 10.0;
		if (u > bestv) {
			bestv = u;
			best = b;
		}
	}
	return best;
}
