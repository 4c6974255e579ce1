/*
 * i18n.h - every word the bot says, in English and Nepali.
 *
 * Handlers never hold user-facing literals: they name a message key and the
 * chat's language picks the text from one catalogue per language
 * (bot/lang/msg_en.c, bot/lang/msg_ne.c). Texts are printf formats; the build checks
 * every call's arguments against its key's conversions (MSG_ARGS_OK below)
 * and every translation's conversions against the English ones, and a test
 * checks that every key exists in both catalogues.
 */
#ifndef GB_I18N_H
#define GB_I18N_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum lang { LANG_EN = 0, LANG_NE = 1, LANG_COUNT };

#define MSG_KEYS(X) \
	X(M_UNKNOWN_COMMAND)  /* %s: the command */ \
	X(M_ARGS)             /* %s: usage line */ \
	X(M_NO_TABLE)         /* %s: "/new GAME" of each game, listed */ \
	X(M_STALE_BUTTON)     /* a button from an earlier turn or another table */ \
	X(M_PRESS_ELSEWHERE)  /* a button naming a table of another place, pressed where it may not act */ \
	X(M_WATCH_LIMIT)      /* %s: how many computer games per hour this chat may start */ \
	X(M_WATCH_FULL)       /* every computer-only table the service runs is busy */ \
	X(M_SLOW_DOWN)        /* over the per-user or per-chat command rate */ \
	X(M_TABLE_EXISTS)     /* %s: game */ \
	X(M_ADMINS_ONLY)      \
	X(M_PLAYERS_ONLY)     \
	X(M_NOT_YOUR_TURN)    /* %s: whose turn */ \
	X(M_UNKNOWN_GAME)     /* %s: given name, %s: the games' names, listed */ \
	X(M_NEW_TABLE)        /* %s: creator, %s: game */ \
	X(M_JOINED)           /* %s: name, %s: seat, %s: seats in all */ \
	X(M_ALREADY_SEATED)   /* %s: the caller's seat */ \
	X(M_TABLE_FULL)       \
	X(M_LEFT)             /* %s: name */ \
	X(M_NOT_SEATED)       \
	X(M_BOT_ADDED)        /* %s: computer's name, %s: level */ \
	X(M_BAD_LEVEL)        /* %s: given */ \
	X(M_STARTED)          /* %s: game */ \
	X(M_NOT_ENOUGH)       /* %s: needed */ \
	X(M_ALREADY_STARTED)  \
	X(M_NOT_STARTED)      \
	X(M_STOPPED)          /* %s: who */ \
	X(M_STOP_WHO)         /* %s: who runs the table */ \
	X(M_STOP_ADMINS) \
	X(M_OWNER_NOW) /* %s: name */ \
	X(M_EVERYONE_LEFT) /* %s: who left last */ \
	X(M_LEFT_PLAYING) /* %s: name */ \
	X(M_SEAT_BAD) /* %s: typed, %s: 1, %s: max */ \
	X(M_SEAT_BAD_SIDE) /* %s: typed, %s: the sides, listed */ \
	X(M_START_SEAT_FREE) /* %s %s: a free seat (twice) */ \
	X(M_SEAT_TAKEN) /* %s: seat, %s: who */ \
	X(M_SEAT_FROM_BOT) /* %s: name, %s: seat, %s: computer */ \
	X(M_SEAT_MOVED) /* %s: name, %s: seat */ \
	X(M_TABLE_FULL_BOTS) \
	X(M_BOT_FOR) /* %s: who left */ \
	X(M_ILLEGAL)          /* %s: what was tried, %s: legal list */ \
	X(M_UNREADABLE)       /* %s: what was typed, %s: legal list */ \
	X(M_WRONG_PHASE)      /* %s: why (what the game waits for), %s: legal list */ \
	X(M_ILLEGAL_WHY) /* %s: what was tried, %s: why, %s: legal list */ \
	X(M_BAD_ARG) /* %s: what was typed, %s: what it takes, %s: legal list */ \
	X(M_NO_SUCH_VERB) /* %s: game, %s: command, %s: legal list */ \
	X(M_GAME_OVER)        \
	X(M_WINNER)           /* %s: name */ \
	X(M_DRAW)             \
	X(M_TURN_OF)          /* %s: name */ \
	X(M_LOBBY)            /* %s: game */ \
	X(M_LOBBY_HINT)       \
	X(M_LOBBY_HINT_SIDES) /* %s %s: the sides between "|" (twice); lines of at most 40 columns */ \
	X(M_LOBBY_FREE) \
	X(M_LOBBY_PLAYERS) /* %s: min, %s: max */ \
	X(M_LOBBY_PLAYERS_FIXED) /* %s: the players a game always has */ \
	X(M_SETTINGS_HEAD)    /* %s: game */ \
	X(M_SETTING_SET)      /* %s: key, %s: value */ \
	X(M_SETTING_SET_NEXT) /* %s: key, %s: value (a game is under way) */ \
	X(M_SETTING_BAD)      /* %s: key, %s: value */ \
	X(M_SETTING_BAD_AUTOPLAY) /* %s: what was typed */ \
	X(M_SETTING_GREYED)   /* %s: rule, %s: the rule it needs, %s: that rule's value */ \
	X(M_SPEED_SET)        /* %s: speed */ \
	X(M_LANG_SET)         \
	X(M_STATS_HEAD)       \
	X(M_STATS_EMPTY)      \
	X(M_STATS_ROW)        /* %s rank, %s name (games, wins, points follow) */ \
	X(M_STATS_GAMES) /* %s: games (not 1) */ \
	X(M_STATS_GAMES_1) /* %s: 1 */ \
	X(M_STATS_WINS) /* %s: wins (not 1) */ \
	X(M_STATS_WINS_1) /* %s: 1 */ \
	X(M_STATS_POINTS) /* %s: points */ \
	X(M_HELP)             /* %s: the games' names between " | " */ \
	X(M_HAND_PRIVATE)     /* %s: name */ \
	X(M_NO_HAND)          /* %s: the games with hands (their titles) */ \
	X(M_WATCH_STARTED)    /* %s: game */ \
	X(M_AUTOPLAYED)       /* %s: name */ \
	X(M_AUTOPLAYED_NEXT) \
	X(M_ONLINE_AWAY)      /* %s: name */ \
	X(M_BUSY)             \
	X(M_INTERNAL)         \
	X(M_BTN_ROLL)         \
	X(M_BTN_HAND)         \
	X(M_BTN_MY_CARDS)     /* opens the private picker of cards (Telegram: inline mode) */ \
	X(M_BTN_NEXT)         \
	X(M_BTN_JOIN)         \
	X(M_BTN_START)        \
	X(M_BTN_ADDBOT)       \
	X(M_BTN_NEW) \
	X(M_YOU)              \
	X(M_BOT_NAME)         /* %s: seat number */ \
	X(M_LEVEL_RANDOM)     \
	X(M_LEVEL_EASY)       \
	X(M_LEVEL_MEDIUM)     \
	X(M_LEVEL_HARD)       \
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
	X(M_CONSOLE_WAIT) /* %s: what followed :wait */ \
	X(M_CONSOLE_NAME) /* %d: longest name in bytes */ \
	X(M_CONSOLE_NO_BUTTONS) \
	X(M_CONSOLE_NO_SUCH_BUTTON) /* %s: typed, %s: last button */ \
	X(M_CONSOLE_NOT_COMMAND) /* %s: the line */ \
	X(M_TG_START_PRIVATE) /* %s: name, %s: start link, %s: bot username (Telegram: a private message could not be sent) */ \
	X(M_TG_START_PRIVATE_NO_INLINE) /* %s: name, %s: start link (the same, the bot's inline mode off) */ \
	X(M_PRIVATE_HELLO)    /* %s: name (/start in a private chat: what the chat is for) */ \
	X(M_PRIVATE_NO_HANDS) /* /start or /hand in a private chat: no cards held anywhere now */ \
	X(M_POST_AS_YOURSELF) /* an anonymous admin or a channel asked for a seat */ \
	X(M_ON)               \
	X(M_OR)               /* the last link of a list of choices: "a, b or c" */ \
	X(M_AND)              /* the last link of a list of all: "a, b and c" */ \
	X(M_OFF)              \
	X(M_DC_CHOOSE)        /* Discord: placeholder of a menu of choices */ \
	X(M_DC_REPEATED)      /* Discord: a repeated interaction, answered already */ \
	X(M_DC_DONE)          /* Discord: a command with nothing else to say */ \
	X(M_DC_NOT_OURS)      /* Discord: an interaction of another application, or a modal */ \
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
	X(M_LU_KEY_LANDS) /* the circled numbers explained */ \
	X(M_LU_ST_NEEDS_SIX)  /* %s: name, %s: 6 */ \
	X(M_LU_ST_NEEDS_ONE)  /* %s: name, %s: 1, %s: 6 */ \
	X(M_LU_ST_CHOOSE)     /* %s: name, %s: die */ \
	X(M_LU_EV_MOVE)       /* %s: name, %s: token, %s: squares moved */ \
	X(M_LU_EV_OUT)        /* %s: name, %s: token */ \
	X(M_LU_EV_HOME)       /* %s: name, %s: token */ \
	X(M_LU_EV_CAPTURE)    /* %s: name, %s: victim */ \
	X(M_LU_EV_CAPTURE_N)  /* %s: name, %s: count, %s: victim */ \
	X(M_LU_EV_EXTRA_CAPTURE) /* %s: name */ \
	X(M_LU_EV_EXTRA_CENTRE)  /* %s: name */ \
	X(M_LU_EV_EXTRA_SIX)  /* %s: name */ \
	X(M_LU_EV_WASTED)     /* %s: name, %s: die */ \
	X(M_LU_EV_THIRD_SIX)  /* %s: name */ \
	X(M_LU_BTN_MOVE)      /* %s: token, %s: where it lands (circled) */ \
	X(M_LU_BTN_OUT)       /* %s: token, %s: where it lands (circled) */ \
	X(M_LU_BTN_CENTRE)    /* %s: token */ \
	X(M_LU_BTN_OUT_ANY)   /* %s: where it lands (circled); more than one token in the yard */ \
	X(M_LU_WHY_TOKEN) /* %s: 1, %s: 4 */ \
	X(M_LU_WHY_CHOOSE) /* %s: the die */ \
	X(M_LU_WHY_ROLL) \
	X(M_LU_WHY_CANT) /* %s: token, %s: die */ \
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
	X(M_BC_EV_TIGER_JUMP) /* %s: name, %s: from, %s: to (a capture) */ \
	X(M_BC_EV_CAPTURE)    /* %s: name, %s: point, %s: captured, %s: 5 */ \
	X(M_BC_END_CAPTURES)  /* %s: goats captured */ \
	X(M_BC_END_TIGERS_BLOCKED) \
	X(M_BC_END_GOATS_BLOCKED) \
	X(M_BC_END_REPETITION) \
	X(M_BC_END_CLOCK)     /* %s: 100 */ \
	X(M_BC_WHY_POINTS) \
	X(M_BC_WHY_PLACING) /* %s: 20, %s: in hand */ \
	X(M_BC_WHY_TIGERS_MOVE) \
	X(M_BC_WHY_PLACED) /* %s: 20 */ \
	X(M_BC_WHY_TAKEN) /* %s: point */ \
	X(M_BC_WHY_NO_TIGER) /* %s: point */ \
	X(M_BC_WHY_NO_GOAT) /* %s: point */ \
	X(M_BC_WHY_LINE) /* %s: from, %s: to */ \
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
	X(M_CB_FROM_HAND)     /* the cards one may play, named without showing them */ \
	X(M_CB_REFUSED_PRIVATELY) /* %s: name (in the chat: a refused card's reason went to them alone) */ \
	X(M_CB_PICKED)         /* what the chat is shown for a card picked in inline mode: no card */ \
	X(M_NOTHING_TO_PLAY)  /* title of the one choice offered when there is none */ \
	X(M_NOTHING_NO_SEAT)  \
	X(M_CB_BTN_BID)       /* %s: bid */ \
	X(M_CB_WHY_BID) /* %s: 1, %s: 8 */ \
	X(M_CB_WHY_CARD) \
	X(M_CB_WHY_BIDDING) \
	X(M_CB_WHY_PLAYING) \
	X(M_CB_WHY_ROUND) \
	X(M_CB_WHY_NEXT) \
	X(M_CB_WHY_NOT_HELD) /* %s: card */ \
	X(M_CB_WHY_FOLLOW) /* %s: suit led */ \
	X(M_CB_WHY_BEAT) /* %s: suit led */ \
	X(M_CB_WHY_TRUMP) /* %s: suit led, %s: ♠ */ \
	X(M_WALLET) /* %s: name, %s: coins */ \
	X(M_TOP_HEAD) \
	X(M_TOP_ROW) /* %s: rank, %s: name, %s: coins */ \
	X(M_TOP_EMPTY) \
	X(M_WALLET_ONLINE) /* %s: coins */ \
	X(M_TOP_COINS_ONLINE_HEAD) \
	X(M_TOP_COINS_ONLINE_EMPTY) \
	X(M_GRANT_BAD) /* %s: given */ \
	X(M_GRANT_WHO) /* %s: given */ \
	X(M_GRANTED) /* %s: admin, %s: coins, %s: name, %s: their coins now */ \
	X(M_STAKE_LOBBY) \
	X(M_STAKE_WHO) \
	X(M_STAKE_BAD) /* %s: given */ \
	X(M_STAKE_SET) /* %s: who, %s: coins */ \
	X(M_STAKE_NONE) /* %s: who */ \
	X(M_STAKE_SHORT) /* %s: name, %s: stake, %s: their coins */ \
	X(M_STAKES_HELD) /* %s: coins in the pot */ \
	X(M_POT_WON) /* %s: name, %s: coins */ \
	X(M_POT_TIE) \
	X(M_POT_DRAW) \
	X(M_POT_COMPUTER) /* %s: the computer's name */ \
	X(M_POT_STOPPED) \
	X(M_LINE_STAKE) /* %s: coins (a table line: fits 40 columns) */ \
	X(M_LINE_POT) /* %s: coins */ \
	X(M_LINE_SEAL) /* label before the seal's hex digits, at most 6 columns */ \
	X(M_LINE_SEED) /* label before the seed's hex digits, at most 6 columns */ \
	X(M_VERIFY_NONE) \
	X(M_VERIFY_PLAYING) \
	X(M_VERIFY_NOT_HERE) /* %s: table */ \
	X(M_VERIFY_UNSEALED) /* %s: table */ \
	X(M_VERIFY_OK) /* %s: table, %s: moves, %s: seed, %s: seal, %s: the offline command */ \
	X(M_VERIFY_FAIL) /* %s: table, %s: why */ \
	X(M_VERIFY_WHY_SEAL) /* %s: the seed's SHA-256, %s: the seal */ \
	X(M_VERIFY_WHY_MOVE) /* %s: move number, %s: action, %s: logged, %s: replayed */ \
	X(M_VERIFY_WHY_REFUSED) /* %s: move number, %s: action */ \
	X(M_VERIFY_WHY_LOG) /* %s: line */ \
	X(M_VERIFY_LOG_PART) /* %s: table, %s: part, %s: parts */ \
	X(M_SET_COINS)        /* /settings: what a new wallet gets */ \
	X(M_NO_HOUSE_RULES)   /* %s: game title; /rules and /settings for a game without house rules */ \
	X(M_ONLINE_PRIVATE) /* %s: /online GAME choices */ \
	X(M_ONLINE_OFF) \
	X(M_ONLINE_QUEUED) /* %s: game, %s: seats, %s: stake part, %s: name */ \
	X(M_ONLINE_STAKE_PART) /* %s: coins */ \
	X(M_ONLINE_FILL_HINT) /* %s: seconds */ \
	X(M_ONLINE_WAITING) /* %s: people */ \
	X(M_ONLINE_QUEUE_SEATED) /* %s: game */ \
	X(M_ONLINE_QUEUE_TAKEN) /* %s: game */ \
	X(M_ONLINE_STATUS_HEAD) \
	X(M_ONLINE_STATUS_ROW) /* %s: game, %s: people */ \
	X(M_ONLINE_STATUS_NONE) /* %s: games */ \
	X(M_ONLINE_YOUR_PLACE) /* %s: game, %s: place, %s: people, %s: seconds */ \
	X(M_ONLINE_YOUR_COINS) /* %s: coins, %s: name */ \
	X(M_ONLINE_LEFT) /* %s: game */ \
	X(M_ONLINE_NOT_QUEUED) \
	X(M_ONLINE_ALREADY) /* %s: game */ \
	X(M_ONLINE_SEATED) /* %s: game */ \
	X(M_ONLINE_SHORT) /* %s: coins, %s: stake */ \
	X(M_ONLINE_SHORT_DROPPED) /* %s: stake */ \
	X(M_ONLINE_BAD_SEATS) /* %s: game, %s: seat counts */ \
	X(M_ONLINE_FILL_ON) \
	X(M_ONLINE_FILL_OFF) \
	X(M_ONLINE_OPENED) /* %s: game, %s: names */ \
	X(M_ONLINE_BTN_FILL) \
	X(M_ONLINE_BTN_LEAVE) \
	X(M_ONLINE_BTN_AGAIN) \
	X(M_NAME_SET) /* %s: name */ \
	X(M_NAME_BAD) /* %s: given */ \
	X(M_NAME_COMPUTER) /* %s: given */ \
	X(M_NAME_TAKEN) /* %s: given */ \
	X(M_BLOCK_NONE) \
	X(M_BLOCK_DONE) /* %s: names */ \
	X(M_BLOCK_NOBODY) \
	X(M_BLOCK_GONE) \
	X(M_REACT_NONE) \
	X(M_REACT_BAD) /* %s: what can be sent */ \
	X(M_REACT_GG) \
	X(M_REACT_WP) \
	X(M_REACT_HURRY) \
	X(M_REACT_LINE) /* %s: name, %s: reaction */ \
	X(M_RATING_HEAD) /* %s: name */ \
	X(M_RATING_ROW) /* %s: game, %s: rating, %s: games, %s: provisional mark */ \
	X(M_RATING_NONE) \
	X(M_RATING_PROV) \
	X(M_TOP_ONLINE_HEAD) /* %s: game */ \
	X(M_TOP_ONLINE_ROW) /* %s: rank, %s: name, %s: rating, %s: mark */ \
	X(M_TOP_ONLINE_EMPTY) /* %s: game */ \
	X(M_ONLINE_NO_STOP)

