/*
 * callbreak.c - the rules of Call Break (games/rules/call-break.md, whose
 * Nepali original is the authority) behind the common struct gb_game interface.
 *
 * Guarantees: every rule lives in one place. The four play rules are
 * callbreak_legal_cards() and nothing else; every action is validated by
 * callbreak_refusal() alone, which apply() calls before it changes anything,
 * so a refused action leaves the state byte for byte as it was. Scores are
 * integer tenths.
 *
 * The state keeps a few derived facts (cards gone, what each seat is proven
 * to lack, the last trick, totals) so that views are cheap, but all of them
 * follow from a small set of primary facts: the hands, the bids and the
 * cards played this round in order, and the finished rounds' bids and
 * tricks. callbreak_rebuild() recomputes a whole state from those facts by replaying
 * the round through the same legality tests and the same step functions;
 * check() compares a state with its rebuild, and from_json() is a rebuild
 * from the primary facts written by to_json(), so a saved state can never
 * hold a position the rules could not reach.
 *
 * The Nepali original and the English: no rule differs. Where the original is silent the English
 * rules fix a convention and the code follows it with a comment: who leads
 * the first trick (CB-8) and which seat the final sheet names on a tie
 * (CB-21, our choice: the lowest seat, all tied seats reported).
 *
 * The validators (refusal, rebuild, the JSON readers) hold no resources and
 * return at the first failure: with nothing to release, a single exit would
 * only add a goto per check.
 *
 * Cards and their text are callbreak_cards.c's (callbreak_cards.h), the
 * state as JSON callbreak_json.c's (through callbreak_state.h).
 *
 * Usage: through callbreak_game (game.h), the row that games/rows/callbreak.c
 * makes of the operations below and of the computer players. Renderers and
 * computer players use callbreak_view() (callbreak.h), never the state itself.
 */
#include "callbreak.h"
#include "callbreak_state.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* Sum of the member sizes: equal to sizeof only when there is no padding,
 * which is what makes equal states memcmp-equal. */
_Static_assert(sizeof(struct callbreak) ==
		       sizeof(struct gb_rng) + 8 * (CB_SEATS + 1 + CB_SEATS) + sizeof(struct gb_rules) +
			       4 * (4 + 2 * CB_SEATS + 4 + CB_SEATS + 1 + 2) +
			       sizeof(struct cb_line) * CB_MAX_ROUNDS * CB_SEATS + CB_CARDS,
	       "struct callbreak must have no padding");
_Static_assert(sizeof(struct callbreak_view) ==
		       4 * (7 + 3 * CB_SEATS + 2 + CB_SEATS + 2 + CB_SEATS + CB_SEATS + CB_SEATS + 1 + 2) +
			       sizeof(struct cb_line) * CB_MAX_ROUNDS * CB_SEATS + 8 * (2 + CB_SEATS + 1) + 4 +
			       CB_CARDS,
	       "struct callbreak_view must have no padding");

/*
 * House rules, keys and values exactly as in the rules document (CB-20:
 * `rounds=5|3|1`, 5 the standard game and the default).
 */
const struct gb_rule_def callbreak_rules[CB_NRULES] = {
	{ "rounds", { "5", "3", "1", NULL }, NULL, "rounds (deals) in a game: 5, 3 or 1" },
};
static const int rounds_values[] = { 5, 3, 1 };

static const char *const phase_names[4] = { "bid", "play", "round_over", "game_over" };

const char *callbreak_phase_name(int phase)
{
	return phase >= 0 && phase < 4 ? phase_names[phase] : "?";
}

/* ---- the rules of play --------------------------------------------------- */

/* The cards of `suit` with a rank above `rank` (rank -1: the whole suit). */
static uint64_t higher_in_suit(int suit, int rank)
{
	return CB_SUIT_MASK(suit) & ~((UINT64_C(2) << (suit * CB_RANKS + rank)) - 1);
}

/*
 * What a trick so far says to the next player: the led suit, the highest
 * card of the led suit (CB-10: the card to beat is the led suit's, not the
 * table's), and the highest spade when spades were not led (-1: nobody has
 * trumped, CB-11).
 */
struct trick_facts {
	int led, high, trump;
};

static struct trick_facts trick_facts(const int *trick, int n)
{
	struct trick_facts f = { CB_SUIT(trick[0]), -1, -1 };

	for (int i = 0; i < n; i++) {
		int s = CB_SUIT(trick[i]), r = CB_RANK(trick[i]);

		if (s == f.led) {
			if (r > f.high)
				f.high = r;
		} else if (s == CB_SPADES && r > f.trump) {
			f.trump = r;
		}
	}
	return f;
}

