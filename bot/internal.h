/*
 * internal.h - the per-command context and the helpers that queue replies
 * and changes (context.c), which the command handlers work with; and what
 * the router, the commit (commit.c), the scheduler (timers.c) and the
 * computer players' thread (think.c) share. Handlers only describe what
 * should happen; commit.c writes it.
 */
#ifndef GB_BOT_INTERNAL_H
#define GB_BOT_INTERNAL_H

#include <jansson.h>

#include "bot.h"
#include "games/game.h"
#include "bot/lang/i18n.h"
#include "bot/render/render.h"
#include "games/strbuf.h"

#define LOG_LINES 6
#define LOG_KEEP 24  /* events kept for the log strip */
/* The level that plays an idle person's turn (idle autoplay). */
#define TIMER_IDLE_LEVEL GB_LEVEL_MEDIUM

struct pending_timer {
	char kind[16];
	int64_t due_ms;
};

struct ctx {
	struct bot *b;
	const struct command *cmd;
	int lang;
	struct store_chat chat;              /* the chat: language, settings, wallets, stats */
	int64_t place;                       /* store id of the place its tables live in (the
	                                        chat's own id unless cmd->chat names a topic) */
	json_t *settings;                    /* chat settings (owned) */
	char *settings_text;                 /* the changed settings, ready to save (owned) */
	struct store *ws;                    /* the handle its writes go through (group commit) */
	char lang_loaded[8];                 /* the chat's language as read, for the write's check */
	bool chat_changed;

	bool has_table;
	struct store_table table;
	struct store_seat seats[GB_MAX_SEATS];
	int nseats;
	bool seats_changed;
	bool table_changed;
	bool table_new;
	const struct gb_game *game;
	void *st;                            /* game state while playing (owned) */
	struct gb_event log[LOG_KEEP];       /* the log strip's events, oldest first */
	int nlog;
	json_t *log_saved;                   /* the strip as it was saved (owned): written back
	                                        as it was while no event is added */
	bool log_changed;
	int seq;                             /* moves logged so far */
	bool watch;                          /* all-computer table */
	char owner[STORE_ID_LEN];            /* who runs the table (/stop, seat swaps): its
	                                        creator until they leave, then the next
	                                        seated person; kept in the state wrapper */
	bool broken;                         /* the saved state could not be read */
	int my_seat;                         /* cmd->user's seat, or -1 */

	json_t *replies;                     /* queued replies (owned) */
	bool unreachable;                    /* nobody in the chat can be told (_gone): no reply is
	                                        queued for it */
	char **reply_text;                   /* the outbox rows of replies[0..nreply_text), made
	                                        before the write when the table's id is known
	                                        (owned); the rest in commit() */
	size_t nreply_text;
	bool show_table;                     /* post/edit the table message */
	bool repost_table;                   /* ... posted afresh below the chat's latest message (/board) */
	size_t lines_first;                  /* replies queued before this many stay ahead of the board
	                                        (a setting's confirmation, then the board it changes) */
	struct pending_timer timers[4];
	int ntimers;
	bool clear_timers;
	bool timers_quiet;                   /* the table had no timers at the version read */
	bool timers_none;                    /* ... and has none once this command is written */
	bool facts_known;                    /* seats, seq (and terms, if loaded) came with the
	                                        decoded state: the version read is one this
	                                        process wrote (statecache_known()) */
	bool table_saved;                    /* the row was written (its version bumped) */
	bool record_stats;                   /* a game ended: commit adds each person's result */
	struct gb_outcome final;             /* how it ended */
	int nmoves;                          /* moves[] in use */

	/* coins and the sealed seed (coins.c, fair.c); commit() writes them */
	struct store_terms terms;            /* the table's seed and stake */
	bool terms_loaded;                   /* terms read (or made) for c->table */
	bool terms_changed;                  /* write terms with the table */
	int ncoins;                          /* coins[] in use */

	/* online tables (online.c); commit() writes ow through online_commit() */
	bool online;                         /* the place is an online table's */
	int noseats;                         /* oseats[] in use */
	int viewer;                          /* the seat a table view is drawn for; -1: the chat's */

