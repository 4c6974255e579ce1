/*
 * people.h - people playing at Telegram tables as people do, against the
 * real service and the fake Bot API in strict mode, for a suite and for
 * the benchmark rows of tests/bench/pace.c.
 *
 * `gamebot serve` is started in webhook mode on a database of its own,
 * pointed at a fake Bot API (tests/fake_telegram.c) that enforces
 * Telegram's limits. Each table is its own group; its people open it,
 * seat the computers and start it with typed commands (with one_group,
 * the tables are the topics of one forum group), then press the
 * first button of the newest board they have been shown: press_ms after
 * a board that says it is their turn (people who watch the table), or
 * every every_ms whatever they were last shown (a busy table). What the
 * fake saw is measured: the longest time a table in play went without a
 * board, each press's answer and the first board that shows it, 429s,
 * answers refused as too old, the outbox's size and the service's memory.
 *
 *     struct people_opts o;
 *     struct people_result r;
 *     people_opts_init(&o);
 *     o.game = "snakes"; o.seconds = 20;
 *     if (people_play(&o, &r) == 0) ... r.max_gap_ms ...
 */
#ifndef GB_PEOPLE_H
#define GB_PEOPLE_H

#include <stdbool.h>

struct people_opts {
	const char *bin;        /* the service (default $GAMEBOT_BIN, else bin/gamebot) */
	const char *game;       /* "snakes" (default), "ludo", ... */
	int tables;             /* groups, one table each (default 1) */
	int persons;            /* people at each table (default 2) */
	int computers;          /* computer seats at each table (default 2) */
	int press_ms;           /* a person presses this long after a board of their turn (default 800) */
	int every_ms;           /* > 0: instead, a press per table this often on its newest board */
	int seconds;            /* play at most this long (default 20; 0: until every game ends) */
	bool pacing;            /* the service's telegram_pacing (default on) */
	int leave_at_s;         /* > 0: this long into play, each table's second person types /leave */
	bool verbose;           /* a line per second on stderr */
	bool one_group;         /* every table in one forum group, each in a topic of its own */
};

struct people_result {
	int boards;             /* boards delivered (posted or edited) */
	long long max_gap_ms;   /* longest time a table in play went without a new board */
	long long gap_p99_ms;   /* of the gaps between boards of tables in play */
	long long steady_gap_p99_ms, steady_max_gap_ms; /* of those ending after the first minute */
	int presses, answered, too_old, refused_429;
	long long answer_p50_ms, answer_p99_ms, answer_max_ms;  /* press to its answer, at the fake */
	long long shown_p99_ms, shown_max_ms;   /* press to the first board that shows its move */
	int over;               /* tables whose game ended */
	int left;               /* tables where a person typed /leave (leave_at_s: still in play then) */
	int left_shown;         /* tables whose group was told a person left (leave_at_s) */
	int max_pending;        /* outbox rows at most (sampled twice a second) */
	long rss_first_kb, rss_last_kb; /* the service's memory a minute in (or at start), and at the end */
	double seconds;         /* how long it played */
	char last_board[4096];  /* the text of the last board delivered (cut to fit) */
	/*
	 * While every table played: the most boards one table had in a row
	 * (the others waiting), in the order the fake received them.
	 */
	int max_run;
};

void people_opts_init(struct people_opts *o);

/* Play; fills *r. 0, or -1 when the service or the fake could not be started (said on stderr). */
int people_play(const struct people_opts *o, struct people_result *r);

/*
 * The same at Discord tables (tests/people_discord.c): the service serves
 * interactions signed with a key of the run's own, against the fake
 * Discord API in strict mode; each table is a channel, opened with slash
 * commands, and a press is a button interaction on the newest board its
 * people were shown (a press's answer, the table updated in place, is a
 * board too). An answer is too old when it took more than Discord's 3 s;
 * refused_429 counts strict mode's 429s. o->pacing is not used (Discord's
 * pacing is always on).
 */
int people_discord_play(const struct people_opts *o, struct people_result *r);

#endif
