/*
 * test_render.c - cmocka suite for the text renderers (bot/render*.c).
 *
 * What it proves: for every game, over thousands of states reached by
 * random legal play through the real game operations (several seeds, table
 * sizes and house rules), in English and Nepali, with ASCII and Devanagari
 * digits, every board, status line, log line, button label and Call Break
 * hand
 *   - has no line wider than 40 columns, measured with the C library's
 *     wcwidth() under C.UTF-8 (and our own render_width() agrees with it);
 *   - stays under 2,000 bytes, and the whole table message (board, the last
 *     six log lines, status) under 2,000 characters;
 *   - in Nepali, shows no Latin letters except the allowed tokens below;
 *   - has exactly the same line widths with either digit set.
 * Then known states show what they must: a token where it stands, a bid,
 * a score of -4.0 or 3.2, the right marks and words.
 *
 * Latin letters allowed on a Nepali screen (everything else is a failure):
 *   - commands and their words: a run of letters right after '/' ("/next");
 *   - seat names, whole or cut ("Chandra Bah…"): any run inside a name;
 *   - Bagh Chal coordinates: a single letter a..e (file letters, "c3");
 *   - card codes: a rank letter A K Q J before a suit symbol ("Q♠") or a
 *     suit letter ("QS"), and a suit letter S H D C after a rank ("10H").
 * The renderers use no T/G piece letters in Nepali (ब and ख instead).
 */
#define _XOPEN_SOURCE 700
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <cmocka.h>

#include "bot/lang/i18n.h"
#include "bot/render/render.h"
#include "games/baghchal.h"
#include "games/callbreak.h"
#include "games/game.h"
#include "games/ludo.h"
#include "games/snakes.h"

#define LOG_LINES 6

/* ---- name sets ---- */

static const char *const names_latin[GB_MAX_SEATS] = { "Asha", "Bikash", "Chandra Bahadur",
							"Dipa Kumari Shrestha" };
static const char *const names_mixed[GB_MAX_SEATS] = { "सीता", "राम बहादुर थापा मगर", "王小明王小明王小明",
							"Dipa 🎲 Gurung" };
static const char *const names_short[GB_MAX_SEATS] = { "A", "Bo", "Cy", "Di" };

/* ---- measuring ---- */

static int wc_width(const char *s, size_t n)
{
	char tmp[4096];
	wchar_t wide[4096];
	size_t k;
	int w = 0;

	assert_true(n < sizeof(tmp));
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	k = mbstowcs(wide, tmp, sizeof(wide) / sizeof(wide[0]));
	assert_true(k != (size_t)-1);
	for (size_t i = 0; i < k; i++) {
		int cw = wcwidth(wide[i]);

		if (cw < 0) {
			print_error("unprintable U+%04X in \"%s\"\n", (unsigned)wide[i], tmp);
			fail();
		}
		w += cw;
	}
	return w;
}

static size_t code_points(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Widths of every line of text into w (room for max); returns the count. */
static int line_widths(const char *text, int *w, int max)
{
	int n = 0;
	const char *p = text;

	while (*p && n < max) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		w[n++] = wc_width(p, len);
		p += len + (nl ? 1 : 0);
	}
	return n;
}

static bool is_suit_symbol(const char *p)
{
	return strncmp(p, "♠", 3) == 0 || strncmp(p, "♥", 3) == 0 || strncmp(p, "♦", 3) == 0 ||
	       strncmp(p, "♣", 3) == 0;
}

static bool run_allowed(const char *text, size_t at, size_t len, const char *const *names)
{
	const char *run = text + at;
	char word[256];

	if (at > 0 && text[at - 1] == '/')
		return true; /* a command */
	if (len < sizeof(word)) {
		memcpy(word, run, len);
		word[len] = '\0';
		for (int i = 0; names && i < GB_MAX_SEATS; i++)
			if (names[i] && strstr(names[i], word))
				return true;
	}
	if (len == 1 && run[0] >= 'a' && run[0] <= 'e')
		return true; /* a Bagh Chal file */
	if (len == 1 && strchr("AKQJ", run[0]) && is_suit_symbol(run + 1))
		return true; /* "Q♠" */
	if (len == 2 && strchr("AKQJ", run[0]) && strchr("SHDC", run[1]))
		return true; /* "QS" */
	if (len == 1 && strchr("SHDC", run[0]) && at > 0 && text[at - 1] >= '0' && text[at - 1] <= '9')
		return true; /* "10H" */
	return false;
}

static void assert_no_latin(const char *text, const char *const *names)
{
	size_t i = 0;

	while (text[i]) {
		size_t j = i;

		while ((text[j] >= 'a' && text[j] <= 'z') || (text[j] >= 'A' && text[j] <= 'Z'))
			j++;
		if (j > i) {
			if (!run_allowed(text, i, j - i, names)) {
				print_error("Latin word \"%.*s\" on a Nepali screen:\n%s\n", (int)(j - i), text + i,
					    text);
				fail();
			}
			i = j;
		} else {
			i++;
		}
	}
}

/* The checks every rendered text passes. */
static void check_text(const char *text, int lang, const char *const *names)
{
	int w[128], n = line_widths(text, w, 128);
	const char *p = text;

	assert_true(strlen(text) < 2000);
	for (int i = 0; i < n; i++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (w[i] > RENDER_MAX_COLS) {
			print_error("line %d is %d columns:\n%.*s\n", i, w[i], (int)len, p);
			fail();
		}
		/* our own measure agrees with the C library's */
		if (render_widthn(p, len) != w[i]) {
			print_error("render_width %d, wcwidth %d: \"%.*s\"\n", render_widthn(p, len), w[i],
				    (int)len, p);
			fail();
		}
		p += len + (nl ? 1 : 0);
	}
	if (lang == LANG_NE)
		assert_no_latin(text, names);
}

/* ---- rendering helpers ---- */

static void ctx_init(struct render_ctx *rc, const struct gb_game *g, const void *st, int lang, bool deva,
		     const char *const *names, int nseats)
{
	memset(rc, 0, sizeof(*rc));
	rc->game = g;
	rc->st = st;
	rc->lang = lang;
	rc->devanagari = deva;
	rc->nseats = nseats;
	for (int i = 0; names && i < nseats && i < GB_MAX_SEATS; i++)
		rc->names[i] = names[i];
}

static char *board_text(const struct render_ctx *rc)
{
	struct strbuf sb = { 0 };

	render_board(rc, &sb);
	return sb_detach(&sb);
}

static char *status_text(const struct render_ctx *rc)
{
	struct strbuf sb = { 0 };

	render_status(rc, &sb);
	return sb_detach(&sb);
}

static char *event_text(const struct render_ctx *rc, const struct gb_event *ev)
{
	struct strbuf sb = { 0 };

	render_event(rc, ev, &sb);
	return sb_detach(&sb);
}

static bool contains(const char *hay, const char *needle)
{
	if (!strstr(hay, needle)) {
		print_error("expected \"%s\" in:\n%s\n", needle, hay);
		return false;
	}
	return true;
}

/* ---- random play ---- */

struct log_ring {
	struct gb_event ev[32];
	int n;
};

static void log_push(struct log_ring *lr, const struct gb_events *ev)
{
	for (int i = 0; i < ev->n; i++) {
		if (lr->n == 32) {
			memmove(lr->ev, lr->ev + 1, sizeof(lr->ev[0]) * 31);
			lr->n--;
		}
		lr->ev[lr->n++] = ev->ev[i];
	}
}

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int checked_states;

/*
 * Every Ludo token on the route is on the board and says whose it is: the
 * board (English, ASCII digits) is read back square by square - a glyph
 * and its second column, "+" squares from the notes below the grid - and
 * each seat must show exactly 4 - base - centre tokens, the centre squares
 * ■ and a count of what reached the centre.
 */