uint64_t callbreak_legal_cards(uint64_t hand, const int *trick, int ntrick)
{
	struct trick_facts f;
	uint64_t follow, spades, better;

	if (ntrick <= 0)
		return hand;
	f = trick_facts(trick, ntrick);
	follow = hand & CB_SUIT_MASK(f.led);
	if (follow) {
		if (f.trump >= 0)
			return follow;            /* CB-11: trumped, any card of the suit */
		better = follow & higher_in_suit(f.led, f.high);
		return better ? better : follow; /* CB-9.2 win if you can, else CB-13 */
	}
	spades = hand & CB_SUIT_MASK(CB_SPADES);
	if (!spades)
		return hand;                      /* CB-13: void in both, all cards */
	if (f.trump < 0)
		return spades;                    /* CB-9.3 and CB-12: trumping is compulsory */
	better = spades & higher_in_suit(CB_SPADES, f.trump);
	return better ? better : hand;            /* CB-9.4 over-trump, else CB-13 */
}

int callbreak_trick_winner(const int *trick, int n)
{
	int best = 0;

	for (int i = 1; i < n; i++) {
		int s = CB_SUIT(trick[i]), bs = CB_SUIT(trick[best]);

		/* CB-15: the highest spade, else the highest card of the led suit */
		if (s == bs ? CB_RANK(trick[i]) > CB_RANK(trick[best]) : s == CB_SPADES)
			best = i;
	}
	return best;
}

int callbreak_score(int bid, int tricks)
{
	/* CB-16/17: the bid plus a tenth per overtrick, or minus the whole bid */
	return tricks >= bid ? bid * 10 + (tricks - bid) : -bid * 10;
}

/* ---- state helpers ------------------------------------------------------- */

static int card_count(uint64_t m)
{
	return __builtin_popcountll(m);
}

static int nbids(const struct callbreak *st)
{
	int n = 0;

	for (int s = 0; s < CB_SEATS; s++)
		n += st->bid[s] != 0;
	return n;
}

int callbreak_turn(const struct callbreak *st)
{
	switch (st->phase) {
	case CB_PHASE_BID:
		return (st->dealer + 1 + nbids(st)) % CB_SEATS; /* CB-4 */
	case CB_PHASE_PLAY:
		return (st->leader + st->nplayed % CB_SEATS) % CB_SEATS;
	default:
		return -1;
	}
}

int callbreak_turns_taken(const struct callbreak *st)
{
	/* every bid and every card is one turn; a round is 4 + 52 of them */
	return (st->round - 1) * (CB_SEATS + CB_CARDS) + nbids(st) + st->nplayed;
}

/* The trick in progress: how many cards, copied into t. */
int callbreak_trick_now(const struct callbreak *st, int t[CB_SEATS])
{
	int n = st->phase == CB_PHASE_PLAY ? st->nplayed % CB_SEATS : 0;

	for (int i = 0; i < n; i++)
		t[i] = st->seq[st->nplayed - n + i];
	return n;
}

/* A fresh round: the dealer is set, hands are dealt by the caller. */
static void start_round(struct callbreak *st)
{
	memset(st->bid, 0, sizeof(st->bid));
	memset(st->tricks, 0, sizeof(st->tricks));
	memset(st->seq, 0, sizeof(st->seq));
	memset(st->lacks, 0, sizeof(st->lacks));
	st->gone = 0;
	st->nplayed = 0;
	/* CB-8: the first bidder leads. The Nepali original says only that the dealer does
	 * not lead; the rules of record fix the seat after the dealer. */
	st->leader = (st->dealer + 1) % CB_SEATS;
	st->last_leader = -1;
	st->last_winner = -1;
	st->phase = CB_PHASE_BID;
}

static void deal_shuffled(struct callbreak *st)
{
	int deck[CB_CARDS];

	for (int i = 0; i < CB_CARDS; i++)
		deck[i] = i;
	gb_rng_shuffle(&st->rng, deck, CB_CARDS);
	memset(st->hand, 0, sizeof(st->hand));
	/* one at a time round the table, starting after the dealer */
	for (int i = 0; i < CB_CARDS; i++)
		st->hand[(st->dealer + 1 + i) % CB_SEATS] |= CB_BIT(deck[i]);
}

