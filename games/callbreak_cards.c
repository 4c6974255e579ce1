/*
 * callbreak_cards.c - Call Break's cards as text (games/callbreak_cards.h):
 * the names of cards ("AS", "10H") and suits, and a card read as
 * people type it: rank and suit in either order, any case, Devanagari
 * digits as a Nepali keyboard types them, suit letters or symbols (the
 * emoji form too).
 */
#include "callbreak_cards.h"

#include "error.h"

#include <stdio.h>
#include <string.h>

#define ROW(s)                                                                                  \
	"2" s, "3" s, "4" s, "5" s, "6" s, "7" s, "8" s, "9" s, "10" s, "J" s, "Q" s, "K" s, "A" s
static const char *const card_names[CB_CARDS] = { ROW("S"), ROW("H"), ROW("D"), ROW("C") };
#undef ROW

static const char *const suit_letters[4] = { "S", "H", "D", "C" };
static const char *const suit_symbols[4] = { "\xe2\x99\xa0", "\xe2\x99\xa5", "\xe2\x99\xa6",
					     "\xe2\x99\xa3" };

const char *callbreak_card_name(int card)
{
	return card >= 0 && card < CB_CARDS ? card_names[card] : "?";
}

void callbreak_card_format(int card, char *buf, size_t n)
{
	if (n)
		snprintf(buf, n, "%s", callbreak_card_name(card));
}

const char *callbreak_suit_letter(int suit)
{
	return suit >= 0 && suit < 4 ? suit_letters[suit] : "?";
}

const char *callbreak_suit_symbol(int suit)
{
	return suit >= 0 && suit < 4 ? suit_symbols[suit] : "?";
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* A Devanagari digit (U+0966..U+096F) at p: its value, or -1. */
static int deva_digit(const unsigned char *p)
{
	return p[0] == 0xe0 && p[1] == 0xa5 && p[2] >= 0xa6 && p[2] <= 0xaf ? p[2] - 0xa6 : -1;
}

/* Read a rank at *pp and advance past it; -1 (and no advance) when none. */
static int read_rank(const unsigned char **pp)
{
	const unsigned char *p = *pp;
	int c = lower(p[0]), d;

	switch (c) {
	case 'a': *pp = p + 1; return 12;
	case 'k': *pp = p + 1; return 11;
	case 'q': *pp = p + 1; return 10;
	case 'j': *pp = p + 1; return 9;
	case 't': *pp = p + 1; return 8;
	default: break;
	}
	if (c == '1' && p[1] == '0') {
		*pp = p + 2;
		return 8;
	}
	if (c >= '2' && c <= '9') {
		*pp = p + 1;
		return c - '2';
	}
	/* Devanagari numerals, as a Nepali keyboard types them: १० and २..९ */
	d = deva_digit(p);
	if (d == 1 && deva_digit(p + 3) == 0) {
		*pp = p + 6;
		return 8;
	}
	if (d >= 2) {
		*pp = p + 3;
		return d - 2;
	}
	return -1;
}

/* Read a suit at *pp and advance past it; -1 (and no advance) when none. */
static int read_suit(const unsigned char **pp)
{
	/* U+2660..U+2667 = E2 99 A0..A7: ♠ ♡ ♢ ♣ ♤ ♥ ♦ ♧ */
	static const int sym[8] = { CB_SPADES, CB_HEARTS, CB_DIAMONDS, CB_CLUBS,
				    CB_SPADES, CB_HEARTS, CB_DIAMONDS, CB_CLUBS };
	const unsigned char *p = *pp;
	int s = -1;

	switch (lower(p[0])) {
	case 's': s = CB_SPADES; p += 1; break;
	case 'h': s = CB_HEARTS; p += 1; break;
	case 'd': s = CB_DIAMONDS; p += 1; break;
	case 'c': s = CB_CLUBS; p += 1; break;
	default:
		if (p[0] == 0xe2 && p[1] == 0x99 && p[2] >= 0xa0 && p[2] <= 0xa7) {
			s = sym[p[2] - 0xa0];
			p += 3;
		}
		break;
	}
	if (s < 0)
		return -1;
	/* chat apps often send the emoji form: symbol + U+FE0F (EF B8 8F) */
	if (p[0] == 0xef && p[1] == 0xb8 && (p[2] == 0x8f || p[2] == 0x8e))
		p += 3;
	*pp = p;
	return s;
}

static const unsigned char *skip_blanks(const unsigned char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

int callbreak_card_parse(const char *text, int *card)
{
	const unsigned char *start, *p;
	int rank, suit;

	if (!text)
		return GB_EPARSE;
	start = skip_blanks((const unsigned char *)text);
	p = start;
	rank = read_rank(&p);
	suit = rank >= 0 ? read_suit(&p) : -1;
	if (rank < 0 || suit < 0) {
		/* the other order: suit first ("♠Q", "S10") */
		p = start;
		suit = read_suit(&p);
		rank = suit >= 0 ? read_rank(&p) : -1;
	}
	if (rank < 0 || suit < 0 || *skip_blanks(p))
		return GB_EPARSE;
	*card = CB_CARD(suit, rank);
	return GB_OK;
}