static void check_ludo_tokens_seen(const struct ludo *lu, const char *board)
{
	int seen[GB_MAX_SEATS] = { 0 }, centre_seen = 0, centre = 0, mover = lu->winner < 0 ? lu->seat : -1;
	const char *line = strchr(board, '\n') + 1;
	static const char *const supd[] = { "⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹" };

	/* one glyph: a seat's token (the mover's digit or a mark) -> its seat, else -1 */
#define SEAT_OF(g) ((g)[0] >= '1' && (g)[0] <= '4' && !(g)[1] ? mover \
		    : (g)[0] >= 'A' && (g)[0] <= 'D' && !(g)[1] ? (g)[0] - 'A' : -1)
	for (int r = 0; r < 15; r++) {
		const char *nl = strchr(line, '\n');
		char cells[40][8];
		int ncols = 0;

		memset(cells, 0, sizeof(cells));
		/* split the row into display columns (the grid is all one-column characters) */
		for (const char *p = line; p < nl && ncols < 40;) {
			size_t k = 1;

			while (p + k < nl && ((unsigned char)p[k] & 0xc0) == 0x80)
				k++;
			if (render_widthn(p, k) == 1) {
				memcpy(cells[ncols], p, k);
				ncols++;
			}
			p += k;
		}
		for (int c = 0; c < 15; c++) {
			const char *g1 = cells[2 * c], *g2 = cells[2 * c + 1];
			int s1, s2, k = 0;

			if ((r < 6 || r > 8) && (c < 6 || c > 8))
				continue; /* a yard */
			if (strcmp(g1, "■") == 0) {
				for (int d = 1; d < 10; d++)
					if (strcmp(g2, supd[d]) == 0)
						centre_seen += d;
				continue;
			}
			s1 = SEAT_OF(g1);
			if (s1 < 0)
				continue;
			s2 = SEAT_OF(g2);
			for (int d = 2; d < 10; d++)
				if (strcmp(g2, supd[d]) == 0)
					k = d;
			seen[s1] += k ? k : 1;
			if (s2 >= 0)
				seen[s2]++;
		}
		line = nl + 1;
	}
	/* the notes of crowded squares: "+³: A² B" */
	for (const char *p = strstr(line, "\n+"); p; p = strstr(p + 1, "\n+")) {
		const char *q = strchr(p, ':') + 1, *e = strchr(p + 1, '\n');

		while (q < e) {
			char g[8] = "";
			int k = 1;

			while (*q == ' ')
				q++;
			g[0] = *q++;
			for (int d = 2; d < 10; d++)
				if (strncmp(q, supd[d], strlen(supd[d])) == 0) {
					k = d;
					q += strlen(supd[d]);
				}
			if (SEAT_OF(g) >= 0)
				seen[SEAT_OF(g)] += k;
		}
	}
#undef SEAT_OF
	for (int s = 0; s < lu->players; s++) {
		int base = 0;

		for (int t = 0; t < LUDO_TOKENS; t++)
			base += lu->pos[s][t] == 0;
		centre += ludo_home_count(lu, s);
		if (seen[s] != LUDO_TOKENS - base - ludo_home_count(lu, s))
			fail_msg("seat %d: %d tokens seen on the board, %d on the route\n%s", s, seen[s],
				 LUDO_TOKENS - base - ludo_home_count(lu, s), board);
	}
	assert_int_equal(centre_seen, centre);
}

/* Every check on one state in one language and digit setting. */
static void check_state(const struct gb_game *g, const void *st, const struct log_ring *lr, int lang, bool deva,
			const char *const *names, int nseats)
{
	struct render_ctx rc;
	struct gb_action acts[GB_MAX_LEGAL];
	struct strbuf msg = { 0 };
	char *board, *status, *lines[32];
	int nlines = 0, n;

	ctx_init(&rc, g, st, lang, deva, names, nseats);
	board = board_text(&rc);
	status = status_text(&rc);
	check_text(board, lang, names);
	check_text(status, lang, names);
	if (g == &ludo_game && lang == LANG_EN && !deva)
		check_ludo_tokens_seen(st, board);
	assert_null(strchr(status, '\n'));
	assert_true(strlen(status) > 0);
	for (int i = 0; i < lr->n; i++) {
		char *line = event_text(&rc, &lr->ev[i]);

		check_text(line, lang, names);
		assert_null(strchr(line, '\n'));
		if (line[0])
			lines[nlines++] = line;
		else
			free(line);
	}
	/* the table message as bot/commands/play.c builds it */
	sb_add(&msg, board);
	sb_add(&msg, "\n");
	for (int i = nlines > LOG_LINES ? nlines - LOG_LINES : 0; i < nlines; i++) {
		sb_add(&msg, "\n");
		sb_add(&msg, lines[i]);
	}
	sb_add(&msg, "\n");
	sb_add(&msg, status);
	assert_true(code_points(sb_str(&msg)) < 2000);
	assert_true(msg.len < 2000);
	sb_release(&msg);
	for (int i = 0; i < nlines; i++)
		free(lines[i]);

	n = g->legal(st, acts);
	for (int i = 0; i < n; i++) {
		char label[64];

		render_action_label(&rc, &acts[i], label, sizeof(label));
		assert_true(label[0] != '\0');
		check_text(label, lang, names);
	}
	if (g == &callbreak_game) {
		for (int s = 0; s < CB_SEATS; s++) {
			struct strbuf hand = { 0 };

			render_hand(&rc, s, &hand);
			check_text(sb_str(&hand), lang, names);
			assert_true(hand.len > 0);
			sb_release(&hand);
		}
	}

	/* the same board with the other digits has the same shape */
	{
		struct render_ctx other = rc;
		char *b2;
		int w1[128], w2[128], n1, n2;

		other.devanagari = !deva;
		b2 = board_text(&other);
		n1 = line_widths(board, w1, 128);
		n2 = line_widths(b2, w2, 128);
		assert_int_equal(n1, n2);
		for (int i = 0; i < n1; i++)
			assert_int_equal(w1[i], w2[i]);
		free(b2);
	}
	free(board);
	free(status);
	checked_states++;
}

static void check_all_settings(const struct gb_game *g, const void *st, const struct log_ring *lr,
			       const char *const *names, int nseats)
{
	check_state(g, st, lr, LANG_EN, false, names, nseats);
	check_state(g, st, lr, LANG_EN, true, names, nseats);
	check_state(g, st, lr, LANG_NE, false, names, nseats);
	check_state(g, st, lr, LANG_NE, true, names, nseats);
}

/*
 * Play one game at random from seed through the game's own operations,
 * checking every state. Rules: NULL-terminated "key=value" list.
 */
static void random_game(const struct gb_game *g, int players, uint64_t seed, const char *const *rules,
			const char *const *names, int max_steps)
{
	struct gb_setup su;
	void *st = calloc(1, g->state_size), *before = calloc(1, g->state_size);
	struct log_ring lr = { .n = 0 };
	uint64_t r = seed * 2654435761u + 1;

	assert_non_null(st);
	assert_non_null(before);
	gb_setup_init(&su, g);
	su.players = players;
	su.seed = seed;
	su.dealer = (int)(seed % 4);
	for (int i = 0; rules && rules[i]; i++)
		assert_int_equal(gb_rules_set_kv(g, &su.rules, rules[i]), GB_OK);
	assert_int_equal(g->init(st, &su), GB_OK);
	for (int step = 0; step < max_steps; step++) {
		struct gb_action acts[GB_MAX_LEGAL];
		struct gb_events ev = { 0 };
		int n = g->legal(st, acts);

		/* renderers never change a state */
		memcpy(before, st, g->state_size);
		check_all_settings(g, st, &lr, names, players);
		assert_memory_equal(before, st, g->state_size);
		if (n == 0)
			break;
		assert_int_equal(g->apply(st, &acts[xs(&r) % (uint64_t)n], &ev), GB_OK);
		log_push(&lr, &ev);
	}
	free(st);
	free(before);
}

