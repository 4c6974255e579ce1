/*
 * baghchal.c - Bagh Chal rules core: the Alquerque board derived from BC-2,
 * move generation, make/unmake with an incremental Zobrist hash, the ends of
 * BC-11..BC-15, validation with reasons, the chat syntax and the state JSON.
 *
 * Guarantees: apply() validates completely before it changes anything, so a
 * refused action leaves the state byte for byte as it was; init, apply and
 * from_json produce canonical states (see baghchal.h); nothing here
 * allocates except the JSON objects it returns. Used through baghchal_game
 * (game.h; its row is games/rows/baghchal.c) and, by computer players,
 * through the helpers of baghchal.h and baghchal_legal().
 *
 * The Nepali original (at the end of games/rules/bagh-chal.md) and the English rules agree on every
 * rule; where the code settles a question neither text answers (which end
 * wins when two happen at once), the comment at end_of_move() says why.
 */
#include "baghchal.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- the board, derived from BC-2 at compile time ---------------------- */

#define BC_FILE(p) ((p) % 5)
#define BC_RANK(p) ((p) / 5)
/* BC-2: a point has diagonal lines when file + rank (from 0) is even. */
#define BC_HAS_DIAG(p) ((BC_FILE(p) + BC_RANK(p)) % 2 == 0)
/* Directions E, NE, N, NW, W, SW, S, SE. */
#define BC_DX(d) ((d) == 0 || (d) == 1 || (d) == 7 ? 1 : (d) >= 3 && (d) <= 5 ? -1 : 0)
#define BC_DY(d) ((d) >= 1 && (d) <= 3 ? 1 : (d) >= 5 ? -1 : 0)
#define BC_ON_BOARD(f, r) ((f) >= 0 && (f) < 5 && (r) >= 0 && (r) < 5)
/* BC-2/BC-3: orthogonal lines everywhere, diagonal ones only from diagonal points. */
#define BC_STEP(p, d)                                                                  \
	(((p) >= 0 && ((d) % 2 == 0 || BC_HAS_DIAG(p)) &&                             \
	  BC_ON_BOARD(BC_FILE(p) + BC_DX(d), BC_RANK(p) + BC_DY(d)))                   \
		 ? (p) + BC_DX(d) + 5 * BC_DY(d)                                       \
		 : -1)
/* BC-8: a jump continues the same straight line for a second step. */
#define BC_JUMP(p, d) (BC_STEP(BC_STEP(p, d), d))
#define BC_ROW(M, p) { M(p, 0), M(p, 1), M(p, 2), M(p, 3), M(p, 4), M(p, 5), M(p, 6), M(p, 7) }
#define BC_TABLE(M)                                                                    \
	{ BC_ROW(M, 0), BC_ROW(M, 1), BC_ROW(M, 2), BC_ROW(M, 3), BC_ROW(M, 4),         \
	  BC_ROW(M, 5), BC_ROW(M, 6), BC_ROW(M, 7), BC_ROW(M, 8), BC_ROW(M, 9),         \
	  BC_ROW(M, 10), BC_ROW(M, 11), BC_ROW(M, 12), BC_ROW(M, 13), BC_ROW(M, 14),    \
	  BC_ROW(M, 15), BC_ROW(M, 16), BC_ROW(M, 17), BC_ROW(M, 18), BC_ROW(M, 19),    \
	  BC_ROW(M, 20), BC_ROW(M, 21), BC_ROW(M, 22), BC_ROW(M, 23), BC_ROW(M, 24) }
#define BC_BIT(q) ((q) < 0 ? 0u : 1u << ((q) & 31))
#define BC_ADJ(p)                                                                       \
	(BC_BIT(BC_STEP(p, 0)) | BC_BIT(BC_STEP(p, 1)) | BC_BIT(BC_STEP(p, 2)) |        \
	 BC_BIT(BC_STEP(p, 3)) | BC_BIT(BC_STEP(p, 4)) | BC_BIT(BC_STEP(p, 5)) |        \
	 BC_BIT(BC_STEP(p, 6)) | BC_BIT(BC_STEP(p, 7)))

const int8_t baghchal_step[BAGHCHAL_POINTS][8] = BC_TABLE(BC_STEP);
const int8_t baghchal_jump[BAGHCHAL_POINTS][8] = BC_TABLE(BC_JUMP);
const uint32_t baghchal_adj_mask[BAGHCHAL_POINTS] = {
	BC_ADJ(0), BC_ADJ(1), BC_ADJ(2), BC_ADJ(3), BC_ADJ(4),
	BC_ADJ(5), BC_ADJ(6), BC_ADJ(7), BC_ADJ(8), BC_ADJ(9),
	BC_ADJ(10), BC_ADJ(11), BC_ADJ(12), BC_ADJ(13), BC_ADJ(14),
	BC_ADJ(15), BC_ADJ(16), BC_ADJ(17), BC_ADJ(18), BC_ADJ(19),
	BC_ADJ(20), BC_ADJ(21), BC_ADJ(22), BC_ADJ(23), BC_ADJ(24),
};

const char *const baghchal_point_names[BAGHCHAL_POINTS] = {
	"a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2",
	"a3", "b3", "c3", "d3", "e3", "a4", "b4", "c4", "d4", "e4",
	"a5", "b5", "c5", "d5", "e5",
};