#define MSG_ENUM(k) k,
enum msg_key { MSG_KEYS(MSG_ENUM) M_COUNT };
#undef MSG_ENUM

/*
 * Checking a message's arguments when the tree is compiled. The text is a
 * format picked at run time, out of the compiler's sight; msg_fmt.h,
 * written by the build (bot/gen/msgfmt.c, which also refuses a translation
 * whose conversions differ from the English ones), gives each key its
 * English conversions as a literal: MSG_FMT_M_JOINED is
 * "M_JOINED %s %s %s". MSG_ARGS_OK(key, args...) passes that literal and
 * the arguments to a format-checked function inside sizeof - nothing is
 * evaluated or called - so -Wformat (an error under -Werror) refuses a
 * wrong count or type. The checked forms (sb_addmsg() below,
 * reply_public(), reply_alert(), render_tr()) take key as an M_ name as
 * written, or as msg_any(); anything else (a variable, a ?: of two keys)
 * does not compile.
 */
#ifndef GB_MSG_GEN
#include "msg_fmt.h"
#endif
static inline __attribute__((format(printf, 1, 2))) int msg_args_check(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}
#define MSG_ARGS_OK(key, ...) ((void)sizeof(msg_args_check(MSG_FMT_##key, ##__VA_ARGS__)))