/* ---- random play per game ---- */

/*
 * Every character a name may hold takes the columns the C library's
 * wcwidth() gives it (C.UTF-8): combining marks of every script none,
 * wide characters two, whatever script a player writes their name in.
 */
static void test_width_matches_wcwidth(void **state)
{
	int differ = 0;

	(void)state;
	for (uint32_t c = 0x20; c <= 0x3ffff; c++) {
		int want = wcwidth((wchar_t)c);
		char buf[8];
		size_t n = 0;

		if (want < 0)
			continue; /* unassigned, or not printable: nothing to agree on */
		if (c < 0x80) {
			buf[n++] = (char)c;
		} else if (c < 0x800) {
			buf[n++] = (char)(0xc0 | (c >> 6));
			buf[n++] = (char)(0x80 | (c & 0x3f));
		} else if (c < 0x10000) {
			if (c >= 0xd800 && c <= 0xdfff)
				continue;
			buf[n++] = (char)(0xe0 | (c >> 12));
			buf[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
			buf[n++] = (char)(0x80 | (c & 0x3f));
		} else {
			buf[n++] = (char)(0xf0 | (c >> 18));
			buf[n++] = (char)(0x80 | ((c >> 12) & 0x3f));
			buf[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
			buf[n++] = (char)(0x80 | (c & 0x3f));
		}
		buf[n] = '\0';
		if (render_width(buf) != want && differ++ < 10)
			print_error("U+%04X: render_width %d, wcwidth %d\n", (unsigned)c, render_width(buf),
				    want);
	}
	assert_int_equal(differ, 0);
	/* names in scripts with marks line up: Hebrew points, a Vietnamese letter, a Hangul word */
	assert_int_equal(render_width("שָׁלוֹם"), 4);
	assert_int_equal(render_width("ễ"), 1);
	assert_int_equal(render_width("한국"), 4);
	assert_int_equal(render_width("कम्प्युटर"), 6);
}

static void test_random_snakes(void **state)
{
	static const char *const r1[] = { NULL };
	static const char *const r2[] = { "entry=any", "finish=overshoot", "board=random", NULL };
	static const char *const r3[] = { "three_sixes=restart", "six_bonus=off", "board=random", NULL };

	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		random_game(&snakes_game, 2, seed, r1, names_latin, 400);
		random_game(&snakes_game, 4, seed + 10, r2, names_mixed, 400);
		random_game(&snakes_game, 3, seed + 20, r3, names_short, 400);
	}
}

static void test_random_ludo(void **state)
{
	static const char *const r1[] = { NULL };
	static const char *const r2[] = { "one_releases=on", "six_bonus=off", NULL };
	static const char *const r3[] = { "capture_bonus=off", NULL };

	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		random_game(&ludo_game, 4, seed, r1, names_latin, 1500);
		random_game(&ludo_game, 2, seed + 10, r2, names_mixed, 1500);
		random_game(&ludo_game, 3, seed + 20, r3, names_short, 1500);
	}
}

static void test_random_baghchal(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++)
		random_game(&baghchal_game, 2, seed, NULL,
			    seed % 3 == 0 ? names_latin : seed % 3 == 1 ? names_mixed : names_short, 400);
}

static void test_random_callbreak(void **state)
{
	static const char *const r1[] = { NULL };
	static const char *const r3[] = { "rounds=3", NULL };

	(void)state;
	random_game(&callbreak_game, 4, 1, r1, names_latin, 400);
	random_game(&callbreak_game, 4, 2, r3, names_mixed, 400);
	random_game(&callbreak_game, 4, 3, r3, names_short, 400);
	print_message("%d states checked in four settings each\n", checked_states);
}

/* Seats without names get their marks; nothing reads past nseats. */
static void test_no_names(void **state)
{
	const struct gb_game *games[] = { &snakes_game, &ludo_game, &baghchal_game, &callbreak_game };

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct gb_setup su;
		void *st = calloc(1, games[i]->state_size);
		struct log_ring lr = { .n = 0 };

		gb_setup_init(&su, games[i]);
		su.seed = 5;
		assert_int_equal(games[i]->init(st, &su), GB_OK);
		check_state(games[i], st, &lr, LANG_NE, true, NULL, 0);
		check_state(games[i], st, &lr, LANG_EN, false, NULL, 0);
		free(st);
	}
}

/* ---- helpers ---- */

static void test_numbers(void **state)
{
	struct render_ctx en, ne;
	struct strbuf sb = { 0 };

	(void)state;
	ctx_init(&en, &snakes_game, NULL, LANG_EN, false, NULL, 0);
	ctx_init(&ne, &snakes_game, NULL, LANG_NE, true, NULL, 0);
	render_int(&en, 1234567890, &sb);
	assert_string_equal(sb_str(&sb), "1234567890");
	sb_release(&sb);
	render_int(&ne, 1234567890, &sb);
	assert_string_equal(sb_str(&sb), "१२३४५६७८९०");
	sb_release(&sb);
	render_int(&ne, -40, &sb);
	assert_string_equal(sb_str(&sb), "−४०");
	sb_release(&sb);
	render_tenths(&en, -40, &sb);
	assert_string_equal(sb_str(&sb), "-4.0");
	sb_release(&sb);
	render_tenths(&en, 32, &sb);
	assert_string_equal(sb_str(&sb), "3.2");
	sb_release(&sb);
	render_tenths(&en, -5, &sb);
	assert_string_equal(sb_str(&sb), "-0.5");
	sb_release(&sb);
	render_tenths(&ne, -40, &sb);
	assert_string_equal(sb_str(&sb), "−४.०");
	sb_release(&sb);
	render_tenths(&ne, 85, &sb);
	assert_string_equal(sb_str(&sb), "८.५");
	sb_release(&sb);
}

/* v as "%d" writes it, into buf. */
static const char *edges_text(int v, char *buf, size_t n)
{
	snprintf(buf, n, "%d", v);
	return buf;
}

/* sb_addtr()'s text, and the C library's for the same format and values. */
static void same_as_printf(const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	char want[512];
	va_list ap, cp;

	va_start(ap, fmt);
	va_copy(cp, ap);
	vsnprintf(want, sizeof(want), fmt, cp);
	va_end(cp);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	assert_string_equal(sb_str(&sb), want);
	sb_release(&sb);
}

/* Catalogue texts and numbers are written byte for byte as printf writes them. */
static void test_format_as_printf(void **state)
{
	const int edges[] = { 0, 7, -7, 10, -10, 99, 1000, INT32_MAX, INT32_MIN, INT32_MIN + 1 };
	struct render_ctx en, ne;
	char buf[64], want[64];

	(void)state;
	same_as_printf("plain text, no conversion");
	same_as_printf("");
	same_as_printf("%s", "");
	same_as_printf("%s rolled %s.", "Asha", "६");
	same_as_printf("%s→%s%%", "a", "b");
	same_as_printf("100%% %s", "sure");
	same_as_printf("%s: %d of %d", "x", -42, INT32_MIN);
	same_as_printf("%d%d%s", INT32_MAX, 0, "end");
	same_as_printf("%5s|%-3d|%x|%.2f", "ab", 4, 255, 1.5); /* other conversions: the C library's */
	same_as_printf("%1$s %1$s", "twice");
	ctx_init(&en, &snakes_game, NULL, LANG_EN, false, NULL, 0);
	ctx_init(&ne, &snakes_game, NULL, LANG_NE, true, NULL, 0);
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
		snprintf(want, sizeof(want), "%d", edges[i]);
		assert_string_equal(render_num(&en, edges[i], buf, sizeof(buf)), want);
		/* a short buffer keeps what fits, as snprintf() does */
		snprintf(want, 4, "%d", edges[i]);
		assert_string_equal(render_num(&en, edges[i], buf, 4), want);
		render_num(&ne, edges[i], buf, sizeof(buf));
		assert_int_equal(strlen(buf), 3 * strlen(edges_text(edges[i], want, sizeof(want))));
	}
	assert_string_equal(render_num(&ne, INT32_MIN, buf, sizeof(buf)), "−२१४७४८३६४८");
	/* a short buffer never splits a digit */
	assert_string_equal(render_num(&ne, 1234, buf, 8), "१२");
}