	/*
	 * From here on, arrays read only as far as their counts above (and
	 * ow.nblock) say: ctx_init() leaves them as they are, each entry
	 * written whole before it is counted (15 KB a command not cleared).
	 */
	struct {
		int move_seq;
		char actor[STORE_ID_LEN];
		char action[GB_ACTION_TEXT];
		char *events;                /* JSON text, owned */
	} moves[64];
	struct store_coin_move coins[2 * GB_MAX_SEATS + 4]; /* movements to write */
	struct store_oseat oseats[GB_MAX_SEATS]; /* its seats' private chats */
#define ONLINE_SHOWN_MAX 64                      /* queue messages one command redraws */
	struct {
		bool queue_add;              /* queue ow.queue */
		struct store_queue queue;
		bool queue_leave;            /* the caller leaves the queue */
		int64_t queue_left;          /* ... their entry, as read */
		int queue_fill;              /* the caller's answer about computers: 1 yes, 2 no, 0 none */
		bool name_set;               /* the caller plays under ow.name from now on */
		char name[STORE_NAME_LEN];
		char name_key[STORE_NAME_LEN]; /* ... folded: unique among people */
		int away[GB_MAX_SEATS];      /* seats a computer now plays for at its own pace */
		int naway;
		bool back;                   /* the caller pressed or typed something: their seats are theirs */
		int nblock;
		int64_t claim[GB_MAX_SEATS]; /* queue entries this table seats */
		int nclaim;
		bool oseats_new;             /* write c->oseats with the new table */
		struct {
			int64_t id;
			int n;
		} shown[ONLINE_SHOWN_MAX];   /* queue messages redrawn: how many wait, as each now says */
		int nshown;
		/* (last: ctx_init() clears ow up to here) */
		struct store_oseat block[GB_MAX_SEATS]; /* the caller never meets these again */
	} ow;
};

/*
 * Queue a reply {"kind", "user", "text"}; returns it (borrowed, owned by the
 * context) so the caller may add "buttons": [[{"label", "cmd"}, ...], ...].
 */
json_t *reply_push(struct ctx *c, const char *kind, const char *user, const char *text);

/* Keep event e as the newest of the log strip (the oldest goes past LOG_KEEP). */
void ctx_log_keep(struct ctx *c, const struct gb_event *e);

/*
 * Reply helpers (format from the catalogue of the chat's language). The
 * macros of the same names check the arguments against key when compiled
 * (MSG_ARGS_OK, bot/lang/i18n.h): key is an M_ name as written, or msg_any().
 */
void reply_public(struct ctx *c, int key, ...);
void reply_alert(struct ctx *c, int key, ...);
#define reply_public(c, key, ...) (MSG_ARGS_OK(key, ##__VA_ARGS__), reply_public((c), (key), ##__VA_ARGS__))
#define reply_alert(c, key, ...) (MSG_ARGS_OK(key, ##__VA_ARGS__), reply_alert((c), (key), ##__VA_ARGS__))
void reply_private(struct ctx *c, const char *user, const char *text);

/*
 * The alert queued last tells of the caller's hand (a refused card: "2♣
 * is not in your hand", "♦ was led: follow suit"): mark it "secret", never
 * shown to the whole chat (bot.h). Where the chat would otherwise read it
 * (typed in a group: no handle to answer in place), a "cover" line in the
 * chat names the caller and no card, and says the reason went to them.
 */
void reply_keep_secret(struct ctx *c);

/*
 * A line whose arguments are words of a language too (a computer's name,
 * a game's title): at an online table each seat reads it in its own
 * language, so call (one reply_public() or reply_alert()) is made once per
 * language with c->lang set to it, and reply_merge_langs() keeps one reply
 * per line with each language's text in "texts". Elsewhere call is made
 * once, in the chat's language.
 */
#define REPLY_EACH_LANG(c, call)                                                   \
	do {                                                                       \
		size_t at_ = json_array_size((c)->replies);                        \
		int lang_ = (c)->lang;                                             \
		for (int l_ = 0; l_ < ((c)->online ? LANG_COUNT : 1); l_++) {      \
			if ((c)->online)                                           \
				(c)->lang = l_;                                    \
			call;                                                      \
		}                                                                  \
		(c)->lang = lang_;                                                 \
		reply_merge_langs((c), at_);                                       \
	} while (0)
void reply_merge_langs(struct ctx *c, size_t at);

/*
 * Mark the reply queued last as a seating line (who opened, sat down,
 * moved, left, the start): the board shows the seats too, so a newer
 * seating line of the table replaces one still waiting to be sent.
 */
void reply_mark_seating(struct ctx *c);

/* Chat settings. */
const char *setting_str(struct ctx *c, const char *key, const char *def);
int setting_int(struct ctx *c, const char *key, int def);
bool chat_digits_devanagari(struct ctx *c);
/* The chat's default house rules for game g. */
void chat_rules(struct ctx *c, const struct gb_game *g, struct gb_rules *out);