/*
 * A key chosen at run time, in the checked forms: reply_alert(c,
 * msg_any(bad, "%s"), name). The compiler checks the arguments against
 * fmt, a literal ("" for none); msg_any() checks the key against fmt when
 * it runs. Returns key when its conversions are those of fmt (the same %s
 * and %d in the same order; other text ignored), else M_INTERNAL, which
 * takes none, with the fault logged: a wrong key costs a vague answer,
 * never a wrong read of the arguments.
 */
int msg_any(int key, const char *fmt);
#define MSG_FMT_msg_any(key, fmt) "msg_any " fmt

/* Append to sb the text of key in lang formatted with the arguments (checked). */
#define sb_addmsg(sb, lang, key, ...) \
	(MSG_ARGS_OK(key, ##__VA_ARGS__), sb_addtr((sb), tr((lang), (key)), ##__VA_ARGS__))
/* snprintf() and fprintf() of the text of key in lang (checked). */
#define msg_snprintf(buf, n, lang, key, ...) \
	(MSG_ARGS_OK(key, ##__VA_ARGS__), snprintf((buf), (n), tr((lang), (key)), ##__VA_ARGS__))
#define msg_fprintf(f, lang, key, ...) \
	(MSG_ARGS_OK(key, ##__VA_ARGS__), fprintf((f), tr((lang), (key)), ##__VA_ARGS__))

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

/*
 * Format a catalogue text with every number in one style (Devanagari
 * digits when devanagari, else ASCII): the numbers written in the text
 * itself, those given as %d, and a %s argument that is a number and
 * nothing else - the echo of what someone typed ("9" in "no button 9")
 * included. Digits that belong to a word with Latin letters (the board
 * point c3, the card 10H, a hex seal) and other arguments (names) are kept
 * as they are. Knows %s, %d and %%.
 */
struct strbuf;
void i18n_vformat(struct strbuf *sb, bool devanagari, const char *fmt, va_list ap);
void i18n_format(struct strbuf *sb, bool devanagari, const char *fmt, ...);

/* "en" / "ne" -> enum lang, or -1. */
int lang_parse(const char *code);

/* enum lang -> "en" / "ne". */
const char *lang_code(int lang);

#endif