static void test_fit_and_width(void **state)
{
	struct strbuf sb = { 0 };

	(void)state;
	/* U+FFFD (a byte that was not UTF-8, as names show it), superscript and circled digits: one column each */
	assert_int_equal(render_width("\xef\xbf\xbd"), 1);
	assert_int_equal(render_width("B²■⁴①④"), 6);
	assert_int_equal(render_width("खोर"), 3);
	assert_int_equal(render_width("हुकुम"), 3);
	assert_int_equal(render_width("बाख्रा"), 5);
	assert_int_equal(render_width("王小明"), 6);
	assert_int_equal(render_width("Q♠ ─│╱╲ ▲▼○▫▸·→–−…"), 18);
	assert_int_equal(render_add_fit(&sb, "Chandra Bahadur", 8, true), 8);
	assert_string_equal(sb_str(&sb), "Chandra…");
	sb_release(&sb);
	assert_int_equal(render_add_fit(&sb, "Asha", 8, true), 8);
	assert_string_equal(sb_str(&sb), "Asha    ");
	sb_release(&sb);
	/* a wide character that would pass the cut is left out whole */
	assert_int_equal(render_add_fit(&sb, "王小明王", 6, false), 5);
	assert_string_equal(sb_str(&sb), "王小…");
	sb_release(&sb);
	/* control characters never reach the screen */
	render_add_fit(&sb, "a\nb\tc", 10, false);
	assert_string_equal(sb_str(&sb), "a b c");
	sb_release(&sb);
	/* a name made of combining marks cannot blow up the byte count */
	{
		char zalgo[2048];
		size_t len = 0;

		len += (size_t)snprintf(zalgo, sizeof(zalgo), "Z");
		for (int i = 0; i < 300; i++)
			len += (size_t)snprintf(zalgo + len, sizeof(zalgo) - len, "\xcc\x81");
		render_add_fit(&sb, zalgo, 10, false);
		assert_int_equal(sb.len, 1 + 2 * RENDER_MAX_MARKS);
		sb_release(&sb);
	}
	/* combining marks stay with their letter */
	render_add_fit(&sb, "सिँढी", 4, false);
	assert_string_equal(sb_str(&sb), "सिँढी");
	sb_release(&sb);
	render_add_fit(&sb, "सिँढी", 3, false);
	assert_string_equal(sb_str(&sb), "सिँ…");
	sb_release(&sb);
	/* an emoji ZWJ sequence, a flag and a conjunct are kept or left out whole */
	assert_int_equal(render_add_fit(&sb, "👨‍👩‍👧‍👦👨‍👩‍👧‍👦", 5, false), 1);
	assert_string_equal(sb_str(&sb), "…");
	sb_release(&sb);
	render_add_fit(&sb, "a🇳🇵🇳🇵", 3, false);
	assert_string_equal(sb_str(&sb), "a…");
	sb_release(&sb);
	render_add_fit(&sb, "रक्षा बन्धन", 2, false);
	assert_string_equal(sb_str(&sb), "र…");
	sb_release(&sb);
}

static void test_marks_one_column(void **state)
{
	static const int keys[] = { M_MARK_1, M_MARK_2, M_MARK_3, M_MARK_4, M_BC_TIGER_MARK, M_BC_GOAT_MARK,
				    M_CB_DEALER_MARK };

	(void)state;
	for (int lang = 0; lang < LANG_COUNT; lang++)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			assert_int_equal(render_width(tr(lang, keys[i])), 1);
}

/* ---- known states ---- */

static void roll(const struct gb_game *g, void *st, int die, struct gb_events *ev)
{
	struct gb_action a = { .kind = GB_ACT_ROLL, .die = die };

	memset(ev, 0, sizeof(*ev));
	assert_int_equal(g->apply(st, &a, ev), GB_OK);
}