/* "AS KS ...|...|...|..." -> four hands of 13 distinct cards, or GB_EDEAL. */
static int parse_deal(const char *text, uint64_t hand[CB_SEATS])
{
	const char *p = text;
	uint64_t all = 0;
	int seat = 0;

	memset(hand, 0, sizeof(uint64_t) * CB_SEATS);
	while (seat < CB_SEATS) {
		char word[32];
		size_t len = 0;
		int card;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '|' || *p == '\0') {
			if (card_count(hand[seat]) != CB_RANKS)
				return GB_EDEAL;
			if (*p == '|' && seat == CB_SEATS - 1)
				return GB_EDEAL; /* a fifth hand */
			seat++;
			if (*p == '\0')
				break;
			p++;
			continue;
		}
		while (*p && *p != ' ' && *p != '\t' && *p != '|') {
			if (len + 1 >= sizeof(word))
				return GB_EDEAL;
			word[len++] = *p++;
		}
		word[len] = '\0';
		if (callbreak_card_parse(word, &card) || (all & CB_BIT(card)))
			return GB_EDEAL;
		all |= CB_BIT(card);
		hand[seat] |= CB_BIT(card);
	}
	if (seat != CB_SEATS || *p != '\0' || all != CB_DECK)
		return GB_EDEAL;
	return GB_OK;
}

/* ---- validation: the one place that says no ------------------------------ */

static const char *suit_word(int suit)
{
	static const char *const w[4] = { "spade", "heart", "diamond", "club" };

	return w[suit];
}

/* Write the reason (when asked) and hand back the code. */
static int refuse(char *buf, size_t n, int rc, const char *msg)
{
	if (buf && n)
		snprintf(buf, n, "%s", msg);
	return rc;
}

/* Which of the four rules a card breaks (it is known not to be legal). */
static int refuse_card(const struct callbreak *st, int seat, int card, char *buf, size_t n)
{
	int t[CB_SEATS], nt = callbreak_trick_now(st, t);
	struct trick_facts f = trick_facts(t, nt);
	char why[64];

	if ((st->hand[seat] & CB_SUIT_MASK(f.led)) && CB_SUIT(card) != f.led)
		snprintf(why, sizeof(why), "you must follow suit: play a %s", suit_word(f.led));
	else if (CB_SUIT(card) == f.led)
		snprintf(why, sizeof(why), "you must beat %s while you can",
			 callbreak_card_name(CB_CARD(f.led, f.high)));
	else if (f.trump < 0)
		snprintf(why, sizeof(why), "you have no %ss: you must trump with a spade",
			 suit_word(f.led));
	else
		snprintf(why, sizeof(why), "you must over-trump %s while you can",
			 callbreak_card_name(CB_CARD(CB_SPADES, f.trump)));
	return refuse(buf, n, GB_EILLEGAL, why);
}

int callbreak_refusal(const struct callbreak *st, int seat, const struct gb_action *act,
		      char *buf, size_t n)
{
	int turn = callbreak_turn(st);
	int t[CB_SEATS] = { 0 }, nt;
	char why[64];

	if (buf && n)
		buf[0] = '\0';
	if (st->phase == CB_PHASE_GAME_OVER)
		return refuse(buf, n, GB_EOVER, "the game is over");
	/* unused arguments must be zero, so that apply() accepts exactly what
	 * legal() lists (gb_action_is_legal compares kind, a and b) */
	if (act->b != 0 || (act->kind == GB_ACT_NEXT && act->a != 0))
		return refuse(buf, n, GB_EILLEGAL, "unexpected argument");
	switch (act->kind) {
	case GB_ACT_NEXT:
		if (st->phase != CB_PHASE_ROUND_OVER)
			return refuse(buf, n, GB_EPHASE,
				      "next deals a new round once this round is over");
		return GB_OK;
	case GB_ACT_BID:
		if (st->phase == CB_PHASE_ROUND_OVER)
			return refuse(buf, n, GB_EPHASE, "the round is over: next deals again");
		if (seat >= 0 && seat < CB_SEATS && st->bid[seat]) {
			/* CB-5: a bid cannot be changed once made */
			snprintf(why, sizeof(why), "you have already bid %d; a bid cannot be changed",
				 st->bid[seat]);
			return refuse(buf, n, st->phase == CB_PHASE_BID ? GB_EILLEGAL : GB_EPHASE, why);
		}
		if (st->phase != CB_PHASE_BID)
			return refuse(buf, n, GB_EPHASE, "bidding is over");
		if (seat != turn) {
			snprintf(why, sizeof(why), "seat %d bids now", turn);
			return refuse(buf, n, GB_ETURN, why);
		}
		if (act->a < CB_MIN_BID || act->a > CB_MAX_BID)
			return refuse(buf, n, GB_EILLEGAL, "a bid is a whole number from 1 to 8");
		return GB_OK;
	case GB_ACT_PLAY:
		if (st->phase == CB_PHASE_ROUND_OVER)
			return refuse(buf, n, GB_EPHASE, "the round is over: next deals again");
		if (st->phase != CB_PHASE_PLAY)
			return refuse(buf, n, GB_EPHASE, "play starts once all four have bid");
		if (seat != turn) {
			snprintf(why, sizeof(why), "seat %d plays now", turn);
			return refuse(buf, n, GB_ETURN, why);
		}
		if (act->a < 0 || act->a >= CB_CARDS)
			return refuse(buf, n, GB_EILLEGAL, "no such card");
		if (!(st->hand[seat] & CB_BIT(act->a))) {
			snprintf(why, sizeof(why), "you do not hold %s", callbreak_card_name(act->a));
			return refuse(buf, n, GB_EILLEGAL, why);
		}
		nt = callbreak_trick_now(st, t);
		if (!(callbreak_legal_cards(st->hand[seat], t, nt) & CB_BIT(act->a)))
			return refuse_card(st, seat, act->a, buf, n);
		return GB_OK;
	default:
		return refuse(buf, n, GB_EILLEGAL, "call break takes bid, play and next");
	}
}