/*
 * Zobrist keys: the first 72 outputs of splitmix64 seeded with
 * BAGHCHAL_ZOBRIST_SEED, in field order (the test suite regenerates them).
 * A constant table rather than one filled at start-up: games/ keeps no
 * mutable globals.
 */
const struct baghchal_zobrist baghchal_zobrist = {
	.goat = {
		0x402337b739db766eULL, 0xd21c84039d891655ULL, 0x064a7d6aaeabc143ULL,
		0xcdb2e72ac8e24788ULL, 0x82cba5a359755be6ULL, 0x1ae5e33c77aaa0e8ULL,
		0xf21c4fd068e21b59ULL, 0x9c5417039061db9bULL, 0x187b1dfb4e1194f8ULL,
		0x39b2ade67430baf5ULL, 0xa979441791defe29ULL, 0xb2a3da9eedf5201dULL,
		0xb69cea02530c3cccULL, 0xaa725467353047d2ULL, 0xaa47b1c23d882579ULL,
		0xbadc84cabf8bd17cULL, 0xe05fdcf3cd8ace84ULL, 0x175bf2e7e2a7c236ULL,
		0xfe1988e3caabf178ULL, 0x054134c48695cc7aULL, 0xbe2583d5b716ecdeULL,
		0xc444617f59a1bd84ULL, 0xbc5c71843b71d6ecULL, 0x2ec92edfeb10d2ddULL,
		0xa87c6d5e27914d3fULL,
	},
	.tiger = {
		0x4639e95685960358ULL, 0xc092e7c2547828dcULL, 0xe60b8a2932282cb0ULL,
		0x623e2252ec99e69eULL, 0xf4f6ce6fe6fec32aULL, 0x9350552e035c74d6ULL,
		0x7f7ac64219fd3691ULL, 0x0dbf32b98e54ffd2ULL, 0xce0594f019070f90ULL,
		0xb5ba4dc2a08e8d2aULL, 0xf785dbabac471a11ULL, 0xd0cda572936d70b6ULL,
		0x81df587a85002e32ULL, 0x2d0f67e9fc90f6e5ULL, 0x7fbb57ea39668e15ULL,
		0x7f5cbd8a5d12a9c6ULL, 0x7df4d09cad4bbfebULL, 0x4462bdc20e1534c9ULL,
		0x7a1cc59b3fbe28d0ULL, 0xf9b5dcd4dfad66edULL, 0x4d6b27e32e3931e5ULL,
		0x20a38f3ffbf7ebc3ULL, 0xe330bace66b43507ULL, 0xb76c36e9a58a5ba0ULL,
		0xfa19b2b53b2b377eULL,
	},
	.tiger_to_move = 0x69af0b29e6378eb0ULL,
	.hand = {
		0x329c030a3229c067ULL, 0xf6fbe3635cde1fafULL, 0x6adbb1fda1c416e8ULL,
		0xccaab619b3e7f1dfULL, 0x49b356e4b5e9f5faULL, 0x51967abb250229f8ULL,
		0xe8038c05632e2d4fULL, 0x3d439c81d40d12b7ULL, 0xd7cd5011dc139270ULL,
		0x4c580e7d21e66c78ULL, 0x82ebc6bba9c6810bULL, 0x77ec1cf89b4aaf20ULL,
		0xe73519f2a316369dULL, 0x698c103ab94cab64ULL, 0x53912351847a2daeULL,
		0xa2d0838b7cfcc812ULL, 0xe615d703fc0409b0ULL, 0x5a0ac20423c834a0ULL,
		0x4fdafbaefcb878c2ULL, 0x64cef9ec115570d8ULL, 0x20e3780f4a3a2e34ULL,
	},
};

/* ---- small helpers ------------------------------------------------------ */

static inline int bit_index(uint32_t x)
{
#if defined(__GNUC__)
	return __builtin_ctz(x);
#else
	int i = 0;

	while (!(x & 1u)) {
		x >>= 1;
		i++;
	}
	return i;
#endif
}

static inline int bit_count(uint32_t x)
{
#if defined(__GNUC__)
	return __builtin_popcount(x);
#else
	int n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
#endif
}

static inline bool valid_point(int p)
{
	return p >= 0 && p < BAGHCHAL_POINTS;
}

const char *baghchal_point_name(int p)
{
	return valid_point(p) ? baghchal_point_names[p] : "??";
}

int baghchal_point_parse(const char *s, const char **end)
{
	const unsigned char *d;
	char digit[4];
	size_t len;
	int file, rank;

	if (!s)
		return -1;
	file = s[0] >= 'A' && s[0] <= 'E' ? s[0] - 'A' : s[0] - 'a';
	if (file < 0 || file > 4)
		return -1;
	d = (const unsigned char *)s + 1;
	if (d[0] >= '0' && d[0] <= '9')
		len = 1;
	else if (d[0] == 0xe0 && d[1] == 0xa5 && d[2] >= 0xa6 && d[2] <= 0xaf)
		len = 3; /* a Devanagari digit: gb_parse_uint reads it */
	else
		return -1;
	memcpy(digit, d, len);
	digit[len] = '\0';
	if (gb_parse_uint(digit, 9, &rank) || rank < 1 || rank > 5)
		return -1;
	if (end)
		*end = s + 1 + len;
	return (rank - 1) * 5 + file;
}