/* The line of text that starts with prefix (after blanks are kept), or NULL. */
static const char *line_with(const char *text, const char *needle, char *buf, size_t n)
{
	const char *hit = strstr(text, needle), *start, *end;

	if (!hit)
		return NULL;
	for (start = hit; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(hit, '\n');
	if (!end)
		end = hit + strlen(hit);
	snprintf(buf, n, "%.*s", (int)(end - start), start);
	return buf;
}

static void test_snakes_known(void **state)
{
	struct snakes s;
	struct gb_setup su;
	struct gb_events ev;
	struct render_ctx en, ne;
	char *t, line[256];

	(void)state;
	gb_setup_init(&su, &snakes_game);
	su.players = 2;
	assert_int_equal(snakes_game.init(&s, &su), GB_OK);
	ctx_init(&en, &snakes_game, &s, LANG_EN, false, names_latin, 2);
	ctx_init(&ne, &snakes_game, &s, LANG_NE, true, names_latin, 2);

	t = status_text(&en);
	assert_string_equal(t, "Asha: needs a 6 to enter");
	free(t);
	t = status_text(&ne);
	assert_string_equal(t, "Asha: बोर्डमा आउन ६ चाहिन्छ");
	free(t);
	t = board_text(&en);
	/* SL-5: 100 top left, 1 bottom left; ladder feet and snake heads marked */
	assert_true(contains(t, "Snakes and Ladders\n100  99  98▼ 97"));
	assert_true(contains(t, "\n  1▲  2   3   4▲  5   6   7   8   9▲ 10\n"));
	assert_true(contains(t, "▲ Ladders: 1→38 4→14 9→31"));
	assert_true(contains(t, "▼ Snakes: 16→6 47→26"));
	assert_true(contains(t, "▸ A Asha"));
	assert_true(contains(t, "off the board"));
	free(t);

	roll(&snakes_game, &s, 6, &ev); /* enters on 1 (SL-9) */
	t = event_text(&en, &ev.ev[0]);
	assert_string_equal(t, "Asha rolled 6");
	free(t);
	t = event_text(&en, &ev.ev[1]);
	assert_string_equal(t, "Asha enters on square 1");
	free(t);
	t = status_text(&en);
	assert_string_equal(t, "Asha: roll again");
	free(t);
	roll(&snakes_game, &s, 3, &ev); /* 1 -> 4 -> ladder -> 14 */
	t = event_text(&en, &ev.ev[1]);
	assert_string_equal(t, "Asha: ladder 4 → 14");
	free(t);
	t = event_text(&ne, &ev.ev[1]);
	assert_string_equal(t, "Asha: सिँढी ४ → १४");
	free(t);

	t = board_text(&en);
	assert_non_null(line_with(t, " 14A", line, sizeof(line)));
	assert_string_equal(line, " 20  19  18  17  16▼ 15  14A 13  12  11");
	assert_true(contains(t, "  A Asha             square 14\n"));
	assert_true(contains(t, "▸ B Bikash           off the board\n"));
	free(t);
	t = board_text(&ne);
	assert_true(contains(t, " १४क १३"));
	assert_true(contains(t, "कोठा १४"));
	assert_true(contains(t, "बोर्ड बाहिर"));
	free(t);
	t = status_text(&en);
	assert_string_equal(t, "Bikash: needs a 6 to enter");
	free(t);

	{
		char label[64];
		struct gb_action a = { .kind = GB_ACT_ROLL };

		render_action_label(&ne, &a, label, sizeof(label));
		assert_string_equal(label, "पासा फाल्नुहोस्");
		render_action_label(&en, &a, label, sizeof(label));
		assert_string_equal(label, "Roll");
	}
}

static void test_snakes_events(void **state)
{
	struct snakes s;
	struct gb_setup su;
	struct render_ctx en;
	static const struct {
		struct gb_event ev;
		const char *want;
	} cases[] = {
		{ { SNAKES_EV_WAIT, 1, 0, 0, 0 }, "Bikash waits off the board" },
		{ { SNAKES_EV_MOVE, 0, 3, 9, 0 }, "Asha: 3 → 9" },
		{ { SNAKES_EV_SNAKE, 0, 98, 78, 97 }, "Asha: snake 98 → 78" },
		{ { SNAKES_EV_BLOCKED, 0, 97, 0, 0 }, "Asha stays on 97 (needs 3)" },
		{ { SNAKES_EV_THIRD_SIX, 0, 0, 0, 0 }, "Asha: third six — turn lost" },
		{ { SNAKES_EV_BACK, 0, 3, 0, 0 }, "Asha goes back to square 3" },
		{ { SNAKES_EV_BACK, 0, 0, 0, 0 }, "Asha goes back off the board" },
		{ { SNAKES_EV_WIN, 1, 0, 0, 0 }, "Bikash reaches 100 and wins!" },
	};

	(void)state;
	gb_setup_init(&su, &snakes_game);
	assert_int_equal(snakes_game.init(&s, &su), GB_OK);
	ctx_init(&en, &snakes_game, &s, LANG_EN, false, names_latin, 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = event_text(&en, &cases[i].ev);

		assert_string_equal(t, cases[i].want);
		free(t);
	}
}

static void test_ludo_known(void **state)
{
	struct ludo lu;
	struct gb_setup su;
	struct gb_events ev;
	struct render_ctx en, ne;
	char *t, line[256], label[64];

	(void)state;
	gb_setup_init(&su, &ludo_game);
	su.players = 4;
	assert_int_equal(ludo_game.init(&lu, &su), GB_OK);
	ctx_init(&en, &ludo_game, &lu, LANG_EN, false, names_latin, 4);
	ctx_init(&ne, &ludo_game, &lu, LANG_NE, true, names_latin, 4);

	t = status_text(&en);
	assert_string_equal(t, "Asha: roll — a 6 brings a token out");
	free(t);
	t = board_text(&en);
	/* yards: mark and name, the tokens in base (the mover's as 1-4) */
	assert_true(contains(t, "\n A Asha     · ▫ *  B Bikash\n"));
	assert_true(contains(t, "\n  1 2 3 4   · ▫ ·   B B B B\n"));
	assert_true(contains(t, "▸ A Asha           base 4 · centre 0"));
	free(t);
	t = board_text(&ne);
	assert_true(contains(t, "\n क Asha     · ▫ *  ख Bikash\n"));
	assert_true(contains(t, "\n  १ २ ३ ४   · ▫ ·   ख ख ख ख\n"));
	assert_true(contains(t, "खोर ४ · बीच ०"));
	free(t);

	roll(&ludo_game, &lu, 6, &ev); /* LU-8: one token out onto its start square, by itself */
	t = event_text(&en, &ev.ev[1]);
	assert_string_equal(t, "Asha: token 1 comes out");
	free(t);
	t = board_text(&en);
	/* corner 0's start square is the second square of row 6 */
	assert_non_null(line_with(t, "\n· 1 · · ", line, sizeof(line)));
	free(t);
	roll(&ludo_game, &lu, 4, &ev); /* only one token can move: 1 -> 5 */
	t = event_text(&en, &ev.ev[1]);
	assert_string_equal(t, "Asha: token 1 moves 4");
	free(t);
	t = event_text(&ne, &ev.ev[1]);
	assert_string_equal(t, "Asha: गोटी १ कोठा ४ अघि");
	free(t);
	t = board_text(&en);
	/* Asha's token is now Bikash's to see as "A" (Bikash moves next) */
	assert_non_null(line_with(t, "\n· * · · · A ", line, sizeof(line)));
	free(t);

	/* a real choice: a six with a token out -> labels for both moves */
	lu.seat = 0;
	lu.pos[0][0] = 10;
	lu.pos[0][1] = 0;
	lu.pos[0][2] = 55;
	lu.pos[0][3] = 57;
	lu.sixes = 0;
	lu.phase = LUDO_PHASE_MOVE;
	lu.die = 2;
	{
		struct gb_action a = { .kind = GB_ACT_MOVE, .a = 0 };

		render_action_label(&en, &a, label, sizeof(label));
		assert_string_equal(label, "Token 1 → ①");
		render_action_label(&ne, &a, label, sizeof(label));
		assert_string_equal(label, "गोटी १ → ①");
		a.a = 2;
		render_action_label(&en, &a, label, sizeof(label));
		assert_string_equal(label, "Token 3 → centre");
		render_action_label(&ne, &a, label, sizeof(label));
		assert_string_equal(label, "गोटी ३ → बीच");
	}
	t = status_text(&en);
	assert_string_equal(t, "Asha: rolled 2 — choose a token");
	free(t);
	t = board_text(&en);
	/* where each token lands is marked with its circled number; the centre shows the one home */
	assert_true(contains(t, "①"));
	assert_true(contains(t, "■¹"));
	assert_true(contains(t, "base 1 · centre 1"));
	free(t);
	lu.die = 6;
	{
		struct gb_action a = { .kind = GB_ACT_MOVE, .a = 1 };

		render_action_label(&en, &a, label, sizeof(label));
		assert_string_equal(label, "Token 2 out → ②");
	}
}

/*
 * Defect: three tokens in the yard were three buttons (two landing on squares
 * never marked), and a stack showed only how many tokens it held.
 */
static void test_ludo_equivalent_moves(void **state)
{
	struct ludo lu;
	struct gb_setup su;
	struct render_ctx en, ne;
	struct gb_action a = { .kind = GB_ACT_MOVE };
	char *t, label[128];
	int shown = 0;

	(void)state;
	gb_setup_init(&su, &ludo_game);
	su.players = 2;
	assert_int_equal(ludo_game.init(&lu, &su), GB_OK);
	ctx_init(&en, &ludo_game, &lu, LANG_EN, false, names_latin, 2);
	ctx_init(&ne, &ludo_game, &lu, LANG_NE, true, names_latin, 2);
	lu.seat = 0;
	lu.pos[0][0] = 10;
	lu.pos[0][1] = 0;
	lu.pos[0][2] = 10;
	lu.pos[0][3] = 0;
	lu.phase = LUDO_PHASE_MOVE;
	lu.die = 6;
	/* tokens 1 and 3 stacked, 2 and 4 in the yard: two buttons, not four */
	for (a.a = 0; a.a < LUDO_TOKENS; a.a++)
		shown += render_action_shown(&en, &a);
	assert_int_equal(shown, 2);
	a.a = 2;
	assert_false(render_action_shown(&en, &a));
	a.a = 3;
	assert_false(render_action_shown(&en, &a));
	a.a = 0;
	render_action_label(&en, &a, label, sizeof(label));
	assert_string_equal(label, "Token 1 (1+3) → ①");
	render_action_label(&ne, &a, label, sizeof(label));
	assert_string_equal(label, "गोटी १ (१+३) → ①");
	a.a = 1;
	render_action_label(&en, &a, label, sizeof(label));
	assert_string_equal(label, "A token out → ②");
	render_action_label(&ne, &a, label, sizeof(label));
	assert_string_equal(label, "एउटा गोटी निकाल्नुहोस् → ②");
	/* the board says which tokens the stack holds */
	t = board_text(&en);
	assert_true(contains(t, "\n1²: 1+3\n"));
	free(t);
	t = board_text(&ne);
	assert_true(contains(t, "\n१²: १+३\n"));
	free(t);
}

/*
 * Defect: a log line too long for the screen cut every name on it to
 * "Bot for…" (both players alike), while the line above showed "Bot for
 * alice": one cut for all lines, never one that makes two names read alike.
 */
static void test_log_names_cut_alike(void **state)
{
	static const char *const bots[GB_MAX_SEATS] = { "Bot for alice", "Bot for bob", "C", "D" };
	struct ludo lu;
	struct gb_setup su;
	struct render_ctx en;
	struct gb_event evs[2] = { { .type = LUDO_EV_CAPTURE, .seat = 0, .a = 1, .b = 2 },
				   { .type = LUDO_EV_ROLL, .seat = 0, .a = 3 } };
	char *t;

	(void)state;
	gb_setup_init(&su, &ludo_game);
	su.players = 2;
	assert_int_equal(ludo_game.init(&lu, &su), GB_OK);
	ctx_init(&en, &ludo_game, &lu, LANG_EN, false, bots, 2);
	en.name_cols = render_log_cols(&en, evs, 2);
	assert_int_equal(en.name_cols, 10);
	t = event_text(&en, &evs[0]);
	assert_string_equal(t, "Bot for a… captured 2 tokens of Bot for b…");
	free(t);
	t = event_text(&en, &evs[1]);
	assert_string_equal(t, "Bot for a… rolled 3");
	free(t);
}

static void test_ludo_events(void **state)
{
	struct ludo lu;
	struct gb_setup su;
	struct render_ctx en, ne;
	static const struct {
		struct gb_event ev;
		const char *en, *ne;
	} cases[] = {
		{ { LUDO_EV_CAPTURE, 1, 0, 2, 5 }, "Bikash captured 2 tokens of Asha", "Bikashले २ गोटी काट्नुभयो (Ashaका)" },
		{ { LUDO_EV_CAPTURE, 1, 0, 1, 5 }, "Bikash captured a token of Asha", "Bikashले Ashaको गोटी काट्नुभयो" },
		{ { LUDO_EV_MOVE, 0, 1, 50, 57 }, "Asha: token 2 reaches the centre", "Asha: गोटी २ बीचमा पुग्यो" },
		{ { LUDO_EV_EXTRA, 0, LUDO_EXTRA_CAPTURE, 0, 0 }, "Asha rolls again (capture)", "Asha: गोटी काटेकाले फेरि पालो" },
		{ { LUDO_EV_EXTRA, 0, LUDO_EXTRA_SIX, 0, 0 }, "Asha rolls again (six)", "Asha: छक्काले फेरि पालो" },
		{ { LUDO_EV_WASTED, 0, 5, 0, 0 }, "Asha: 5 is wasted, no token can move", "Asha: ५ खेर गयो, कुनै गोटी चल्दैन" },
		{ { LUDO_EV_THIRD_SIX, 0, 0, 0, 0 }, "Asha: third six — turn over", "Asha: तेस्रो छक्का — पालो सकियो" },
		{ { LUDO_EV_CENTRE, 0, 1, 0, 0 }, "", "" },
		{ { LUDO_EV_WIN, 2, 0, 0, 0 }, "Chandra Bahadur wins!", "Chandra Bahadurले जित्नुभयो!" },
	};

	(void)state;
	gb_setup_init(&su, &ludo_game);
	su.players = 4;
	assert_int_equal(ludo_game.init(&lu, &su), GB_OK);
	ctx_init(&en, &ludo_game, &lu, LANG_EN, false, names_latin, 4);
	ctx_init(&ne, &ludo_game, &lu, LANG_NE, true, names_latin, 4);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *t = event_text(&en, &cases[i].ev);

		assert_string_equal(t, cases[i].en);
		free(t);
		t = event_text(&ne, &cases[i].ev);
		assert_string_equal(t, cases[i].ne);
		free(t);
	}
}