/* v in the chat's digits (Devanagari in Nepali unless the chat chose ASCII); returns buf. */
const char *ctx_num(struct ctx *c, int v, char buf[24]);

/*
 * The game named at the start of text: its command name ("ludo"), a
 * short form ("snake", "bagh", "call") or its title as either language
 * shows it ("Snakes and Ladders", "साँप सिँढी", "कल ब्रेक"), case aside.
 * *rest (when not NULL) gets the text after the name. NULL when no game
 * is named; then *rest gets text.
 */
const struct gb_game *game_lookup(const char *text, const char **rest);

/* The game's name in the chat's language. */
const char *game_title(struct ctx *c, const struct gb_game *g);

/* "Usage: ..." for usage, a %s there standing for the games' names ("/rules %s"). */
void reply_usage(struct ctx *c, const char *usage);

/* "There is no game here yet", with the /new of every game. */
void reply_no_table(struct ctx *c);

/* "There is no game called NAME", with the games there are. */
void reply_unknown_game(struct ctx *c, const char *name);

/*
 * Display name of a seat: the person's name; "Bot 3" for a computer player
 * (short: boards, logs and sheets show it whole); "Bot for alice" for the
 * seat of a person who left and a computer plays on (user kept, level set).
 */
const char *seat_name(struct ctx *c, int seat, char *buf, size_t n);

/* Does seat hold a person now (not a computer, not a seat a person left, not a free seat)? */
bool seat_is_person(const struct ctx *c, int seat);

/*
 * A free seat: in the lobby, a seat before one taken that nobody has yet
 * (a person's seat without a user). /join and /addbot fill these first;
 * /start refuses while one is left.
 */
bool seat_is_free(const struct ctx *c, int seat);

/* A level's word in the chat's language ("easy", "सजिलो"). */
const char *level_word(struct ctx *c, int level);
void ctx_render_init(struct ctx *c, struct render_ctx *rc, char names[][STORE_NAME_LEN]);

/*
 * Load the chat's last finished game (kept in the chat settings as
 * "last_table") into the context, read only, for /board. GB_ENOTFOUND when
 * there is none or it cannot be read.
 */
int ctx_load_finished(struct ctx *c);

/* Timers to set when the command commits. */
void ctx_timer(struct ctx *c, const char *kind, int64_t due_ms);

/* ---- loading and releasing a context (context.c), for the router and the scheduler ---- */

/*
 * The table's saved state into c (c->table read): its game, its state,
 * log strip and owner. GB_ESTATE when the state cannot be read.
 */
int ctx_load_table(struct ctx *c);
/* The table's seats into c, and which is the caller's. */
int ctx_load_seats(struct ctx *c);
/*
 * A context for cmd on b: every field cleared but the arrays read only as
 * far as their counts say (cleared to zero entries); the caller's seat -1.
 */
void ctx_init(struct ctx *c, struct bot *b, const struct command *cmd);
/* Free everything c holds; what it held left empty (releasing again frees nothing). */
void ctx_release(struct ctx *c);
/* A JSON string of text, any invalid UTF-8 in it shown as U+FFFD (caller owns). */
json_t *json_text(const char *text);
/* Monotonic microseconds (how long the write lock is held). */
int64_t mono_us(void);

/* ---- decoded states (statecache.c) ---- */

/*
 * statecache_get(): fill c's game state, log strip, watch flag and owner
 * from the entry decoded from c->table.state's very text, as copies;
 * false when there is none (c untouched).
 * statecache_put(): remember c's decoded state as the one of text
 * (c->log_saved being its log as saved; has_owner: the text names one).
 */
bool statecache_get(struct ctx *c);
void statecache_put(const struct ctx *c, const char *text, bool has_owner);
/*
 * statecache_turn(): the seat to move (game's turn()) of table as decoded
 * from its very text, read in the entry without copying the game; false
 * when no entry holds that text or it has no game.
 */
bool statecache_turn(int64_t table, const struct gb_game *game, const char *text, int *turn);
/*
 * statecache_quiet(): table, whose row holds text at version, has no
 * timers; statecache_get() tells the next command that reads that very
 * version (c->timers_quiet), which then clears no timers it has none of.
 * Only a command writing the row sets a timer (or sets again one that
 * is there), and each bumps the version.
 */