uint64_t baghchal_hash_compute(const struct baghchal *s)
{
	uint64_t h = 0;

	for (uint32_t m = s->goats & BAGHCHAL_ALL_POINTS; m; m &= m - 1)
		h ^= baghchal_zobrist.goat[bit_index(m)];
	for (uint32_t m = s->tigers & BAGHCHAL_ALL_POINTS; m; m &= m - 1)
		h ^= baghchal_zobrist.tiger[bit_index(m)];
	if (s->to_move == BAGHCHAL_TIGERS)
		h ^= baghchal_zobrist.tiger_to_move;
	if (s->goats_in_hand >= 0 && s->goats_in_hand <= BAGHCHAL_GOAT_COUNT)
		h ^= baghchal_zobrist.hand[s->goats_in_hand];
	return h;
}

struct gb_action baghchal_move_action(struct baghchal_move m)
{
	struct gb_action a = { 0 };

	if (m.from < 0) {
		a.kind = GB_ACT_PLACE;
		a.a = m.to;
	} else {
		a.kind = GB_ACT_MOVE;
		a.a = m.from;
		a.b = m.to;
	}
	return a;
}

const char *baghchal_end_text(int result, int reason)
{
	switch (reason) {
	case BAGHCHAL_END_CAPTURES:
		return "tigers win: 5 goats captured";
	case BAGHCHAL_END_TIGERS_BLOCKED:
		return "goats win: all tigers blocked";
	case BAGHCHAL_END_GOATS_BLOCKED:
		return "tigers win: goats cannot move";
	case BAGHCHAL_END_REPETITION:
		return "draw: position repeated three times";
	case BAGHCHAL_END_CLOCK:
		return "draw: 100 half-moves, no capture or placement";
	default:
		return result == BAGHCHAL_PLAYING ? "" : "game over";
	}
}

/* ---- move generation ---------------------------------------------------- */

/* Tiger moves (BC-8): steps to empty neighbours, jumps over a goat to an empty point. */
static int tiger_moves(const struct baghchal *s, struct baghchal_move *out, bool captures_only)
{
	uint32_t empty = baghchal_empty(s);
	int n = 0;

	for (uint32_t m = s->tigers; m; m &= m - 1) {
		int t = bit_index(m);

		for (int d = 0; d < 8; d++) {
			int q = baghchal_step[t][d];

			if (q < 0)
				continue;
			if (empty >> q & 1u) {
				if (!captures_only)
					out[n++] = (struct baghchal_move){ (int8_t)t, (int8_t)q, -1 };
			} else if (s->goats >> q & 1u) {
				int j = baghchal_jump[t][d];

				if (j >= 0 && (empty >> j & 1u))
					out[n++] = (struct baghchal_move){ (int8_t)t, (int8_t)j, (int8_t)q };
			}
		}
	}
	return n;
}

int baghchal_moves(const struct baghchal *s, struct baghchal_move *out)
{
	uint32_t empty = baghchal_empty(s);
	int n = 0;

	if (baghchal_over(s))
		return 0;
	if (s->to_move == BAGHCHAL_TIGERS)
		return tiger_moves(s, out, false);
	if (s->goats_in_hand > 0) {
		/* BC-5: while goats remain in hand, placing is the only goat move */
		for (uint32_t m = empty; m; m &= m - 1)
			out[n++] = (struct baghchal_move){ -1, (int8_t)bit_index(m), -1 };
		return n;
	}
	/* BC-7: one step along a line to an empty neighbour; goats never jump */
	for (uint32_t m = s->goats; m; m &= m - 1) {
		int g = bit_index(m);

		for (uint32_t to = baghchal_adj_mask[g] & empty; to; to &= to - 1)
			out[n++] = (struct baghchal_move){ (int8_t)g, (int8_t)bit_index(to), -1 };
	}
	return n;
}

int baghchal_captures(const struct baghchal *s, struct baghchal_move *out)
{
	if (baghchal_over(s) || s->to_move != BAGHCHAL_TIGERS)
		return 0;
	return tiger_moves(s, out, true);
}

int baghchal_side_can_move(const struct baghchal *s)
{
	uint32_t empty = baghchal_empty(s);

	if (s->to_move == BAGHCHAL_GOATS) {
		if (s->goats_in_hand > 0)
			return empty != 0;
		for (uint32_t m = s->goats; m; m &= m - 1)
			if (baghchal_adj_mask[bit_index(m)] & empty)
				return 1;
		return 0;
	}
	for (uint32_t m = s->tigers; m; m &= m - 1) {
		int t = bit_index(m);

		if (baghchal_adj_mask[t] & empty)
			return 1;
		for (int d = 0; d < 8; d++) {
			int q = baghchal_step[t][d], j = baghchal_jump[t][d];

			if (j >= 0 && (s->goats >> q & 1u) && (empty >> j & 1u))
				return 1;
		}
	}
	return 0;
}

/* ---- playing a move ----------------------------------------------------- */

/* Occurrences of the current position in the window, itself included. */
static int occurrences(const struct baghchal *s)
{
	uint64_t k = s->hist[s->clock];
	int n = 0;

	/* sides alternate, so only every other entry can have the same side to move */
	for (int i = s->clock; i >= 0; i -= 2)
		n += s->hist[i] == k;
	return n;
}

/*
 * Decide BC-11..BC-15 after a move. Wins are checked before draws: a move
 * that takes the fifth goat or leaves the opponent without a move decides
 * the game on the board, while the Nepali original presents both draws as the site's
 * declaration that nobody is progressing ("कुनै पक्ष अगाडि बढिरहेको हुँदैन"),
 * which such a move disproves. Blocking is judged for the side now to move:
 * tigers after a goat move or placement (BC-12), goats after a tiger move
 * (BC-13). A tiger move can never leave all tigers blocked (the moved tiger
 * can always go back), and during placement the goats always have an empty
 * point, so checking only the side to move loses nothing.
 */