/* ---- steps (validated before they are called) ----------------------------- */

static void do_bid(struct callbreak *st, int seat, int bid, struct gb_events *ev)
{
	st->bid[seat] = bid;
	gb_events_push(ev, CB_EV_BID, seat, bid, 0, 0);
	if (nbids(st) == CB_SEATS)
		st->phase = CB_PHASE_PLAY;
}

/*
 * What a played card proves about the hand it came from, read off the same
 * four rules: a card outside what a rule demanded means the seat held
 * nothing the rule demanded.
 */
static void infer(struct callbreak *st, int seat, int card, const int *t, int nt)
{
	struct trick_facts f;

	if (nt == 0)
		return;
	f = trick_facts(t, nt);
	if (CB_SUIT(card) == f.led) {
		if (f.trump < 0 && CB_RANK(card) < f.high)
			st->lacks[seat] |= higher_in_suit(f.led, f.high);          /* CB-9.2 */
		return;
	}
	st->lacks[seat] |= CB_SUIT_MASK(f.led);                          /* CB-9.1 */
	if (CB_SUIT(card) == CB_SPADES) {
		if (f.trump >= 0 && CB_RANK(card) < f.trump)
			st->lacks[seat] |= higher_in_suit(CB_SPADES, f.trump);     /* CB-9.4 */
	} else if (f.trump < 0) {
		st->lacks[seat] |= CB_SUIT_MASK(CB_SPADES);               /* CB-9.3 */
	} else {
		st->lacks[seat] |= higher_in_suit(CB_SPADES, f.trump);             /* CB-9.4 */
	}
}

static void end_round(struct callbreak *st, struct gb_events *ev)
{
	int best = 0;

	gb_events_push(ev, CB_EV_ROUND_OVER, -1, st->round, 0, 0);
	for (int s = 0; s < CB_SEATS; s++) {
		struct cb_line *l = &st->hist[st->nhist][s];

		l->bid = st->bid[s];
		l->tricks = st->tricks[s];
		l->points = callbreak_score(l->bid, l->tricks);
		st->total[s] += l->points;
		gb_events_push(ev, CB_EV_SCORE, s, l->bid, l->tricks, l->points);
	}
	st->nhist++;
	if (st->round < st->rounds) {
		st->phase = CB_PHASE_ROUND_OVER;
		return;
	}
	/*
	 * CB-21: the highest total wins. The Nepali original says the final sheet still
	 * names one seat on a tie but gives no tie-break; we name the lowest
	 * seat among those tied and report them all in `tied` so that a table
	 * played for stakes can refund them.
	 */
	st->phase = CB_PHASE_GAME_OVER;
	for (int s = 1; s < CB_SEATS; s++)
		if (st->total[s] > st->total[best])
			best = s;
	st->winner = best;
	st->tied = 0;
	for (int s = 0; s < CB_SEATS; s++)
		if (st->total[s] == st->total[best])
			st->tied |= 1 << s;
	if (card_count((uint64_t)st->tied) < 2)
		st->tied = 0;
	gb_events_push(ev, CB_EV_GAME_OVER, best, st->tied, 0, 0);
}

/*
 * Play `card` from `seat` onto the trick in progress, whose nt cards are in
 * t (room for four). The one step every played card goes through, whether
 * applied or replayed by callbreak_rebuild().
 */
