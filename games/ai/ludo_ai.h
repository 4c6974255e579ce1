/*
 * ludo_ai.h - the inside of the Ludo computer players, for their tests and
 * for tuning runs. Everything else calls ludo_ai_choose() (ai.h).
 *
 * All three levels read one evaluation: every seat's expected remaining
 * distance (steps still to walk, a price for tokens in base, the expected
 * loss of tokens that opponents can hit next round) turned into a share of
 * the winning chances by a softmax over seats. The weights live in
 * struct ludo_ai_params so that tests and tuning runs can vary them;
 * ludo_ai_defaults() gives the ones the levels play with. Hard judges the
 * leaves of its search by a learned evaluation instead (ludo_net.h) where
 * it applies, fed by ludo_ai_features().
 */
#ifndef GB_LUDO_AI_H
#define GB_LUDO_AI_H

#include <stdint.h>

#include "../ludo.h"
#include "ludo_net.h"

struct ludo_ai_params {
	double base_cost;   /* extra distance of a token in base: the wait for a six */
	double idle_cost;   /* extra distance of a seat with tokens in base and none it can move */
	double danger;      /* weight of the expected loss of a token opponents can hit */
	double later;       /* weight of a threat from a seat that rolls after the token's own */
	double home_cost;   /* extra distance of a token in the home column (needs an exact roll) */
	double tau;         /* race temperature: distances -> winning chances */
	double cut;         /* hard: chance nodes less likely than this are evaluated, not expanded */
	int my_extra;       /* hard: own extra rolls expanded before the opponents reply */
	int rounds;         /* hard: my turns the search looks at, this one included */
	long max_nodes;     /* hard: node cap (deterministic), then static evaluation */
	int easy_noise;     /* easy: percent of decisions taken at random */
	int eval;           /* hard: 0 the hand-written evaluation at the leaves, 1 the learned
			       one (ludo_net.h), 2 the learned one a single move deep */
};

/* The weights level `level` (enum gb_level) plays with. Never NULL. */
const struct ludo_ai_params *ludo_ai_defaults(int level);

/*
 * The winning chance 0..1 of `seat` in st as the evaluation sees it (1 or 0
 * once the game is over). The chances of all seats sum to 1.
 */
double ludo_ai_eval(const struct ludo *st, int seat, const struct ludo_ai_params *p);

/*
 * The inputs of the learned evaluation for st, seen from the seat to roll
 * (ludo_net.h). Up to four seats; the dense inputs come from the
 * evaluation above with the hard level's weights.
 */
void ludo_ai_features(const struct ludo *st, struct ludo_feat *f);

/*
 * Chance 0..1 that a token of `seat` standing on route position `p` is sent
 * home before `seat` moves again (0 on stars, in base, off the ring).
 */
double ludo_ai_threat(const struct ludo *st, int seat, int p);

/* ludo_ai_choose() with explicit weights (p NULL: the level's defaults). */
int ludo_ai_choose_with(const struct ludo *st, int level, uint64_t seed, int budget_ms,
			const struct ludo_ai_params *p, struct gb_action *out);

#endif