static void end_of_move(struct baghchal *s)
{
	if (s->captured >= BAGHCHAL_CAPTURES_TO_WIN) {
		s->result = BAGHCHAL_TIGERS_WIN;
		s->reason = BAGHCHAL_END_CAPTURES;
	} else if (!baghchal_side_can_move(s)) {
		if (s->to_move == BAGHCHAL_TIGERS) {
			s->result = BAGHCHAL_GOATS_WIN;
			s->reason = BAGHCHAL_END_TIGERS_BLOCKED;
		} else {
			/* BC-13: no pass in this variant; the Nepali original: "बाघको जित मान्छ" */
			s->result = BAGHCHAL_TIGERS_WIN;
			s->reason = BAGHCHAL_END_GOATS_BLOCKED;
		}
	} else if (occurrences(s) >= 3) {
		s->result = BAGHCHAL_DRAW;
		s->reason = BAGHCHAL_END_REPETITION;
	} else if (s->clock >= BAGHCHAL_CLOCK_LIMIT) {
		s->result = BAGHCHAL_DRAW;
		s->reason = BAGHCHAL_END_CLOCK;
	}
}

void baghchal_make(struct baghchal *s, struct baghchal_move m, struct baghchal_undo *u)
{
	const struct baghchal_zobrist *z = &baghchal_zobrist;
	bool irreversible = false;

	assert(!baghchal_over(s) && s->clock < BAGHCHAL_CLOCK_LIMIT);
	u->hash = s->hash;
	u->clock = s->clock;
	u->result = s->result;
	u->reason = s->reason;
	if (m.from < 0) {
		s->goats |= 1u << m.to;
		s->hash ^= z->goat[m.to] ^ z->hand[s->goats_in_hand] ^ z->hand[s->goats_in_hand - 1];
		s->goats_in_hand--;
		irreversible = true;
	} else if (s->to_move == BAGHCHAL_GOATS) {
		s->goats ^= 1u << m.from | 1u << m.to;
		s->hash ^= z->goat[m.from] ^ z->goat[m.to];
	} else {
		s->tigers ^= 1u << m.from | 1u << m.to;
		s->hash ^= z->tiger[m.from] ^ z->tiger[m.to];
		if (m.over >= 0) {
			s->goats &= ~(1u << m.over);
			s->hash ^= z->goat[m.over];
			s->captured++;
			irreversible = true;
		}
	}
	s->to_move ^= 1;
	s->hash ^= z->tiger_to_move;
	s->turns++;
	s->clock = irreversible ? 0 : (int16_t)(s->clock + 1);
	u->slot = s->hist[s->clock];
	s->hist[s->clock] = baghchal_key(s);
	end_of_move(s);
}

void baghchal_unmake(struct baghchal *s, struct baghchal_move m, const struct baghchal_undo *u)
{
	s->hist[s->clock] = u->slot;
	s->clock = u->clock;
	s->result = u->result;
	s->reason = u->reason;
	s->hash = u->hash;
	s->turns--;
	s->to_move ^= 1;
	if (m.from < 0) {
		s->goats &= ~(1u << m.to);
		s->goats_in_hand++;
	} else if (s->to_move == BAGHCHAL_GOATS) {
		s->goats ^= 1u << m.from | 1u << m.to;
	} else {
		s->tigers ^= 1u << m.from | 1u << m.to;
		if (m.over >= 0) {
			s->goats |= 1u << m.over;
			s->captured--;
		}
	}
}

/* ---- validation --------------------------------------------------------- */

/* A goat placed on act->a: GB_OK with m->to set, or the refusal and why. */
static int validate_place(const struct baghchal *s, const struct gb_action *act, struct baghchal_move *m,
			  char *why, size_t n)
{
	if (s->to_move != BAGHCHAL_GOATS) {
		snprintf(why, n, "tigers are never placed: move a tiger");
		return GB_EILLEGAL;
	}
	if (s->goats_in_hand == 0) {
		snprintf(why, n, "all 20 goats are placed: move a goat along a line");
		return GB_EPHASE;
	}
	if (!valid_point(act->a)) {
		snprintf(why, n, "there is no such point");
		return GB_EILLEGAL;
	}
	if (baghchal_piece_at(s, act->a) != BAGHCHAL_EMPTY) {
		snprintf(why, n, "%s is occupied", baghchal_point_name(act->a));
		return GB_EILLEGAL;
	}
	m->to = (int8_t)act->a;
	return GB_OK;
}