static void play_card(struct callbreak *st, int seat, int card, int t[CB_SEATS], int nt,
		      struct gb_events *ev)
{
	int w, winner;

	infer(st, seat, card, t, nt);
	st->hand[seat] &= ~CB_BIT(card);
	st->seq[st->nplayed++] = (unsigned char)card;
	gb_events_push(ev, CB_EV_PLAY, seat, card, 0, 0);
	t[nt] = card;
	if (nt + 1 < CB_SEATS)
		return;
	w = callbreak_trick_winner(t, CB_SEATS);
	winner = (st->leader + w) % CB_SEATS;
	for (int i = 0; i < CB_SEATS; i++)
		st->gone |= CB_BIT(t[i]);
	st->tricks[winner]++;
	st->last_leader = st->leader;
	st->last_winner = winner;
	st->leader = winner; /* CB-8: the winner leads the next trick */
	gb_events_push(ev, CB_EV_TRICK, winner, st->nplayed / CB_SEATS, t[w], 0);
	if (st->nplayed == CB_CARDS)
		end_round(st, ev); /* CB-19 */
}

static void do_play(struct callbreak *st, int card, struct gb_events *ev)
{
	int t[CB_SEATS], nt = callbreak_trick_now(st, t);

	play_card(st, callbreak_turn(st), card, t, nt, ev);
}

static void do_next(struct callbreak *st, struct gb_events *ev)
{
	/* CB-3/CB-20: reshuffle, the dealer moves one seat on */
	gb_events_push(ev, CB_EV_NEXT, -1, 0, 0, 0);
	st->round++;
	st->dealer = (st->dealer + 1) % CB_SEATS;
	start_round(st);
	deal_shuffled(st);
	gb_events_push(ev, CB_EV_DEAL, st->dealer, st->round, 0, 0);
}

/* ---- rebuild from the primary facts --------------------------------------- */

/*
 * Recompute a whole state from the primary facts of `in`: rules, rng, round,
 * dealer, the finished rounds before this one (hist bid and tricks), the
 * hands now, the bids and the cards played this round (seq, nplayed).
 * Everything else is produced by replaying this round from its deal through
 * the validator and the step functions. GB_OK, or GB_ESTATE when the facts
 * are not a position the rules can reach. out may not alias in.
 */
/* The rounds before in's, each line checked and scored again, into out. */
static int rebuild_history(const struct callbreak *in, struct callbreak *out)
{
	int prev = in->round - 1;

	for (int r = 0; r < prev; r++) {
		int sum = 0;

		for (int s = 0; s < CB_SEATS; s++) {
			const struct cb_line *l = &in->hist[r][s];

			if (l->bid < CB_MIN_BID || l->bid > CB_MAX_BID || l->tricks < 0 ||
			    l->tricks > CB_TRICKS)
				return GB_ESTATE;
			sum += l->tricks;
			out->hist[r][s].bid = l->bid;
			out->hist[r][s].tricks = l->tricks;
			out->hist[r][s].points = callbreak_score(l->bid, l->tricks);
			out->total[s] += out->hist[r][s].points;
		}
		if (sum != CB_TRICKS) /* CB-19 */
			return GB_ESTATE;
	}
	out->nhist = prev;
	return GB_OK;
}

/*
 * The hands as dealt this round: each hand now with the cards its seat
 * played back in it (the seat order follows the trick winners). The whole
 * deck once, thirteen cards a seat, or GB_ESTATE.
 */
static int rebuild_deal(const struct callbreak *in, uint64_t dealt[CB_SEATS])
{
	uint64_t all = 0;
	int leader = (in->dealer + 1) % CB_SEATS, t[CB_SEATS] = { 0 };

	for (int s = 0; s < CB_SEATS; s++) {
		if (in->hand[s] & ~CB_DECK || in->hand[s] & all)
			return GB_ESTATE;
		all |= in->hand[s];
		dealt[s] = in->hand[s];
	}
	for (int i = 0; i < in->nplayed; i++) {
		int c = in->seq[i];

		if (c >= CB_CARDS || (all & CB_BIT(c)))
			return GB_ESTATE;
		all |= CB_BIT(c);
		dealt[(leader + i % CB_SEATS) % CB_SEATS] |= CB_BIT(c);
		if (i % CB_SEATS == CB_SEATS - 1) {
			for (int k = 0; k < CB_SEATS; k++)
				t[k] = in->seq[i - (CB_SEATS - 1) + k];
			leader = (leader + callbreak_trick_winner(t, CB_SEATS)) % CB_SEATS;
		}
	}
	if (all != CB_DECK)
		return GB_ESTATE;
	for (int s = 0; s < CB_SEATS; s++)
		if (card_count(dealt[s]) != CB_RANKS)
			return GB_ESTATE;
	return GB_OK;
}