static void test_baghchal_known(void **state)
{
	struct baghchal b;
	struct gb_setup su;
	struct gb_events ev = { 0 };
	struct gb_action a = { .kind = GB_ACT_PLACE, .a = 12 }; /* c3 */
	struct render_ctx en, ne;
	char *t, label[64];

	(void)state;
	gb_setup_init(&su, &baghchal_game);
	assert_int_equal(baghchal_game.init(&b, &su), GB_OK);
	ctx_init(&en, &baghchal_game, &b, LANG_EN, false, names_latin, 2);
	ctx_init(&ne, &baghchal_game, &b, LANG_NE, true, names_latin, 2);
	t = board_text(&en);
	assert_string_equal(t, "Bagh Chal\n"
			       "   a   b   c   d   e\n"
			       "5  T───·───·───·───T\n"
			       "   │ ╲ │ ╱ │ ╲ │ ╱ │\n"
			       "4  ·───·───·───·───·\n"
			       "   │ ╱ │ ╲ │ ╱ │ ╲ │\n"
			       "3  ·───·───·───·───·\n"
			       "   │ ╲ │ ╱ │ ╲ │ ╱ │\n"
			       "2  ·───·───·───·───·\n"
			       "   │ ╱ │ ╲ │ ╱ │ ╲ │\n"
			       "1  T───·───·───·───T\n"
			       "Goats in hand: 20 · captured: 0 of 5\n"
			       "T tiger  G goat\n"
			       "Goats: Asha · Tigers: Bikash\n");
	free(t);
	t = status_text(&en);
	assert_string_equal(t, "Asha (goats): place — 20 in hand");
	free(t);
	render_action_label(&en, &a, label, sizeof(label));
	assert_string_equal(label, "c3");
	/* a point keeps its ASCII digit in a Nepali chat too */
	render_action_label(&ne, &a, label, sizeof(label));
	assert_string_equal(label, "c3");

	assert_int_equal(baghchal_game.apply(&b, &a, &ev), GB_OK);
	t = event_text(&en, &ev.ev[0]);
	assert_string_equal(t, "Asha: goat on c3");
	free(t);
	t = event_text(&ne, &ev.ev[0]);
	assert_string_equal(t, "Asha: बाख्रा c3मा");
	free(t);
	t = board_text(&en);
	assert_true(contains(t, "\n3  ·───·───G───·───·\n"));
	assert_true(contains(t, "Goats in hand: 19 · captured: 0 of 5"));
	free(t);
	t = board_text(&ne);
	assert_true(contains(t, "\n३  ·───·───ख───·───·\n"));
	assert_true(contains(t, "\n५  ब───·───·───·───ब\n"));
	assert_true(contains(t, "हातमा बाख्रा: १९ · खाइएका: ०/५"));
	free(t);
	t = status_text(&en);
	assert_string_equal(t, "Bikash (tigers): move a tiger");
	free(t);
	t = status_text(&ne);
	assert_string_equal(t, "Bikash (बाघ): बाघ सार्नुहोस्");
	free(t);
	a = (struct gb_action){ .kind = GB_ACT_MOVE, .a = 0, .b = 6 };
	render_action_label(&en, &a, label, sizeof(label));
	assert_string_equal(label, "a1→b2");
	render_action_label(&ne, &a, label, sizeof(label));
	assert_string_equal(label, "a1→b2");
	{
		struct gb_event cap = { BAGHCHAL_EV_CAPTURE, 1, 6, 3, 0 };
		struct gb_event end = { BAGHCHAL_EV_END, -1, BAGHCHAL_TIGERS_WIN, BAGHCHAL_END_CAPTURES, 0 };

		t = event_text(&en, &cap);
		assert_string_equal(t, "Bikash took the goat on b2 (3 of 5)");
		free(t);
		t = event_text(&en, &end);
		assert_string_equal(t, "Tigers win: 5 goats captured");
		free(t);
		t = event_text(&ne, &end);
		assert_string_equal(t, "बाघको जित: ५ बाख्रा खाइए");
		free(t);
	}
}