/* Is there a piece of the side to move on from, and room on to? GB_OK, or the refusal and why. */
static int validate_ends(const struct baghchal *s, int from, int to, char *why, size_t n)
{
	bool goat_turn = s->to_move == BAGHCHAL_GOATS;
	int piece;

	if (!valid_point(from) || !valid_point(to)) {
		snprintf(why, n, "there is no such point");
		return GB_EILLEGAL;
	}
	piece = baghchal_piece_at(s, from);
	if (piece != (goat_turn ? BAGHCHAL_GOAT : BAGHCHAL_TIGER)) {
		if (piece == BAGHCHAL_EMPTY)
			snprintf(why, n, "there is no %s on %s", goat_turn ? "goat" : "tiger",
				 baghchal_point_name(from));
		else
			snprintf(why, n, "%s holds a %s: %s move only %s", baghchal_point_name(from),
				 goat_turn ? "tiger" : "goat", goat_turn ? "goats" : "tigers",
				 goat_turn ? "goats" : "tigers");
		return GB_EILLEGAL;
	}
	if (from == to) {
		snprintf(why, n, "a move must leave %s", baghchal_point_name(from));
		return GB_EILLEGAL;
	}
	if (baghchal_piece_at(s, to) != BAGHCHAL_EMPTY) {
		snprintf(why, n, "%s is occupied", baghchal_point_name(to));
		return GB_EILLEGAL;
	}
	return GB_OK;
}

/* A piece moved from act->a to act->b: a step, or a tiger's jump over a goat. */
static int validate_move(const struct baghchal *s, const struct gb_action *act, struct baghchal_move *m,
			 char *why, size_t n)
{
	bool goat_turn = s->to_move == BAGHCHAL_GOATS;
	int from = act->a, to = act->b, rc;

	if (goat_turn && s->goats_in_hand > 0) {
		/* BC-5: goats on the board wait until all 20 are placed */
		snprintf(why, n, "%d goats still in hand: place one before moving goats", s->goats_in_hand);
		return GB_EPHASE;
	}
	rc = validate_ends(s, from, to, why, n);
	if (rc)
		return rc;
	for (int d = 0; d < 8; d++) {
		if (baghchal_step[from][d] == to) {
			m->from = (int8_t)from;
			m->to = (int8_t)to;
			return GB_OK;
		}
	}
	for (int d = 0; d < 8; d++) {
		int over = baghchal_step[from][d];

		if (baghchal_jump[from][d] != to)
			continue;
		if (goat_turn) {
			snprintf(why, n, "goats never jump: one step along a line");
			return GB_EILLEGAL;
		}
		if (baghchal_piece_at(s, over) != BAGHCHAL_GOAT) {
			snprintf(why, n, "a jump from %s to %s needs a goat on %s", baghchal_point_name(from),
				 baghchal_point_name(to), baghchal_point_name(over));
			return GB_EILLEGAL;
		}
		m->from = (int8_t)from;
		m->to = (int8_t)to;
		m->over = (int8_t)over;
		return GB_OK;
	}
	snprintf(why, n, "no line joins %s to %s for a %s", baghchal_point_name(from), baghchal_point_name(to),
		 goat_turn ? "step" : "step or jump");
	return GB_EILLEGAL;
}

int baghchal_validate(const struct baghchal *s, const struct gb_action *act,
		      struct baghchal_move *out, char *why, size_t n)
{
	struct baghchal_move m = { -1, -1, -1 };
	char scratch[1];
	int rc;

	if (!why || n == 0) {
		why = scratch;
		n = sizeof(scratch);
	}
	why[0] = '\0';
	if (baghchal_over(s)) {
		snprintf(why, n, "the game is over (%s)", baghchal_end_text(s->result, s->reason));
		return GB_EOVER;
	}
	if (act->kind == GB_ACT_PLACE) {
		rc = validate_place(s, act, &m, why, n);
	} else if (act->kind == GB_ACT_MOVE) {
		rc = validate_move(s, act, &m, why, n);
	} else {
		snprintf(why, n, "bagh chal knows only place and move");
		rc = GB_EILLEGAL;
	}
	if (rc == GB_OK && out)
		*out = m;
	return rc;
}

/* ---- the game interface ------------------------------------------------- */

static void bc_reset(struct baghchal *s, const struct gb_rules *rules)
{
	memset(s, 0, sizeof(*s));
	if (rules)
		s->rules = *rules;
	/* BC-4: tigers on the four corners, all 20 goats in hand; BC-5: goats first */
	s->tigers = 1u << 0 | 1u << 4 | 1u << 20 | 1u << 24;
	s->goats_in_hand = BAGHCHAL_GOAT_COUNT;
	s->to_move = BAGHCHAL_GOATS;
	s->hash = baghchal_hash_compute(s);
	s->hist[0] = baghchal_key(s);
}

int baghchal_init(void *st, const struct gb_setup *su)
{
	if (su->players != 2)
		return GB_EPLAYERS;
	bc_reset(st, &su->rules);
	return GB_OK;
}

int baghchal_turn(const void *st)
{
	const struct baghchal *s = st;

	return baghchal_over(s) ? -1 : s->to_move;
}

int baghchal_legal(const void *st, struct gb_action *out)
{
	struct baghchal_move mv[BAGHCHAL_MAX_MOVES];
	int n = baghchal_moves(st, mv);

	for (int i = 0; i < n; i++)
		out[i] = baghchal_move_action(mv[i]);
	return n;
}

int baghchal_apply(void *st, const struct gb_action *act, struct gb_events *ev)
{
	struct baghchal *s = st;
	struct baghchal_move m;
	struct baghchal_undo u;
	int rc = baghchal_validate(s, act, &m, NULL, 0);
	int mover, old_clock;

	if (rc)
		return rc;
	mover = s->to_move;
	old_clock = s->clock;
	baghchal_make(s, m, &u);
	/* keep the state canonical: the window restarted, forget the old one */
	if (s->clock == 0 && old_clock > 0)
		memset(&s->hist[1], 0, sizeof(s->hist[0]) * (size_t)old_clock);
	if (m.from < 0)
		gb_events_push(ev, BAGHCHAL_EV_PLACE, mover, m.to, -1, 0);
	else
		gb_events_push(ev, BAGHCHAL_EV_MOVE, mover, m.from, m.to, 0);
	if (m.over >= 0)
		gb_events_push(ev, BAGHCHAL_EV_CAPTURE, mover, m.over, s->captured, 0);
	if (baghchal_over(s))
		gb_events_push(ev, BAGHCHAL_EV_END, -1, s->result, s->reason, 0);
	return GB_OK;
}

