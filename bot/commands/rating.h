/*
 * rating.h - online play's ratings and matchmaking. Pure: no I/O, no store,
 * no clock (times come in as arguments); safe from any thread.
 *
 * Ratings follow Glickman's Glicko-2 ("Example of the Glicko-2 system",
 * Mark E. Glickman): a rating r, its deviation RD (how unsure the rating
 * is: it shrinks as a person plays and grows while they do not) and a
 * volatility sigma (how erratic their results are), kept on the familiar
 * scale (a new player is 1500 ± 350) and turned to the Glicko-2 scale
 * ((r - 1500) / 173.7178) inside each step. The volatility is found with
 * the Illinois algorithm to GLICKO_EPSILON, as the paper does.
 *
 * One finished table is one rating period for everybody who played at it:
 * every pair of people at the table counts as one game between them
 * (places decide it: the higher place wins, equal places draw), so a
 * four-person table is three games for each of them, all judged against
 * the ratings from before the table.
 *
 * Choices beyond the paper, each so that bad or odd input never gives a
 * rating that cannot be shown or stored:
 *   - RD never grows past GLICKO_MAX_RD (a new player's): a rating left
 *     unplayed for a long time is as unknown as a new one, never more.
 *   - Values that are not finite, an RD or sigma that is not positive, and
 *     tau that is not positive are read as a new player's (and GLICKO_TAU);
 *     scores are held to 0..1; a negative n is no games.
 *   - Games whose outcome was certain to the last bit of a double (ratings
 *     thousands of points apart) carry no information: a period of only
 *     such games moves RD as a period without games does (games still
 *     counts them).
 *   - The volatility search stops after GLICKO_MAX_ITER steps whatever
 *     happens (the paper's converges in a handful).
 */
#ifndef GB_RATING_H
#define GB_RATING_H

#include <stdbool.h>
#include <stdint.h>

/* A Glicko-2 rating on the familiar scale. */
struct glicko {
	double r, rd, sigma;
	int games; /* games rated so far (each pair at a table is one) */
};

#define GLICKO_NEW ((struct glicko){ 1500.0, 350.0, 0.06, 0 })
/* The system constant: how far the volatility may move in one period. */
#define GLICKO_TAU 0.5
/* The Glicko-2 scale's unit on the familiar scale (400 / ln 10). */
#define GLICKO_SCALE 173.7178
/* The volatility search's tolerance, and its limit in steps. */
#define GLICKO_EPSILON 0.000001
#define GLICKO_MAX_ITER 100
/* No RD grows past a new player's. */
#define GLICKO_MAX_RD 350.0

/* One opponent's result for a rating period: score 1 win, 0.5 draw, 0 loss. */
struct glicko_game {
	struct glicko opp;
	double score;
};

/*
 * Glickman's Glicko-2 step for one player over one rating period (n games;
 * n == 0: only RD grows, to sqrt(phi^2 + sigma^2) on the Glicko-2 scale).
 * Updates *p, games += n.
 */
void glicko_update(struct glicko *p, const struct glicko_game *g, int n, double tau);

/* The most seats glicko_table() rates. */
#define GLICKO_TABLE_MAX 8

/*
 * A finished table of n seats (n <= GLICKO_TABLE_MAX): rank[i] is seat i's
 * place (0 = first; equal ranks = a draw between them); person[i] false for
 * computer seats, which neither count nor move. Each pair of people counts
 * as one game between them, all judged against the ratings from before the
 * table (so the order of seats does not matter); every person's rating is
 * updated as one rating period. Each person's games are summed in a fixed
 * order (by the opponent's rating, then RD, volatility and score), so the
 * order of the seats does not change a single bit of the result. A
 * person with nobody else at the table but computers is left as is (the
 * table says nothing about their rating), and a table of more than
 * GLICKO_TABLE_MAX seats or none changes nothing.
 */
void glicko_table(struct glicko *seat, const int *rank, const bool *person, int n, double tau);

/* Shown as provisional while RD is above this. */
#define GLICKO_PROVISIONAL_RD 110.0
bool glicko_provisional(const struct glicko *p);

/*
 * Matchmaking. One waiting person: their id (the caller's), rating, and
 * how long they have waited so far.
 */
struct match_entry {
	int64_t id;
	double r;
	int64_t waited_ms;
};

/*
 * The rating window around the longest waiter: ±MATCH_WINDOW_START at
 * 0 s, MATCH_WINDOW_STEP wider for every whole MATCH_WINDOW_STEP_MS
 * waited, and unlimited from MATCH_WINDOW_OPEN_MS on. So a queue that
 * allows close ratings gets them, and a thin queue still plays within a
 * minute.
 */
#define MATCH_WINDOW_START 100.0
#define MATCH_WINDOW_STEP 50.0
#define MATCH_WINDOW_STEP_MS 5000
#define MATCH_WINDOW_OPEN_MS 60000
/* The window's half-width after waited_ms (INFINITY once unlimited). */
double match_window(int64_t waited_ms);

/* The most seats one pick fills. */
#define MATCH_SEATS_MAX 8

/*
 * The search for a table free of blocked pairs looks at no more than this
 * many partial tables per pick; past it the pick gives 0 (the queue is
 * tried again as it changes). Only a queue full of blocked pairs comes
 * near it.
 */
#define MATCH_SEARCH_LIMIT 100000

/*
 * blocked(ctx, a, b): true when entries a and b (indexes into q) must
 * never share a table (either blocked the other). May be NULL.
 */
typedef bool (*match_blocked_fn)(void *ctx, int a, int b);

/*
 * Choose `seats` people from q[0..n) for one table, or return 0 when no
 * table can be formed. The person who has waited longest is always among
 * them (nobody starves; equal waits: the lower index); the others are the
 * closest in rating to that person within match_window() of the longest
 * wait; no two chosen are blocked pairs. Ties in closeness go to the
 * longer wait, then the lower index. Among the tables free of blocked
 * pairs the pick is the one that keeps the closest people: the first in
 * that order, then the next that fits with them, and so on, stepping back
 * only when the rest cannot complete the table. Writes the chosen indexes
 * to out[0..seats) (the longest waiter first, then by closeness) and
 * returns seats. Returns 0, too, for seats outside 1..MATCH_SEATS_MAX or
 * n < seats.
 */
int match_pick(const struct match_entry *q, int n, int seats, match_blocked_fn blocked, void *ctx,
	       int *out);

/*
 * The same pick around q[anchor] instead of the longest waiter (its own
 * wait sets the window). When match_pick() gives 0 because the longest
 * waiter cannot be seated (blocked by everyone near them), the caller may
 * try the next waiters this way rather than hold up the whole queue.
 */
int match_pick_from(const struct match_entry *q, int n, int seats, int anchor,
		    match_blocked_fn blocked, void *ctx, int *out);

#endif