/* All spades to seat 0, hearts to 1, diamonds to 2, clubs to 3. */
static const char *const suits_deal = "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S|"
				      "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H|"
				      "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D|"
				      "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C";

static void cb_do(struct callbreak *st, struct gb_action a, struct gb_events *ev)
{
	memset(ev, 0, sizeof(*ev));
	assert_int_equal(callbreak_game.apply(st, &a, ev), GB_OK);
}

static void test_callbreak_known(void **state)
{
	struct callbreak cb;
	struct gb_setup su;
	struct gb_events ev;
	struct render_ctx en, ne;
	char *t, line[256], label[64];
	static const int bids[CB_SEATS] = { 3, 4, 2, 1 };

	(void)state;
	gb_setup_init(&su, &callbreak_game);
	su.deal = suits_deal;
	su.dealer = 3; /* seat 0 bids first and leads (CB-4, CB-8) */
	assert_int_equal(callbreak_game.init(&cb, &su), GB_OK);
	ctx_init(&en, &callbreak_game, &cb, LANG_EN, false, names_latin, 4);
	ctx_init(&ne, &callbreak_game, &cb, LANG_NE, true, names_latin, 4);

	t = status_text(&en);
	assert_string_equal(t, "Asha: bid");
	free(t);
	t = board_text(&en);
	assert_true(contains(t, "Call Break · round 1 of 5\n"));
	assert_true(contains(t, "▸  Asha           –   0    0.0\n"));
	assert_true(contains(t, " D Dipa Kumari…   –   0    0.0\n"));
	free(t);
	{
		struct strbuf h = { 0 };

		render_hand(&en, 0, &h);
		assert_string_equal(sb_str(&h), "Asha, your cards (13)\n"
						"spades   A♠ K♠ Q♠ J♠ 10♠ 9♠ 8♠ 7♠ 6♠ 5♠\n"
						"         4♠ 3♠ 2♠\n"
						"Your bid: /bid 1 … /bid 8\n");
		sb_release(&h);
		render_hand(&ne, 1, &h);
		assert_true(contains(sb_str(&h), "\nपान  A♥ K♥"));
		/* a hand shows only its own cards */
		assert_null(strstr(sb_str(&h), "♠"));
		sb_release(&h);
	}
	for (int s = 0; s < CB_SEATS; s++) {
		struct gb_action a = { .kind = GB_ACT_BID, .a = bids[s] };

		if (s == 1) {
			render_action_label(&en, &a, label, sizeof(label));
			assert_string_equal(label, "Bid 4");
			render_action_label(&ne, &a, label, sizeof(label));
			assert_string_equal(label, "कल ४");
		}
		cb_do(&cb, a, &ev);
		t = event_text(&en, &ev.ev[0]);
		snprintf(line, sizeof(line), "%s bid %d", names_latin[s], bids[s]);
		assert_string_equal(t, line);
		free(t);
	}
	t = board_text(&en);
	assert_true(contains(t, "▸  Asha           3   0    0.0\n"));
	assert_true(contains(t, "   Bikash         4   0    0.0\n"));
	free(t);
	t = board_text(&ne);
	assert_true(contains(t, "▸  Asha           ३   ०    ०.०\n"));
	assert_true(contains(t, " ब Dipa Kumari…   १   ०    ०.०\n"));
	free(t);
	t = status_text(&en);
	assert_string_equal(t, "Asha: lead a card");
	free(t);
	cb_do(&cb, (struct gb_action){ .kind = GB_ACT_PLAY, .a = CB_CARD(CB_SPADES, 10) }, &ev); /* Q♠ */
	t = status_text(&en);
	assert_string_equal(t, "Bikash: play a card — spades led");
	free(t);
	t = status_text(&ne);
	assert_string_equal(t, "Bikash: पत्ती फाल्नुहोस् — हुकुमको हात");
	free(t);
	t = board_text(&en);
	assert_true(contains(t, "   Asha           3   0    0.0  Q♠\n"));
	free(t);
	{
		struct strbuf h = { 0 };

		render_hand(&en, 1, &h);
		/* void in spades: every card is legal (CB-13) */
		assert_true(contains(sb_str(&h), "You can play: A♥ K♥"));
		sb_release(&h);
	}
	/* play the round out: seat 0 takes all 13 tricks with its spades */
	while (callbreak_turn(&cb) >= 0) {
		struct gb_action acts[GB_MAX_LEGAL];
		int n = callbreak_game.legal(&cb, acts);

		assert_true(n > 0);
		cb_do(&cb, acts[0], &ev);
		for (int i = 0; i < ev.n; i++) {
			if (ev.ev[i].type == CB_EV_TRICK && ev.ev[i].a == 1) {
				t = event_text(&en, &ev.ev[i]);
				assert_string_equal(t, "Asha won the trick with Q♠");
				free(t);
				t = event_text(&ne, &ev.ev[i]);
				assert_string_equal(t, "Ashaले हात जित्नुभयो (Q♠)");
				free(t);
			}
		}
	}
	t = board_text(&en);
	assert_string_equal(t, "Score sheet · round 1 of 5\n"
			       "      Asha   Bikash Chandra… Dipa Ku…\n"
			       "1 3/13 4.0 4/0 -4.0 2/0 -2.0 1/0 -1.0\n"
			       "─ Total ─────────────────────────────\n"
			       "       4.0     -4.0     -2.0     -1.0\n"
			       "each round: bid/won points\n");
	free(t);
	t = board_text(&ne);
	assert_true(contains(t, "१ ३/१३ ४.० ४/० −४.० २/० −२.० १/० −१.०\n"));
	assert_true(contains(t, "─ जम्मा ─"));
	free(t);
	t = status_text(&en);
	assert_string_equal(t, "Round over — /next");
	free(t);
	{
		struct gb_action a = { .kind = GB_ACT_NEXT };

		render_action_label(&en, &a, label, sizeof(label));
		assert_string_equal(label, "Next round");
		render_action_label(&ne, &a, label, sizeof(label));
		assert_string_equal(label, "अर्को राउन्ड");
	}

	/* a second finished round written in: 3.2 and totals below (CB-16, CB-19) */
	cb.hist[1][0] = (struct cb_line){ 3, 5, 32 };
	cb.hist[1][1] = (struct cb_line){ 4, 2, -40 };
	cb.hist[1][2] = (struct cb_line){ 8, 13, 85 };
	cb.hist[1][3] = (struct cb_line){ 1, 0, -10 };
	cb.nhist = 2;
	cb.round = 2;
	cb.total[0] = 72;
	cb.total[1] = -80;
	cb.total[2] = 65;
	cb.total[3] = -20;
	t = board_text(&en);
	assert_true(contains(t, "\n2 3/5  3.2 4/2 -4.0 8/13 8.5 1/0 -1.0\n"));
	assert_true(contains(t, "\n       7.2     -8.0      6.5     -2.0\n"));
	free(t);
	cb.phase = CB_PHASE_GAME_OVER;
	cb.winner = 0;
	t = board_text(&en);
	assert_true(contains(t, "Final score sheet\n"));
	free(t);
	t = status_text(&en);
	assert_string_equal(t, "Game over — Asha wins");
	free(t);
	{
		struct gb_event over = { CB_EV_GAME_OVER, 0, 0, 0, 0 };
		struct gb_event tie = { CB_EV_GAME_OVER, 0, 3, 0, 0 };

		t = event_text(&en, &over);
		assert_string_equal(t, "Asha wins with 7.2");
		free(t);
		t = event_text(&en, &tie);
		assert_string_equal(t, "Tie at the top; the sheet names Asha");
		free(t);
	}
}