void statecache_quiet(int64_t table, const char *text, int64_t version);
/*
 * statecache_known(): c has just written its table's row (c->table.state
 * at c->table.version) with the seats, last move number (c->seq) and, when
 * loaded, terms it holds: statecache_get() hands them to the next command
 * that reads that very version (c->facts_known), which then reads none of
 * them from the store. Seats, moves and terms are written only with the
 * row, each write bumping its version (commit()).
 */
void statecache_known(const struct ctx *c);
/*
 * Whether every command also reads what statecache_get() handed it from
 * the store and stops the process on a difference (GAMEBOT_CACHE_CHECK
 * set: the test suites run so).
 */
bool statecache_checking(void);

/* ---- where a button press acts (press.c) ---- */

enum press_verdict {
	PRESS_HERE = 0,   /* in the place it was pressed (the router checks its table and turn) */
	PRESS_TAKEN,      /* a move of the presser's own seat, taken to its table's place */
	PRESS_REFUSED,    /* names a table elsewhere: nothing changes, the presser is told */
};
/*
 * Where the press cmd acts: *v. When PRESS_TAKEN, cmd now names the
 * table's place, with where it was pressed in its from_* fields (bot.h).
 * Read only. GB_OK, or the store's error (then *v is PRESS_HERE).
 */
struct bot_command;
int press_place(struct bot *b, struct command *cmd, const struct bot_command *bc, enum press_verdict *v);

/* ---- a command's writes (commit.c) ---- */

/*
 * Make everything the writes need that takes time (the state's text, the
 * table message, the outbox rows), before the write transaction.
 */
int commit_prepare(struct ctx *c);
/* Write c's work, with whatever else is ready; *held_us gets the transaction's time. */
int commit_write(struct bot *b, struct ctx *c, int64_t *held_us);
/* A command starts (+1) or ends (-1) reading and deciding: a writer may wait to share its commit. */
void commit_deciding(int delta);

/* ---- the computer players' thread (think.c) ---- */

/*
 * gb_ai_choose() on the thread computer players think on, at a lower CPU
 * priority; waits for the choice.
 */
int think_choose(const struct gb_game *g, const void *st, int level, uint64_t seed, struct gb_action *out);

/* Handlers: lobby.c */
int cmd_new(struct ctx *c);
int cmd_join(struct ctx *c);
int cmd_seat(struct ctx *c);
int cmd_leave(struct ctx *c);
int cmd_addbot(struct ctx *c);
int cmd_start(struct ctx *c);
int cmd_stop(struct ctx *c);
int cmd_gone(struct ctx *c);
int cmd_watch(struct ctx *c);
int cmd_board(struct ctx *c);
/* play.c */
int cmd_play_action(struct ctx *c);
int cmd_hand(struct ctx *c);
int cmd_private_hands(struct ctx *c);
int table_start_game(struct ctx *c);
int play_for_seat(struct ctx *c, int seat, const struct gb_action *act, bool by_computer);
void table_schedule(struct ctx *c);
void table_message(struct ctx *c);
int cmd_timer(struct ctx *c);
/* chat.c */
int cmd_settings(struct ctx *c);
int cmd_speed(struct ctx *c);
int cmd_lang(struct ctx *c);
int cmd_rules(struct ctx *c);
int cmd_help(struct ctx *c);
int cmd_stats(struct ctx *c);

/* online.c */
int cmd_online(struct ctx *c);
int cmd_name(struct ctx *c);
int cmd_block(struct ctx *c);
int cmd_react(struct ctx *c);
int cmd_rating(struct ctx *c);
int cmd_online_open(struct ctx *c);
int cmd_online_queue(struct ctx *c);
/*
 * The queue message of entry e (kind "table", marked "queue": edited in
 * place in the person's private chat), in e's language: waiting people
 * wait for its table, you included; seated, it says the table is ready;
 * left, that they left. From an online context it names e's chat.
 */
enum queue_view_is { QUEUE_WAITING, QUEUE_SEATED, QUEUE_LEFT };
void online_queue_view(struct ctx *c, const struct store_queue *e, int waiting, enum queue_view_is is);
/*
 * The end of the group of entries from q[i] on that wait for one table
 * (game, size, stake):
 * the queue read in the matcher's order (store_queue_list()) has them together.
 */
int online_group_end(const struct store_queue *q, int n, int i);
/* /top online GAME: the best ratings of the game (online_people.c) */
int online_top(struct ctx *c, const char *args);
/*
 * The name a person plays under at online tables (PLATFORM, USER): the one
 * they chose, or "Player NNNN" made from their id (never their platform
 * name, which could be their username). online_name.c.
 */