/* Skip blanks; returns the new position. */
static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* A separator between two points: '-', 'x', en or em dash, an arrow. Length or 0. */
static size_t separator(const char *p)
{
	static const char *const seps[] = { "-", "x", "X", "\xe2\x80\x93", "\xe2\x80\x94",
					    "\xe2\x86\x92", ">" };

	for (size_t i = 0; i < sizeof(seps) / sizeof(seps[0]); i++) {
		size_t len = strlen(seps[i]);

		if (strncmp(p, seps[i], len) == 0)
			return len;
	}
	return 0;
}

/*
 * Chat syntax: `place c3`, bare `c3` (a placement), `move b2 c3`, `b2c3`,
 * `b2-c3`, `move b2-c3`, any case, extra blanks, Devanagari rank digits.
 */
int baghchal_parse(const void *st, const char *text, struct gb_action *out)
{
	char word[16];
	const char *p = gb_next_word(text, word, sizeof(word));
	int kind = GB_ACT_NONE, pts[2], np = 0;

	(void)st;
	if (!p)
		return GB_EPARSE;
	if (strcmp(word, "place") == 0 || strcmp(word, "/place") == 0)
		kind = GB_ACT_PLACE;
	else if (strcmp(word, "move") == 0 || strcmp(word, "/move") == 0)
		kind = GB_ACT_MOVE;
	else
		p = text;
	p = skip_blanks(p);
	while (*p) {
		int q;

		if (np == 2)
			return GB_EPARSE;
		q = baghchal_point_parse(p, &p);
		if (q < 0)
			return GB_EPARSE;
		pts[np++] = q;
		p = skip_blanks(p);
		if (np == 1 && separator(p)) {
			p = skip_blanks(p + separator(p));
			if (!*p)
				return GB_EPARSE;
		}
	}
	if (kind == GB_ACT_NONE)
		kind = np == 1 ? GB_ACT_PLACE : GB_ACT_MOVE;
	if ((kind == GB_ACT_PLACE && np != 1) || (kind == GB_ACT_MOVE && np != 2))
		return GB_EPARSE;
	memset(out, 0, sizeof(*out));
	out->kind = kind;
	out->a = pts[0];
	out->b = kind == GB_ACT_MOVE ? pts[1] : 0;
	return GB_OK;
}

void baghchal_format(const void *st, const struct gb_action *act, char *buf, size_t n)
{
	(void)st;
	if (act->kind == GB_ACT_PLACE)
		snprintf(buf, n, "place %s", baghchal_point_name(act->a));
	else if (act->kind == GB_ACT_MOVE)
		snprintf(buf, n, "move %s %s", baghchal_point_name(act->a), baghchal_point_name(act->b));
	else
		snprintf(buf, n, "?");
}

void baghchal_format_event(const struct gb_event *ev, char *buf, size_t n)
{
	switch (ev->type) {
	case BAGHCHAL_EV_PLACE:
		snprintf(buf, n, "place %s", baghchal_point_name(ev->a));
		break;
	case BAGHCHAL_EV_MOVE:
		snprintf(buf, n, "move %s %s", baghchal_point_name(ev->a), baghchal_point_name(ev->b));
		break;
	case BAGHCHAL_EV_CAPTURE:
		snprintf(buf, n, "capture %s", baghchal_point_name(ev->a));
		break;
	case BAGHCHAL_EV_END:
		snprintf(buf, n, "%s", baghchal_end_text(ev->a, ev->b));
		break;
	default:
		if (n)
			buf[0] = '\0';
		break;
	}
}

/* ---- JSON --------------------------------------------------------------- */

static const char *const result_names[] = { NULL, "tiger", "goat", "draw" };
static const char *const reason_names[] = { NULL, "captures", "tigers_blocked", "goats_blocked",
					    "repetition", "clock" };
#define NRESULTS ((int)(sizeof(result_names) / sizeof(result_names[0])))
#define NREASONS ((int)(sizeof(reason_names) / sizeof(reason_names[0])))

/* The 25 board characters of (goats, tigers) into b (26 bytes with the NUL). */
static void board_text(uint32_t goats, uint32_t tigers, char *b)
{
	for (int p = 0; p < BAGHCHAL_POINTS; p++)
		b[p] = (goats >> p & 1u) ? 'G' : (tigers >> p & 1u) ? 'T' : '.';
	b[BAGHCHAL_POINTS] = '\0';
}

/* Read 25 board characters; GB_OK or GB_ESTATE. */
static int board_read(const char *b, uint32_t *goats, uint32_t *tigers)
{
	*goats = *tigers = 0;
	for (int p = 0; p < BAGHCHAL_POINTS; p++) {
		if (b[p] == 'G')
			*goats |= 1u << p;
		else if (b[p] == 'T')
			*tigers |= 1u << p;
		else if (b[p] != '.')
			return GB_ESTATE;
	}
	return GB_OK;
}