/* in's round played again on out from the dealt hands: its bids, then its cards. */
static int replay_round(const struct callbreak *in, struct callbreak *out, const uint64_t dealt[CB_SEATS])
{
	int seat, t[CB_SEATS] = { 0 };

	start_round(out);
	memcpy(out->hand, dealt, sizeof(out->hand));
	for (int i = 0; i < CB_SEATS; i++) {
		struct gb_action a = { GB_ACT_BID, 0, 0, 0 };

		seat = (in->dealer + 1 + i) % CB_SEATS;
		a.a = in->bid[seat];
		if (a.a == 0) {
			/* the seats still to bid must be exactly the rest */
			for (int k = i + 1; k < CB_SEATS; k++)
				if (in->bid[(in->dealer + 1 + k) % CB_SEATS])
					return GB_ESTATE;
			break;
		}
		if (callbreak_refusal(out, seat, &a, NULL, 0))
			return GB_ESTATE;
		do_bid(out, seat, a.a, NULL);
	}
	/* the cards: the same legality test and the same step as apply(), with
	 * the trick kept at hand instead of recomputed, since check() runs this
	 * after every action */
	if (in->nplayed > 0 && out->phase != CB_PHASE_PLAY)
		return GB_ESTATE;
	for (int i = 0; i < in->nplayed; i++) {
		int c = in->seq[i], nt = i % CB_SEATS;

		seat = (out->leader + nt) % CB_SEATS;
		if (!(callbreak_legal_cards(out->hand[seat], t, nt) & out->hand[seat] & CB_BIT(c)))
			return GB_ESTATE;
		play_card(out, seat, c, t, nt, NULL);
	}
	return GB_OK;
}

int callbreak_rebuild(const struct callbreak *in, struct callbreak *out)
{
	uint64_t dealt[CB_SEATS];
	int rc;

	memset(out, 0, sizeof(*out));
	if (in->rules.v[0] >= (unsigned)(sizeof(rounds_values) / sizeof(rounds_values[0])))
		return GB_ESTATE;
	for (int i = CB_NRULES; i < GB_MAX_RULES; i++)
		if (in->rules.v[i])
			return GB_ESTATE;
	out->rules = in->rules;
	out->rounds = rounds_values[in->rules.v[0]];
	out->rng = in->rng;
	if (in->round < 1 || in->round > out->rounds || in->dealer < 0 || in->dealer >= CB_SEATS ||
	    in->nplayed < 0 || in->nplayed > CB_CARDS)
		return GB_ESTATE;
	out->round = in->round;
	out->dealer = in->dealer;
	out->winner = -1;
	rc = rebuild_history(in, out);
	if (!rc)
		rc = rebuild_deal(in, dealt);
	if (!rc)
		rc = replay_round(in, out, dealt);
	return rc;
}

/* ---- the gb_game operations ----------------------------------------------- */

int callbreak_init(void *vst, const struct gb_setup *su)
{
	struct callbreak *st = vst;
	int rc = GB_OK;

	memset(st, 0, sizeof(*st));
	if (su->players != CB_SEATS) { /* CB-1 */
		rc = GB_EPLAYERS;
		goto out;
	}
	if (su->rules.v[0] >= (unsigned)(sizeof(rounds_values) / sizeof(rounds_values[0]))) {
		rc = GB_ERULE_VALUE;
		goto out;
	}
	if (su->dealer < 0 || su->dealer >= CB_SEATS) {
		rc = GB_EDEAL;
		goto out;
	}
	/* only the rules this game has; the rest stay zero so states compare equal */
	st->rules.v[0] = su->rules.v[0];
	st->rounds = rounds_values[st->rules.v[0]];
	gb_rng_seed(&st->rng, su->seed);
	st->round = 1;
	st->dealer = su->dealer;
	st->winner = -1;
	start_round(st);
	if (su->deal)
		rc = parse_deal(su->deal, st->hand);
	else
		deal_shuffled(st);
out:
	if (rc)
		memset(st, 0, sizeof(*st));
	return rc;
}

