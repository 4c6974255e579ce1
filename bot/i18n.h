/*
 * i18n.h - every word the bot says, in English and Nepali.
 *
 * Handlers never hold user-facing literals: they name a message key and the
 * chat's language picks the text from one catalogue per language
 * (bot/msg_en.c, bot/msg_ne.c). Texts are printf formats; a test checks that
 * every key exists in both catalogues with the same placeholders in the same
 * order.
 */
#ifndef GB_I18N_H
#define GB_I18N_H

#include <stddef.h>

enum lang { LANG_EN = 0, LANG_NE = 1, LANG_COUNT };

#define MSG_KEYS(X) \
	X(M_UNKNOWN_COMMAND)  /* %s: the command */ \
	X(M_ARGS)             /* %s: usage line */ \
	X(M_NO_TABLE)         \
	X(M_STALE_BUTTON)     /* a button from an earlier turn or another table */ \
	X(M_WATCH_LIMIT)      /* %s: how many computer games per hour this chat may start */ \
	X(M_WATCH_FULL)       /* every computer-only table the service runs is busy */ \
	X(M_TABLE_EXISTS)     /* %s: game */ \
	X(M_ADMINS_ONLY)      \
	X(M_PLAYERS_ONLY)     \
	X(M_NOT_YOUR_TURN)    /* %s: whose turn */ \
	X(M_UNKNOWN_GAME)     /* %s: given name */ \
	X(M_NEW_TABLE)        /* %s: creator, %s: game */ \
	X(M_JOINED)           /* %s: name, %s: seats, %s: max */ \
	X(M_ALREADY_SEATED)   \
	X(M_TABLE_FULL)       \
	X(M_LEFT)             /* %s: name */ \
	X(M_NOT_SEATED)       \
	X(M_BOT_ADDED)       /* %s: bot name */ \
	X(M_BAD_LEVEL)        /* %s: given */ \
	X(M_STARTED)          /* %s: game */ \
	X(M_NOT_ENOUGH)       /* %s: needed */ \
	X(M_ALREADY_STARTED)  \
	X(M_NOT_STARTED)      \
	X(M_STOPPED)          /* %s: who */ \
	X(M_STOP_WHO)         \
	X(M_ILLEGAL)          /* %s: what was tried, %s: legal list */ \
	X(M_UNREADABLE)       /* %s: what was typed, %s: legal list */ \
	X(M_WRONG_PHASE)      /* %s: legal list */ \
	X(M_GAME_OVER)        \
	X(M_WINNER)           /* %s: name */ \
	X(M_DRAW)             \
	X(M_TURN_OF)          /* %s: name */ \
	X(M_LOBBY)            /* %s: game, %s: seat list, %s: min, %s: max */ \
	X(M_LOBBY_HINT)       \
	X(M_SETTINGS_HEAD)    /* %s: game */ \
	X(M_SETTING_SET)      /* %s: key, %s: value */ \
	X(M_SETTING_BAD)      /* %s: key, %s: value */ \
	X(M_SETTING_GREYED)   /* %s: key, %s: condition */ \
	X(M_SPEED_SET)        /* %s: speed */ \
	X(M_LANG_SET)         \
	X(M_STATS_HEAD)       \
	X(M_STATS_EMPTY)      \
	X(M_STATS_ROW)        /* %s rank, %s name, %s games, %s wins, %s points */ \
	X(M_HELP)             \
	X(M_HAND_PRIVATE)     /* %s: name */ \
	X(M_ONLY_CALLBREAK)   \
	X(M_WATCH_STARTED)    /* %s: game */ \
	X(M_AUTOPLAYED)       /* %s: name */ \
	X(M_BUSY)             \
	X(M_INTERNAL)         \
	X(M_BTN_ROLL)         \
	X(M_BTN_HAND)         \
	X(M_BTN_NEXT)         \
	X(M_BTN_JOIN)         \
	X(M_BTN_START)        \
	X(M_BTN_ADDBOT)       \
	X(M_YOU)              \
	X(M_BOT_NAME)         /* %s: number, %s: level */ \
	X(M_LEVEL_RANDOM)     \
	X(M_LEVEL_EASY)       \
	X(M_LEVEL_MEDIUM)     \
	X(M_LEVEL_HARD)       \
	X(M_GAME_SNAKES)      \
	X(M_GAME_LUDO)        \
	X(M_GAME_BAGHCHAL)    \
	X(M_GAME_CALLBREAK)   \
	X(M_RULES_SNAKES)     \
	X(M_RULES_LUDO)       \
	X(M_RULES_BAGHCHAL)   \
	X(M_RULES_CALLBREAK)  \
	X(M_HOUSE_RULES)      \
	X(M_RULE_ENTRY)      \
	X(M_RULE_SIX_BONUS)  \
	X(M_RULE_THREE_SIXES)\
	X(M_RULE_FINISH)     \
	X(M_RULE_BOARD)      \
	X(M_RULE_ONE_RELEASES)\
	X(M_RULE_CAPTURE_BONUS)\
	X(M_RULE_ROUNDS)     \
	X(M_VAL_SIX)         \
	X(M_VAL_ANY)         \
	X(M_VAL_LOSE_TURN)   \
	X(M_VAL_RESTART)     \
	X(M_VAL_EXACT)       \
	X(M_VAL_OVERSHOOT)   \
	X(M_VAL_CLASSIC)     \
	X(M_VAL_RANDOM)      \
	X(M_SET_SPEED)       \
	X(M_SET_AUTOPLAY)    \
	X(M_SET_LANG)        \
	X(M_SET_DIGITS)      \
	X(M_VAL_SLOW)        \
	X(M_VAL_NORMAL)      \
	X(M_VAL_FAST)        \
	X(M_VAL_SECONDS)     /* %s: seconds */ \
	X(M_VAL_ENGLISH)     \
	X(M_VAL_NEPALI)      \
	X(M_VAL_DEVANAGARI)  \
	X(M_VAL_ASCII)       \
	X(M_CONSOLE_PRIVATE)  /* %s: user (console: a reply only they see) */ \
	X(M_ON)               \
	X(M_OFF)              \
	X(M_DC_CHOOSE)        /* Discord: placeholder of a menu of choices */ \
	X(M_DC_REPEATED)      /* Discord: a repeated interaction, answered already */ \
	X(M_DC_DONE)          /* Discord: a command with nothing else to say */ \
	/* ---- renderers: shared (numbers are passed as text: chat digits) ---- */ \
	X(M_MARK_1)           /* one-column seat marks on boards */ \
	X(M_MARK_2)           \
	X(M_MARK_3)           \
	X(M_MARK_4)           \
	X(M_ST_ROLL)          /* %s: name */ \
	X(M_ST_ROLL_AGAIN)    /* %s: name */ \
	X(M_ST_OVER_WINNER)   /* %s: name */ \
	X(M_ST_OVER_DRAW)     \
	X(M_EV_ROLLED)        /* %s: name, %s: die */ \
	/* ---- Snakes and Ladders ---- */ \
	X(M_SL_LADDERS)       \
	X(M_SL_SNAKES)        \
	X(M_SL_SQUARE)        /* %s: square */ \
	X(M_SL_OFF)           \
	X(M_SL_ST_NEEDS_SIX)  /* %s: name, %s: 6 */ \
	X(M_SL_EV_ENTER)      /* %s: name, %s: square */ \
	X(M_SL_EV_WAIT)       /* %s: name */ \
	X(M_SL_EV_MOVE)       /* %s: name, %s: from, %s: to */ \
	X(M_SL_EV_LADDER)     /* %s: name, %s: foot, %s: top */ \
	X(M_SL_EV_SNAKE)      /* %s: name, %s: head, %s: tail */ \
	X(M_SL_EV_BLOCKED)    /* %s: name, %s: square, %s: roll needed */ \
	X(M_SL_EV_THIRD_SIX)  /* %s: name */ \
	X(M_SL_EV_BACK)       /* %s: name, %s: square */ \
	X(M_SL_EV_BACK_OFF)   /* %s: name */ \
	X(M_SL_EV_WIN)        /* %s: name, %s: 100 */ \
	/* ---- Ludo ---- */ \
	X(M_LU_COUNTS)        /* %s: tokens in base, %s: tokens in the centre */ \
	X(M_LU_KEY)           /* the board's marks */ \
	X(M_LU_KEY_DIGITS)    /* %s: 1, %s: 4, %s: name */ \
	X(M_LU_ST_NEEDS_SIX)  /* %s: name, %s: 6 */ \
	X(M_LU_ST_NEEDS_ONE)  /* %s: name, %s: 1, %s: 6 */ \
	X(M_LU_ST_CHOOSE)     /* %s: name, %s: die */ \
	X(M_LU_EV_MOVE)       /* %s: name, %s: token, %s: to (steps from base) */ \
	X(M_LU_EV_OUT)        /* %s: name, %s: token */ \
	X(M_LU_EV_HOME)       /* %s: name, %s: token */ \
	X(M_LU_EV_CAPTURE)    /* %s: name, %s: victim */ \
	X(M_LU_EV_CAPTURE_N)  /* %s: name, %s: count, %s: victim */ \
	X(M_LU_EV_EXTRA_CAPTURE) /* %s: name */ \
	X(M_LU_EV_EXTRA_CENTRE)  /* %s: name */ \
	X(M_LU_EV_EXTRA_SIX)  /* %s: name */ \
	X(M_LU_EV_WASTED)     /* %s: name, %s: die */ \
	X(M_LU_EV_THIRD_SIX)  /* %s: name */ \
	X(M_LU_BTN_MOVE)      /* %s: token, %s: to */ \
	X(M_LU_BTN_OUT)       /* %s: token */ \
	X(M_LU_BTN_CENTRE)    /* %s: token */ \
	/* ---- Bagh Chal ---- */ \
	X(M_BC_TIGER_MARK)    /* one column */ \
	X(M_BC_GOAT_MARK)     /* one column */ \
	X(M_BC_KEY)           /* the marks explained */ \
	X(M_BC_INFO)          /* %s: goats in hand, %s: captured, %s: 5 */ \
	X(M_BC_SIDES)         /* %s: goats' name, %s: tigers' name */ \
	X(M_BC_ST_PLACE)      /* %s: name, %s: goats in hand */ \
	X(M_BC_ST_GOAT_MOVE)  /* %s: name */ \
	X(M_BC_ST_TIGER)      /* %s: name */ \
	X(M_BC_EV_PLACE)      /* %s: name, %s: point */ \
	X(M_BC_EV_GOAT_MOVE)  /* %s: name, %s: from, %s: to */ \
	X(M_BC_EV_TIGER_MOVE) /* %s: name, %s: from, %s: to */ \
	X(M_BC_EV_CAPTURE)    /* %s: name, %s: point, %s: captured, %s: 5 */ \
	X(M_BC_END_CAPTURES)  /* %s: goats captured */ \
	X(M_BC_END_TIGERS_BLOCKED) \
	X(M_BC_END_GOATS_BLOCKED) \
	X(M_BC_END_REPETITION) \
	X(M_BC_END_CLOCK)     /* %s: 100 */ \
	/* ---- Call Break ---- */ \
	X(M_CB_ROUND)         /* %s: round, %s: rounds */ \
	X(M_CB_COL_PLAYER)    \
	X(M_CB_COL_BID)       \
	X(M_CB_COL_WON)       \
	X(M_CB_COL_TOTAL)     \
	X(M_CB_COL_CARD)      \
	X(M_CB_DEALER_MARK)   /* one column */ \
	X(M_CB_KEY)           /* the marks explained */ \
	X(M_CB_LAST_TRICK)    /* %s: who took it (the cards follow) */ \
	X(M_CB_ST_BID)        /* %s: name */ \
	X(M_CB_ST_LEAD)       /* %s: name */ \
	X(M_CB_ST_PLAY)       /* %s: name, %s: suit led */ \
	X(M_CB_ST_ROUND_OVER) \
	X(M_SUIT_SPADES)      \
	X(M_SUIT_HEARTS)      \
	X(M_SUIT_DIAMONDS)    \
	X(M_SUIT_CLUBS)       \
	X(M_CB_EV_BID)        /* %s: name, %s: bid */ \
	X(M_CB_EV_PLAY)       /* %s: name, %s: card */ \
	X(M_CB_EV_TRICK)      /* %s: name, %s: card */ \
	X(M_CB_EV_ROUND_OVER) /* %s: round */ \
	X(M_CB_EV_DEAL)       /* %s: round, %s: dealer */ \
	X(M_CB_EV_GAME_OVER)  /* %s: name, %s: total */ \
	X(M_CB_EV_GAME_TIE)   /* %s: name named by the sheet */ \
	X(M_CB_SHEET)         /* %s: round, %s: rounds */ \
	X(M_CB_SHEET_FINAL)   \
	X(M_CB_SHEET_KEY)     /* what a cell holds */ \
	X(M_CB_SHEET_TOTAL)   \
	X(M_CB_HAND_HEAD)     /* %s: name, %s: cards held */ \
	X(M_CB_HAND_PLAYABLE) /* %s: cards (last in the text: the list wraps) */ \
	X(M_CB_HAND_EMPTY)    \
	X(M_CB_HAND_BID)      /* %s: 1, %s: 8 */ \
	X(M_CB_BTN_BID)       /* %s: bid */

#define MSG_ENUM(k) k,
enum msg_key { MSG_KEYS(MSG_ENUM) M_COUNT };
#undef MSG_ENUM

/* The text of key in lang (English where the catalogue lacks it). Never NULL. */
const char *tr(int lang, int key);

/* The key's name ("M_HELP"), for tests. */
const char *msg_key_name(int key);

/* The raw catalogue entry, or NULL when missing (for tests). */
const char *msg_catalogue(int lang, int key);

/*
 * A card named in Nepali ("हुकुमको एक्का", "एक्का हुकुम", "पान १०") as its
 * canonical code ("AS", "10H") in out. Returns 0, or -1 when text does not
 * name exactly one rank and one suit.
 */
int ne_card_code(const char *text, char *out, size_t n);

/* "en" / "ne" -> enum lang, or -1. */
int lang_parse(const char *code);

/* enum lang -> "en" / "ne". */
const char *lang_code(int lang);

#endif