/* Adds key = value to o, consuming value (json_object_set_new steals it). */
static void set_new(json_t *o, const char *key, json_t *value)
{
	json_object_set_new(o, key, value);
}

static json_t *name_or_null(const char *const *names, int n, int i)
{
	return i > 0 && i < n ? json_string(names[i]) : json_null();
}

/* Caller owns the result (json_decref). */
json_t *baghchal_to_json(const void *st)
{
	const struct baghchal *s = st;
	char board[BAGHCHAL_POINTS + 2];
	json_t *o = json_object(), *hist = json_array();

	if (!o || !hist) {
		json_decref(o);
		json_decref(hist);
		return NULL;
	}
	board_text(s->goats, s->tigers, board);
	set_new(o, "board", json_string(board));
	set_new(o, "to_move", json_string(s->to_move == BAGHCHAL_GOATS ? "goat" : "tiger"));
	set_new(o, "goats_in_hand", json_integer(s->goats_in_hand));
	set_new(o, "captured", json_integer(s->captured));
	set_new(o, "result", name_or_null(result_names, NRESULTS, s->result));
	set_new(o, "reason", name_or_null(reason_names, NREASONS, s->reason));
	set_new(o, "clock", json_integer(s->clock));
	set_new(o, "turns", json_integer(s->turns));
	/* each position of the window: its board, then 'g' or 't' for the side to move */
	for (int i = 0; i <= s->clock && i < BAGHCHAL_HIST; i++) {
		uint64_t k = s->hist[i];

		board_text((uint32_t)(k & BAGHCHAL_ALL_POINTS), (uint32_t)(k >> 25 & BAGHCHAL_ALL_POINTS),
			   board);
		board[BAGHCHAL_POINTS] = (k >> 50 & 1u) ? 't' : 'g';
		board[BAGHCHAL_POINTS + 1] = '\0';
		json_array_append_new(hist, json_string(board));
	}
	set_new(o, "history", hist);
	set_new(o, "rules", gb_rule_defs_json(NULL, 0, &s->rules));
	return o;
}

static int get_int(const json_t *j, const char *key, int min, int max, int *out)
{
	json_t *v = json_object_get(j, key);
	json_int_t i;

	if (!json_is_integer(v))
		return GB_ESTATE;
	i = json_integer_value(v);
	if (i < min || i > max)
		return GB_ESTATE;
	*out = (int)i;
	return GB_OK;
}

/* A nullable name: -1 when unknown, 0 for null, else its index. */
static int get_name(const json_t *j, const char *key, const char *const *names, int n)
{
	json_t *v = json_object_get(j, key);

	if (json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	for (int i = 1; i < n; i++)
		if (strcmp(json_string_value(v), names[i]) == 0)
			return i;
	return -1;
}

int baghchal_from_json(void *st, const json_t *j)
{
	struct baghchal *s = st;
	const json_t *v, *hist, *rules;
	const char *side;
	uint32_t goats, tigers;
	int rc = GB_ESTATE, hand, captured, clock, turns, result, reason;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(j))
		goto out;
	v = json_object_get(j, "board");
	if (!json_is_string(v) || json_string_length(v) != BAGHCHAL_POINTS ||
	    board_read(json_string_value(v), &goats, &tigers))
		goto out;
	v = json_object_get(j, "to_move");
	side = json_is_string(v) ? json_string_value(v) : "";
	if (strcmp(side, "goat") && strcmp(side, "tiger"))
		goto out;
	if (get_int(j, "goats_in_hand", 0, BAGHCHAL_GOAT_COUNT, &hand) ||
	    get_int(j, "captured", 0, BAGHCHAL_CAPTURES_TO_WIN, &captured) ||
	    get_int(j, "clock", 0, BAGHCHAL_CLOCK_LIMIT, &clock) ||
	    get_int(j, "turns", 0, INT32_MAX, &turns))
		goto out;
	result = get_name(j, "result", result_names, NRESULTS);
	reason = get_name(j, "reason", reason_names, NREASONS);
	if (result < 0 || reason < 0)
		goto out;
	rules = json_object_get(j, "rules");
	if (rules && gb_rule_defs_from_json(NULL, 0, &s->rules, rules))
		goto out;
	s->goats = goats;
	s->tigers = tigers;
	s->to_move = strcmp(side, "goat") == 0 ? BAGHCHAL_GOATS : BAGHCHAL_TIGERS;
	s->goats_in_hand = (int16_t)hand;
	s->captured = (int16_t)captured;
	s->clock = (int16_t)clock;
	s->turns = turns;
	s->result = (int16_t)result;
	s->reason = (int16_t)reason;
	s->hash = baghchal_hash_compute(s);
	hist = json_object_get(j, "history");
	if (!json_is_array(hist) || json_array_size(hist) != (size_t)clock + 1)
		goto out;
	for (int i = 0; i <= clock; i++) {
		const json_t *e = json_array_get(hist, (size_t)i);
		const char *t = json_is_string(e) ? json_string_value(e) : "";
		uint32_t g, tg;

		if (strlen(t) != BAGHCHAL_POINTS + 1 || board_read(t, &g, &tg) ||
		    (t[BAGHCHAL_POINTS] != 'g' && t[BAGHCHAL_POINTS] != 't'))
			goto out;
		s->hist[i] = (uint64_t)g | (uint64_t)tg << 25 |
			     (uint64_t)(t[BAGHCHAL_POINTS] == 't') << 50 | (uint64_t)hand << 51;
	}
	/* everything else (counts, turn order, history, the result) is check()'s job */
	rc = baghchal_check(s) ? GB_ESTATE : GB_OK;
out:
	if (rc)
		memset(s, 0, sizeof(*s));
	return rc;
}