int callbreak_legal(const void *vst, struct gb_action *out)
{
	const struct callbreak *st = vst;
	int n = 0, seat = callbreak_turn(st), t[CB_SEATS], nt;
	uint64_t m;

	switch (st->phase) {
	case CB_PHASE_BID:
		for (int b = CB_MIN_BID; b <= CB_MAX_BID; b++)
			out[n++] = (struct gb_action){ GB_ACT_BID, b, 0, 0 };
		break;
	case CB_PHASE_PLAY:
		nt = callbreak_trick_now(st, t);
		m = callbreak_legal_cards(st->hand[seat], t, nt);
		for (int c = 0; c < CB_CARDS; c++)
			if (m & CB_BIT(c))
				out[n++] = (struct gb_action){ GB_ACT_PLAY, c, 0, 0 };
		break;
	case CB_PHASE_ROUND_OVER:
		out[n++] = (struct gb_action){ GB_ACT_NEXT, 0, 0, 0 };
		break;
	default:
		break;
	}
	return n;
}

int callbreak_apply(void *vst, const struct gb_action *act, struct gb_events *ev)
{
	struct callbreak *st = vst;
	int seat = callbreak_turn(st);
	int rc = callbreak_refusal(st, seat, act, NULL, 0);

	if (rc)
		return rc;
	switch (act->kind) {
	case GB_ACT_BID:
		do_bid(st, seat, act->a, ev);
		break;
	case GB_ACT_PLAY:
		do_play(st, act->a, ev);
		break;
	case GB_ACT_NEXT:
		do_next(st, ev);
		break;
	default:
		assert(0 && "refusal() lets only bid, play and next through");
		break;
	}
	return GB_OK;
}

/* The words after the verb joined without blanks ("q ♠" -> "q♠"). */
static int rest_joined(const char *p, char *buf, size_t n)
{
	char w[GB_ACTION_TEXT];
	size_t used = 0;

	buf[0] = '\0';
	for (p = gb_next_word(p, w, sizeof(w)); p; p = gb_next_word(p, w, sizeof(w))) {
		size_t len = strlen(w);

		if (used + len + 1 > n)
			return GB_EPARSE;
		memcpy(buf + used, w, len + 1);
		used += len;
	}
	return used ? GB_OK : GB_EPARSE;
}

int callbreak_parse(const void *st, const char *text, struct gb_action *out)
{
	char verb[16], arg[GB_ACTION_TEXT], extra[8];
	const char *p = gb_next_word(text, verb, sizeof(verb));
	int v, rc = GB_EPARSE;

	(void)st;
	memset(out, 0, sizeof(*out));
	if (!p)
		goto out;
	if (strcmp(verb, "bid") == 0 || strcmp(verb, "call") == 0) {
		/* numbers past 8 still read, so that apply() can say why they are refused */
		p = gb_next_word(p, arg, sizeof(arg));
		if (!p || gb_next_word(p, extra, sizeof(extra)) || gb_parse_uint(arg, 99, &v))
			goto out;
		*out = (struct gb_action){ GB_ACT_BID, v, 0, 0 };
		rc = GB_OK;
	} else if (strcmp(verb, "play") == 0) {
		if (rest_joined(p, arg, sizeof(arg)) || callbreak_card_parse(arg, &v))
			goto out;
		*out = (struct gb_action){ GB_ACT_PLAY, v, 0, 0 };
		rc = GB_OK;
	} else if (strcmp(verb, "next") == 0) {
		if (gb_next_word(p, extra, sizeof(extra)))
			goto out;
		*out = (struct gb_action){ GB_ACT_NEXT, 0, 0, 0 };
		rc = GB_OK;
	}
out:
	return rc;
}

void callbreak_format(const void *st, const struct gb_action *act, char *buf, size_t n)
{
	(void)st;
	if (!n)
		return;
	switch (act->kind) {
	case GB_ACT_BID:
		snprintf(buf, n, "bid %d", act->a);
		break;
	case GB_ACT_PLAY:
		snprintf(buf, n, "play %s", callbreak_card_name(act->a));
		break;
	case GB_ACT_NEXT:
		snprintf(buf, n, "next");
		break;
	default:
		snprintf(buf, n, "?");
		break;
	}
}

void callbreak_tenths_text(int t, bool plus, char *buf, size_t n)
{
	int a = t < 0 ? -t : t;

	snprintf(buf, n, "%s%d.%d", t < 0 ? "-" : (plus ? "+" : ""), a / 10, a % 10);
}