/* Long names are cut so every line still fits; the log keeps the point. */
/* ---- columns with Devanagari names ---- */

static const char *const names_deva[GB_MAX_SEATS] = { "अनिता", "बिष्णुप्रसाद", "कम्प्युटर ३", "क्षितिज" };

/*
 * The column (as render_width() counts it) at which needle starts on
 * every line of text that holds it; fails when two lines disagree or
 * fewer than `lines` hold it. Every line must fit RENDER_MAX_COLS.
 */
static int column_of(const char *text, const char *needle, int lines)
{
	int col = -1, seen = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *at;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (render_widthn(p, len) > RENDER_MAX_COLS)
			fail_msg("line of %d columns:\n%.*s", render_widthn(p, len), (int)len, p);
		at = strstr(p, needle);
		if (at && at < p + len) {
			int c = render_widthn(p, (size_t)(at - p));

			if (col >= 0 && c != col)
				fail_msg("\"%s\" at column %d, and %d above it:\n%s", needle, c, col, text);
			col = c;
			seen++;
		}
		p += len + (nl ? 1 : 0);
	}
	if (seen < lines)
		fail_msg("\"%s\" on %d lines, not %d:\n%s", needle, seen, lines, text);
	return col;
}

/*
 * Devanagari names of mixed length ("अनिता", "बिष्णुप्रसाद", "कम्प्युटर ३",
 * "क्षितिज") keep every column in place: the player lists of Snakes and
 * Ludo, the Call Break table and a hand's suits, counted in display
 * columns (vowel signs and viramas take none).
 */
static void test_devanagari_columns(void **state)
{
	struct gb_setup su;
	struct render_ctx rc;
	char *t;

	(void)state;
	{
		struct snakes sn;

		gb_setup_init(&su, &snakes_game);
		su.players = 4;
		assert_int_equal(snakes_game.init(&sn, &su), GB_OK);
		ctx_init(&rc, &snakes_game, &sn, LANG_NE, true, names_deva, 4);
		t = board_text(&rc);
		column_of(t, "बोर्ड बाहिर", 4);
		free(t);
	}
	{
		struct ludo lu;

		gb_setup_init(&su, &ludo_game);
		su.players = 4;
		assert_int_equal(ludo_game.init(&lu, &su), GB_OK);
		ctx_init(&rc, &ludo_game, &lu, LANG_NE, true, names_deva, 4);
		t = board_text(&rc);
		column_of(t, "खोर", 4);
		/* the yards' rows end where the track begins */
		column_of(t, "· ▫ ·", 6);
		free(t);
	}
	{
		struct callbreak cb;
		int total;

		gb_setup_init(&su, &callbreak_game);
		su.deal = suits_deal;
		su.dealer = 3;
		assert_int_equal(callbreak_game.init(&cb, &su), GB_OK);
		ctx_init(&rc, &callbreak_game, &cb, LANG_NE, true, names_deva, 4);
		t = board_text(&rc);
		total = column_of(t, "०.०", 4);
		/* the totals end under the end of their heading */
		assert_int_equal(column_of(t, "जम्मा", 1) + render_width("जम्मा"), total + render_width("०.०"));
		free(t);
	}
	{
		/* every hand holds all four suits: हुकुम, पान, इट्टा, चिडी */
		static const char *const first[CB_SEATS][4] = { { "A♠", "A♥", "A♦", "A♣" },
								 { "10♠", "J♥", "J♦", "J♣" },
								 { "7♠", "8♥", "8♦", "7♣" },
								 { "4♠", "5♥", "5♦", "3♣" } };
		struct callbreak cb;

		gb_setup_init(&su, &callbreak_game);
		su.deal = "AS KS QS JS AH KH QH AD KD QD AC KC QC|10S 9S 8S JH 10H 9H JD 10D 9D JC 10C 9C 8C|"
			  "7S 6S 5S 8H 7H 6H 8D 7D 6D 7C 6C 5C 4C|4S 3S 2S 5H 4H 3H 2H 5D 4D 3D 2D 3C 2C";
		su.dealer = 3;
		assert_int_equal(callbreak_game.init(&cb, &su), GB_OK);
		ctx_init(&rc, &callbreak_game, &cb, LANG_NE, true, names_deva, 4);
		for (int seat = 0; seat < CB_SEATS; seat++) {
			struct strbuf sb = { 0 };

			render_hand(&rc, seat, &sb);
			/* the cards of every suit start in one column */
			for (int suit = 1; suit < 4; suit++)
				if (column_of(sb_str(&sb), first[seat][suit], 1) != column_of(sb_str(&sb), first[seat][0], 1))
					fail_msg("seat %d's suits start in different columns:\n%s", seat, sb_str(&sb));
			sb_release(&sb);
		}
	}
}

static void test_long_names(void **state)
{
	static const char *const longn[GB_MAX_SEATS] = {
		"Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		"बबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबबब",
		"王王王王王王王王王王王王王王王王王王王王王王王王",
		"Dddd\nddd\tdddddddddddddddddddddddddddddddddddddddddd",
	};
	struct ludo lu;
	struct gb_setup su;
	struct render_ctx ne;
	struct gb_event cap = { LUDO_EV_CAPTURE, 1, 2, 3, 5 };
	char *t;

	(void)state;
	gb_setup_init(&su, &ludo_game);
	su.players = 4;
	assert_int_equal(ludo_game.init(&lu, &su), GB_OK);
	ctx_init(&ne, &ludo_game, &lu, LANG_NE, true, longn, 4);
	t = event_text(&ne, &cap);
	check_text(t, LANG_NE, longn);
	assert_true(contains(t, "…"));
	assert_true(contains(t, "गोटी काट्नुभयो"));
	free(t);
	for (int lang = 0; lang < LANG_COUNT; lang++) {
		struct log_ring lr = { .n = 1, .ev = { cap } };

		check_state(&ludo_game, &lu, &lr, lang, lang == LANG_NE, longn, 4);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_format_as_printf),
		cmocka_unit_test(test_fit_and_width),
		cmocka_unit_test(test_marks_one_column),
		cmocka_unit_test(test_snakes_known),
		cmocka_unit_test(test_snakes_events),
		cmocka_unit_test(test_ludo_known),
		cmocka_unit_test(test_ludo_equivalent_moves),
		cmocka_unit_test(test_log_names_cut_alike),
		cmocka_unit_test(test_ludo_events),
		cmocka_unit_test(test_baghchal_known),
		cmocka_unit_test(test_callbreak_known),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_devanagari_columns),
		cmocka_unit_test(test_no_names),
		cmocka_unit_test(test_random_snakes),
		cmocka_unit_test(test_width_matches_wcwidth),
		cmocka_unit_test(test_random_ludo),
		cmocka_unit_test(test_random_baghchal),
		cmocka_unit_test(test_random_callbreak),
	};

	if (!setlocale(LC_ALL, "C.UTF-8")) {
		fprintf(stderr, "C.UTF-8 locale missing\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