int online_person_name(struct store *s, const char *platform, const char *user, char *out, size_t cap);
/* The refusals every online command asks first (online off, not a private chat); true when refused. */
bool online_refused(struct ctx *c);
/*
 * The person key's ("PLATFORM:USER") online wallet: *coins (the starting
 * grant when they have none yet, not written); online_wallets(): the
 * richest of them, as store_coins_top() gives them.
 */
int online_coins(struct ctx *c, const char *key, int64_t *coins);
int online_wallets(struct ctx *c, struct store_balance *out, int max, int *n);
/* "PLATFORM:USER", a person at an online table; and back (false when key is none) */
bool online_key(const char *platform, const char *user, char *out, size_t cap);
bool online_key_split(const char *key, char *platform, size_t pcap, char *user, size_t ucap);
/* Is the context's place an online table's? */
bool ctx_is_online(const struct ctx *c);
/* After the chat is read: mark an online context and give it the operator's settings. */
void online_ctx_load(struct ctx *c);
/* After the seats: the online seats of the table. */
/*
 * The online seats of the table (c->oseats); a seated person's command is
 * answered in their own language (c->lang).
 */
int online_load_seats(struct ctx *c);
/*
 * A command from a private chat that concerns the person's online table:
 * true, with out the command as the table takes it (bot.h, from_*).
 */
struct bot_command;
bool online_route(struct bot *b, const struct command *in, const struct bot_command *bc,
		  struct command *out);
/* The table message drawn for each seat in its own language (commit_prepare()). */
void online_views(struct ctx *c);
/* The row of reaction buttons under a seat's table. */
void online_reaction_buttons(struct ctx *c, json_t *rows);
/* The replies, in order[0..n), to the seats' private chats (inside the write transaction). */
int online_queue_replies(struct ctx *c, const size_t *order, size_t n, size_t turn_rows);
/* In commit(): the queue, names, blocks, claims, online seats and, at a game's end, ratings. */
int online_commit(struct ctx *c);
/*
 * /name's rules (online_name.c): given cleaned into name (single spaces,
 * none at the ends) and folded into key (case aside), both of cap bytes;
 * 0 when people may play under it, else the message key of the refusal
 * (M_NAME_BAD, M_NAME_COMPUTER).
 */
int online_name_check(const char *given, char *name, size_t cap, char *key, size_t kcap);
/* Is seat one a computer plays for at its own pace, its person away (online tables only)? */
bool online_seat_away(const struct ctx *c, int seat);
/* The person of seat is away from now on (written with the command); false when they were already. */
bool online_mark_away(struct ctx *c, int seat);
/* A finished online table moves its people's ratings (in the write transaction). */
int online_rate(struct ctx *c);
/* lobby.c: open a new table of game g in the context's place (not yet seated) */
int table_open(struct ctx *c, const struct gb_game *g);

/* coins.c */
int cmd_wallet(struct ctx *c);
int cmd_top(struct ctx *c);
int cmd_grant(struct ctx *c);
int cmd_stake(struct ctx *c);
/* The table's terms, read once (a table without any has seed "" and no stake). */
int ctx_terms(struct ctx *c);
/* A joining person who cannot cover the stake is refused (true; *rc a store error or GB_OK). */
bool coins_join_refused(struct ctx *c, int *rc);
/* Every person at the table covers the stake: it is held in the pot (false: refused, said why). */
bool coins_start_refused(struct ctx *c, int *rc);
/* In commit(): write the terms, settle a pot whose game ended, write the movements. */
int coins_commit(struct ctx *c);
/* fair.c */
int cmd_verify(struct ctx *c);
/* The new table's seed: from getrandom(2), or derived from bot_config.seed in tests. */
int fair_new_seed(struct ctx *c);
/* The lines under a table message: the stake, the seal while playing, the seed at the end. */
void fair_table_lines(struct ctx *c, struct strbuf *sb);

/* Number of blank-separated words in s. */
int count_words(const char *s);

/*
 * The next word of a command's arguments, like gb_next_word(), for
 * handlers. A word too long for buf is not dropped (a handler would take
 * that for "no argument" and use its default): buf gets its head, cut on a
 * character boundary and ended with "…", which matches no name, level or
 * value, so the handler refuses it and the refusal shows what was typed.
 * Returns a pointer past the word, or NULL when there is none.
 */
const char *arg_word(const char *s, char *buf, size_t n);

#endif