void callbreak_format_event(const struct gb_event *e, char *buf, size_t n)
{
	char pts[16];
	int len;

	if (!n)
		return;
	buf[0] = '\0';
	switch (e->type) {
	case CB_EV_BID:
		snprintf(buf, n, "bid %d", e->a);
		break;
	case CB_EV_PLAY:
		snprintf(buf, n, "play %s", callbreak_card_name(e->a));
		break;
	case CB_EV_TRICK:
		snprintf(buf, n, "trick %d to seat %d with %s", e->a, e->seat,
			 callbreak_card_name(e->b));
		break;
	case CB_EV_ROUND_OVER:
		snprintf(buf, n, "round %d over", e->a);
		break;
	case CB_EV_SCORE:
		callbreak_tenths_text(e->c, true, pts, sizeof(pts));
		snprintf(buf, n, "seat %d bid %d won %d %s", e->seat, e->a, e->b, pts);
		break;
	case CB_EV_NEXT:
		snprintf(buf, n, "next");
		break;
	case CB_EV_DEAL:
		snprintf(buf, n, "round %d dealer %d", e->a, e->seat);
		break;
	case CB_EV_GAME_OVER:
		len = snprintf(buf, n, "game over winner %d", e->seat);
		if (e->a && len > 0 && (size_t)len < n) {
			len += snprintf(buf + len, n - (size_t)len, " tied");
			for (int s = 0; s < CB_SEATS && len > 0 && (size_t)len < n; s++)
				if (e->a & (1 << s))
					len += snprintf(buf + len, n - (size_t)len, " %d", s);
		}
		break;
	default:
		break;
	}
}

int callbreak_check(const void *vst)
{
	const struct callbreak *st = vst;
	struct callbreak again;

	if (st->phase < CB_PHASE_BID || st->phase > CB_PHASE_GAME_OVER)
		return GB_EINVARIANT;
	/* what play "proves" a seat lacks must never be in its hand */
	for (int s = 0; s < CB_SEATS; s++)
		if (st->lacks[s] & st->hand[s])
			return GB_EINVARIANT;
	/* every derived field equals its recomputation from the primary facts */
	if (callbreak_rebuild(st, &again) || memcmp(&again, st, sizeof(again)) != 0)
		return GB_EINVARIANT;
	return GB_OK;
}

void callbreak_outcome(const void *vst, struct gb_outcome *out)
{
	const struct callbreak *st = vst;

	memset(out, 0, sizeof(*out));
	out->over = st->phase == CB_PHASE_GAME_OVER;
	out->winner = out->over ? st->winner : -1;
	/* CB-21: one seat is always named; ties are reported through `tied` */
	out->draw = false;
	for (int s = 0; s < CB_SEATS; s++)
		out->score[s] = st->total[s];
	out->turns = callbreak_turns_taken(st);
}

void callbreak_view(const struct callbreak *st, int seat, struct callbreak_view *v)
{
	int t[CB_SEATS], nt = callbreak_trick_now(st, t);

	memset(v, 0, sizeof(*v));
	v->seat = seat;
	v->phase = st->phase;
	v->round = st->round;
	v->rounds = st->rounds;
	v->dealer = st->dealer;
	v->turn = callbreak_turn(st);
	v->turns = callbreak_turns_taken(st);
	for (int s = 0; s < CB_SEATS; s++) {
		v->held[s] = card_count(st->hand[s]);
		v->bid[s] = st->bid[s];
		v->tricks[s] = st->tricks[s];
		v->total[s] = st->total[s];
		v->lacks[s] = st->lacks[s];
		for (int u = 0; u < 4; u++)
			if ((st->lacks[s] & CB_SUIT_MASK(u)) == CB_SUIT_MASK(u))
				v->voids[s] |= 1 << u;
		v->trick[s] = s < nt ? t[s] : -1;
		v->last_trick[s] = -1;
	}
	v->leader = st->leader;
	v->ntrick = nt;
	v->last_leader = st->last_leader;
	v->last_winner = st->last_winner;
	if (st->last_winner >= 0) {
		/* the last completed trick: the four cards before the trick in progress */
		int base = st->nplayed - nt - CB_SEATS;

		for (int i = 0; i < CB_SEATS; i++)
			v->last_trick[i] = st->seq[base + i];
	}
	v->nhist = st->nhist;
	memcpy(v->hist, st->hist, sizeof(v->hist));
	v->winner = st->winner;
	v->tied = st->tied;
	v->gone = st->gone;
	v->nplayed = st->nplayed;
	memcpy(v->played, st->seq, (size_t)st->nplayed);
	if (seat >= 0 && seat < CB_SEATS) {
		v->hand = st->hand[seat];
		if (st->phase == CB_PHASE_PLAY && seat == v->turn)
			v->legal = callbreak_legal_cards(st->hand[seat], t, nt);
	}
}
