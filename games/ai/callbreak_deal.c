/*
 * callbreak_deal.c - dealing the cards a Call Break seat does not see
 * (callbreak_ai_deal(), and the deals of the hard level's search): each
 * other seat gets exactly the cards it holds and none that the view says it
 * cannot hold, every fitting deal as likely as the next.
 */
#include <stdbool.h>

#include "callbreak_sim.h"

/*
 * Can the cards still to place go out? n[t] cards may go only to the seats in
 * the set t (bits over the three other seats), cap[j] places are left in
 * seat j: Hall's condition for every set of seats.
 */
static bool dealable(const int n[8], const int cap[3])
{
	for (int set = 1; set < 8; set++) {
		int need = 0, room = 0;

		for (int t = 1; t < 8; t++)
			if ((t & set) == t)
				need += n[t];
		for (int j = 0; j < 3; j++)
			if (set & (1 << j))
				room += cap[j];
		if (need > room)
			return false;
	}
	return true;
}

/*
 * Deal the unseen cards: in random order, each to a seat that may hold it,
 * chosen with chances in proportion to the room left, never to a seat that
 * would leave the rest impossible to place.
 */
int cb_deal_unseen(const struct callbreak_view *v, struct gb_rng *r, uint64_t hand[CB_SEATS])
{
	uint64_t unseen = CB_DECK & ~v->hand & ~v->gone;
	int cards[CB_CARDS], type[CB_CARDS], n[8] = { 0 }, cap[3], seat[3], nc = 0, total = 0;

	for (int i = 0; i < v->ntrick && v->phase == CB_PHASE_PLAY; i++)
		unseen &= ~CB_BIT(v->trick[i]);
	for (int j = 0; j < 3; j++) {
		seat[j] = (v->seat + 1 + j) % CB_SEATS;
		cap[j] = v->held[seat[j]];
		total += cap[j];
		hand[seat[j]] = 0;
	}
	hand[v->seat] = v->hand;
	if (total != popcount(unseen))
		return GB_ESTATE;
	for (uint64_t x = unseen; x; x &= x - 1)
		cards[nc++] = lowest(x);
	gb_rng_shuffle(r, cards, (size_t)nc);
	for (int i = 0; i < nc; i++) {
		type[i] = 0;
		for (int j = 0; j < 3; j++)
			if (!(v->lacks[seat[j]] & CB_BIT(cards[i])))
				type[i] |= 1 << j;
		n[type[i]]++;
	}
	if (n[0] || !dealable(n, cap))
		return GB_ESTATE;
	for (int i = 0; i < nc; i++) {
		int t = type[i], tried = 0;

		n[t]--;
		for (;;) {
			int room = 0, pick, j;

			for (j = 0; j < 3; j++)
				if ((t & ~tried & (1 << j)) && cap[j] > 0)
					room += cap[j];
			if (room == 0)
				return GB_ESTATE; /* cannot happen once dealable() held */
			pick = (int)gb_rng_below(r, (uint32_t)room);
			for (j = 0; j < 3; j++) {
				if (!(t & ~tried & (1 << j)) || cap[j] <= 0)
					continue;
				if (pick < cap[j])
					break;
				pick -= cap[j];
			}
			cap[j]--;
			if (dealable(n, cap)) {
				hand[seat[j]] |= CB_BIT(cards[i]);
				break;
			}
			cap[j]++;
			tried |= 1 << j;
		}
	}
	return GB_OK;
}

int callbreak_ai_deal(const struct callbreak_view *v, uint64_t seed, uint64_t hand[CB_SEATS])
{
	struct gb_rng r;

	gb_rng_seed(&r, seed);
	return cb_deal_unseen(v, &r, hand);
}
