/*
 * callbreak_outlook.c - the Call Break hard level's outlook on the game at
 * the end of a round: the chance that a seat wins the game from the
 * totals and the rounds to come (callbreak_ai_game_chance(), callbreak_ai.h).
 */
#include <math.h>

#include "callbreak_ai.h"

double callbreak_ai_game_chance(const struct callbreak_ai_params *p, const int score[CB_SEATS], int me,
				int left)
{
	/* over one's own sum to come, normal: Gauss-Hermite quadrature, 8 nodes */
	static const double gx[4] = { 0.381186990207322, 1.157193712446780, 1.981656756695843,
				      2.930637420257244 };
	static const double gw[4] = { 0.661147012558241, 0.207802325814892, 0.017077983007413,
				      0.000199604072211 };
	double win = 1.0, sd;
	int diffs[CB_SEATS], nd = 0;

	if (left > 0 && p->game_sigma <= 0)
		return 1.0 / CB_SEATS; /* no width: nothing told apart */
	for (int q = 0; q < CB_SEATS; q++) {
		int diff = score[me] - score[q];

		if (q == me)
			continue;
		diffs[nd++] = diff;
		if (left <= 0)
			win *= diff > 0 ? 1.0 : diff == 0 ? 0.5 : 0.0;
	}
	if (left <= 0)
		return win;
	win = 0.0;
	sd = p->game_sigma * sqrt((double)left);
	for (int i = 0; i < 8; i++) {
		double z = (i & 1 ? -1.0 : 1.0) * gx[i / 2] * M_SQRT2, pr = 1.0;

		for (int k = 0; k < nd; k++)
			pr *= 0.5 * erfc(-(diffs[k] + sd * z) / (sd * M_SQRT2));
		win += gw[i / 2] * pr;
	}
	return win / sqrt(M_PI);
}