/* ---- invariants --------------------------------------------------------- */

/* Is next reached from prev by one step (no capture, no placement) of prev's side? */
static bool history_step(uint64_t prev, uint64_t next)
{
	int side = (int)(prev >> 50 & 1u);
	uint32_t g0 = (uint32_t)(prev & BAGHCHAL_ALL_POINTS), g1 = (uint32_t)(next & BAGHCHAL_ALL_POINTS);
	uint32_t t0 = (uint32_t)(prev >> 25 & BAGHCHAL_ALL_POINTS);
	uint32_t t1 = (uint32_t)(next >> 25 & BAGHCHAL_ALL_POINTS);
	uint32_t m0 = side ? t0 : g0, m1 = side ? t1 : g1, diff = m0 ^ m1;
	uint32_t from = m0 & diff, to = m1 & diff;

	if ((prev >> 51) != (next >> 51) || (next >> 50 & 1u) == (uint64_t)side)
		return false;
	if ((side ? g0 != g1 : t0 != t1) || bit_count(from) != 1 || bit_count(to) != 1)
		return false;
	return (baghchal_adj_mask[bit_index(from)] & to) != 0;
}

int baghchal_check(const void *st)
{
	const struct baghchal *s = st;
	int placed = BAGHCHAL_GOAT_COUNT - s->goats_in_hand;

	if ((s->goats | s->tigers) & ~BAGHCHAL_ALL_POINTS || (s->goats & s->tigers) ||
	    bit_count(s->tigers) != BAGHCHAL_TIGER_COUNT)
		return GB_EINVARIANT;
	if (s->goats_in_hand < 0 || s->goats_in_hand > BAGHCHAL_GOAT_COUNT || s->captured < 0 ||
	    s->captured > BAGHCHAL_CAPTURES_TO_WIN ||
	    bit_count(s->goats) != placed - s->captured)
		return GB_EINVARIANT;
	for (int i = 0; i < GB_MAX_RULES; i++)
		if (s->rules.v[i])
			return GB_EINVARIANT;
	/* turns alternate goat, tiger, ... with no pass; every goat turn places while it can */
	if (s->turns < 0 || s->to_move != (s->turns & 1))
		return GB_EINVARIANT;
	if (s->goats_in_hand > 0 ? placed != (s->turns + 1) / 2 : (s->turns + 1) / 2 < placed)
		return GB_EINVARIANT;
	if (s->captured > s->turns / 2)
		return GB_EINVARIANT;
	/* each placement or capture restarts a window of at most 100 quiet half-moves */
	if (s->turns > placed + s->captured + (placed + s->captured + 1) * BAGHCHAL_CLOCK_LIMIT)
		return GB_EINVARIANT;
	/* the clock restarted at the last placement, at ply 2 * placed - 1 */
	if (s->clock < 0 || s->clock > BAGHCHAL_CLOCK_LIMIT ||
	    s->clock > (placed ? s->turns - (2 * placed - 1) : s->turns))
		return GB_EINVARIANT;
	if (s->hash != baghchal_hash_compute(s))
		return GB_EINVARIANT;
	/* the window: current position last, one legal step between neighbours, zeros after */
	if (s->hist[s->clock] != baghchal_key(s))
		return GB_EINVARIANT;
	for (int i = 0; i < s->clock; i++) {
		uint64_t k = s->hist[i];

		if ((k & BAGHCHAL_ALL_POINTS) & (k >> 25 & BAGHCHAL_ALL_POINTS) ||
		    !history_step(k, s->hist[i + 1]))
			return GB_EINVARIANT;
	}
	for (int i = s->clock + 1; i < BAGHCHAL_HIST; i++)
		if (s->hist[i])
			return GB_EINVARIANT;
	/* the result must be exactly what end_of_move() would decide */
	{
		struct baghchal t;

		memcpy(&t, s, sizeof(t));
		t.result = BAGHCHAL_PLAYING;
		t.reason = BAGHCHAL_END_NONE;
		end_of_move(&t);
		if (t.result != s->result || t.reason != s->reason)
			return GB_EINVARIANT;
	}
	return GB_OK;
}

void baghchal_outcome(const void *st, struct gb_outcome *out)
{
	const struct baghchal *s = st;

	memset(out, 0, sizeof(*out));
	out->over = baghchal_over(s);
	out->draw = s->result == BAGHCHAL_DRAW;
	out->winner = s->result == BAGHCHAL_GOATS_WIN	 ? BAGHCHAL_GOATS
		      : s->result == BAGHCHAL_TIGERS_WIN ? BAGHCHAL_TIGERS
							 : -1;
	out->turns = s->turns;
}

_Static_assert(BAGHCHAL_MAX_MOVES <= GB_MAX_LEGAL, "legal() must fit GB_MAX_LEGAL");

/* No padding inside the state, so memcmp compares exactly the fields. */
_Static_assert(sizeof(struct baghchal) ==
		       sizeof(uint64_t) * (BAGHCHAL_HIST + 1) + 2 * sizeof(uint32_t) +
			       sizeof(struct gb_rules) + 6 * sizeof(int16_t) + sizeof(int32_t),
	       "struct baghchal has padding");
