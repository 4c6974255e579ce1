/*
 * callbreak_cards.h - Call Break's cards: their numbers, sets of them, and
 * their text (games/callbreak_cards.c). The rules are games/callbreak.h's.
 *
 * Cards: card = suit * 13 + rank, rank 0..12 = 2 3 4 5 6 7 8 9 10 J Q K A,
 * suits in the order S H D C (spades are always trump, CB-2). A set of cards
 * is a uint64_t with bit `card` set, so the cards of suit s are the 13 bits
 * starting at bit s * 13 and "higher than rank r" is a shift and a mask.
 */
#ifndef GB_CALLBREAK_CARDS_H
#define GB_CALLBREAK_CARDS_H

#include <stddef.h>
#include <stdint.h>

#define CB_CARDS 52
#define CB_RANKS 13
#define CB_DECK ((UINT64_C(1) << CB_CARDS) - 1)

enum cb_suit { CB_SPADES = 0, CB_HEARTS, CB_DIAMONDS, CB_CLUBS };

#define CB_SUIT(card) ((card) / CB_RANKS)
#define CB_RANK(card) ((card) % CB_RANKS)
#define CB_CARD(suit, rank) ((suit) * CB_RANKS + (rank))
#define CB_BIT(card) (UINT64_C(1) << (card))
/* All 13 cards of a suit as a set. */
#define CB_SUIT_MASK(suit) (UINT64_C(0x1fff) << ((suit) * CB_RANKS))

/*
 * Read one card: rank then suit or suit then rank, any case, rank A K Q J
 * 10 (or T) 9..2, suit S H D C or a symbol ♠ ♥ ♦ ♣ ♤ ♡ ♢ ♧ (an emoji variation
 * selector after the symbol is allowed). Blanks around are ignored.
 * Returns GB_OK with *card set, or GB_EPARSE.
 */
int callbreak_card_parse(const char *text, int *card);

/* Canonical text of a card ("10H", "AS") into buf (4 bytes are enough). */
void callbreak_card_format(int card, char *buf, size_t n);

/* Canonical text of a card as a static string, "?" when out of range. */
const char *callbreak_card_name(int card);

/* The suit letter "S" "H" "D" "C" and symbol "♠" "♥" "♦" "♣" of suit 0..3. */
const char *callbreak_suit_letter(int suit);
const char *callbreak_suit_symbol(int suit);

#endif
