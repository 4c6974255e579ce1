/*
 * matcher.c - the matcher of online tables, on the scheduler's path
 * (bot_online_match(), bot.h): it reads the queues and hands the router,
 * for the people it seats together, an internal command that opens their
 * table (cmd_online_open()); and the /metrics of the queues
 * (bot_online_publish()).
 */
#include <stdlib.h>
#include <string.h>

#include "bot/base/log.h"
#include "bot/base/metrics.h"
#include "bot/commands/rating.h"
#include "bot/internal.h"
#include "games/game.h"

#define QUEUE_MAX 512            /* queue entries the matcher reads at once */
#define MATCH_EVERY_MS 200       /* how often an instance looks at the queues */

struct group {
	struct bot *b;
	struct store_queue *e;         /* the group's entries, longest waiting first */
	int n;
	const int *map;                /* a pick's entries: their index in e */
};

static bool blocked(void *arg, int a, int b)
{
	struct group *g = arg;
	int yes = 0;

	a = g->map[a];
	b = g->map[b];
	if (store_blocked(g->b->store, g->e[a].platform, g->e[a].user, g->e[b].platform, g->e[b].user, &yes))
		return true; /* unknown: not seated together this time */
	return yes != 0;
}

/* Open a table for the entries at idx[0..n) and computers in the other seats; true when it opened. */
static bool open_for(struct bot *b, struct group *g, const int *idx, int n, int computers, int64_t now_ms)
{
	struct store_queue picked[GB_MAX_SEATS];
	struct store_table t = { 0 };
	struct store_chat place = { 0 };
	struct command cmd;
	char labels[64];
	bool opened = false;
	int rc;

	for (int i = 0; i < n; i++)
		picked[i] = g->e[idx[i]];
	memset(&cmd, 0, sizeof(cmd));
	snprintf(cmd.platform, sizeof(cmd.platform), "online");
	/* the place is named after an entry: claimed once, so no other table takes the name */
	snprintf(cmd.chat, sizeof(cmd.chat), "world#q%lld", (long long)picked[0].id);
	snprintf(cmd.verb, sizeof(cmd.verb), "_online");
	snprintf(cmd.args, sizeof(cmd.args), "%d", n);
	cmd.internal = true;
	cmd.now_ms = now_ms;
	cmd.match = picked;
	cmd.nmatch = n;
	cmd.match_computers = computers;
	rc = bot_handle(b, &cmd);
	if (!rc && !store_chat_get(b->store, "online", cmd.chat, b->cfg.default_lang, &place) &&
	    !store_table_open_get(b->store, place.id, &t))
		opened = true;
	store_table_release(&t);
	store_chat_release(&place);
	if (!opened)
		return false;
	snprintf(labels, sizeof(labels), "game=\"%s\"", picked[0].game);
	metrics_inc("gamebot_online_tables_opened_total", labels, 1);
	if (computers)
		metrics_inc("gamebot_online_computer_seats_total", labels, computers);
	for (int i = 0; i < n; i++)
		metrics_observe("gamebot_online_wait_ms", labels, (double)(now_ms - picked[i].since_ms));
	return true;
}

/*
 * Of the group's entries not yet used (only those who accept computers
 * when fill), up to want of them for one table (rating.h's match_pick():
 * the longest waiting one and the closest ratings to theirs, none blocked
 * by another). Returns how many were picked into idx (0: none).
 */
static int pick(struct group *g, const bool *used, int want, bool fill, int64_t now_ms, int *idx)
{
	struct match_entry *m = calloc((size_t)g->n, sizeof(*m));
	int *map = calloc((size_t)g->n, sizeof(int)), n = 0, got = 0, out[MATCH_SEATS_MAX];
	struct group sub = *g;

	if (!m || !map)
		goto out;
	for (int i = 0; i < g->n; i++) {
		if (used[i] || (fill && !g->e[i].fill))
			continue;
		m[n] = (struct match_entry){ g->e[i].id, (double)g->e[i].rating / 1000.0,
					     now_ms - g->e[i].since_ms };
		map[n++] = i;
	}
	sub.map = map;
	if (n >= want)
		got = match_pick(m, n, want, blocked, &sub, out);
	for (int k = 0; k < got; k++)
		idx[k] = map[out[k]];
out:
	free(m);
	free(map);
	return got;
}

/* Open the tables one group (a game, a table size and a stake) allows. */
static int match_group(struct bot *b, struct group *g, int64_t now_ms)
{
	bool *used = calloc((size_t)g->n, sizeof(bool));
	int seats = g->e[0].seats, opened = 0, idx[GB_MAX_SEATS], n;

	if (!used)
		return 0;
	/* full tables of people, the longest waiter's first */
	while ((n = pick(g, used, seats, false, now_ms, idx)) == seats) {
		for (int i = 0; i < n; i++)
			used[idx[i]] = true;
		opened += open_for(b, g, idx, n, 0, now_ms);
	}
	/* past the wait, the longest waiter's table with computers, when they all accept them */
	for (int i = 0; i < g->n; i++) {
		int want = 0;

		if (used[i])
			continue;
		if (now_ms - g->e[i].since_ms < b->cfg.online_fill_ms || !g->e[i].fill)
			break;
		for (int k = i; k < g->n; k++)
			want += !used[k] && g->e[k].fill;
		want = want < seats - 1 ? want : seats - 1;
		n = 0;
		while (want > 0 && !(n = pick(g, used, want, true, now_ms, idx)))
			want--;
		if (n <= 0)
			break;
		for (int k = 0; k < n; k++)
			used[idx[k]] = true;
		opened += open_for(b, g, idx, n, seats - n, now_ms);
	}
	free(used);
	return opened;
}

/*
 * Does a queue message no longer say how many wait for its table (someone
 * joined, left or was seated)? Then they are drawn again, in a command of
 * their own: at most once a round for each, so a burst of changes is one edit.
 */
static void queue_views(struct bot *b, const struct store_queue *q, int n, int64_t now_ms)
{
	struct command cmd;

	for (int i = 0, start = 0, end = 0; i < n; i++) {
		if (i == end) {
			start = i;
			end = online_group_end(q, n, i);
		}
		if (q[i].shown == end - start)
			continue;
		memset(&cmd, 0, sizeof(cmd));
		snprintf(cmd.platform, sizeof(cmd.platform), "online");
		snprintf(cmd.chat, sizeof(cmd.chat), "world");
		snprintf(cmd.verb, sizeof(cmd.verb), "_online_queue");
		cmd.internal = true;
		cmd.now_ms = now_ms;
		if (bot_handle(b, &cmd))
			gb_log("online: the queue messages were not drawn again this round");
		return;
	}
}

int bot_online_match(struct bot *b, int64_t now_ms)
{
	struct store_queue *q;
	int n = 0, opened = 0, rc;

	if (!b->cfg.online || (b->online_matched_ms && now_ms - b->online_matched_ms < MATCH_EVERY_MS &&
			       now_ms >= b->online_matched_ms))
		return 0;
	b->online_matched_ms = now_ms;
	q = calloc(QUEUE_MAX, sizeof(*q));
	if (!q)
		return -GB_ENOMEM;
	rc = store_queue_list(b->store, q, QUEUE_MAX, &n);
	for (int i = 0; !rc && i < n;) {
		struct group g = { b, &q[i], 0, NULL };

		while (i + g.n < n && !strcmp(q[i + g.n].game, q[i].game) && q[i + g.n].seats == q[i].seats &&
		       q[i + g.n].stake == q[i].stake)
			g.n++;
		opened += match_group(b, &g, now_ms);
		i += g.n;
	}
	/* the queue as it is now: who was seated is out of it */
	if (!rc && opened > 0)
		rc = store_queue_list(b->store, q, QUEUE_MAX, &n);
	if (!rc)
		queue_views(b, q, n, now_ms);
	free(q);
	return rc ? -rc : opened;
}

void bot_online_publish(struct store *s, int64_t now_ms)
{
	struct store_queue_count counts[GB_MAX_GAMES];
	int n = 0;

	if (store_queue_by_game(s, counts, GB_MAX_GAMES, &n))
		return;
	for (int i = 0; gb_games[i]; i++) {
		char labels[48];
		double waiting = 0, oldest = 0;

		for (int k = 0; k < n; k++) {
			if (strcmp(counts[k].game, gb_games[i]->name))
				continue;
			waiting = counts[k].waiting;
			oldest = (double)(now_ms - counts[k].oldest_ms) / 1000.0;
		}
		snprintf(labels, sizeof(labels), "game=\"%s\"", gb_games[i]->name);
		metrics_set("gamebot_online_waiting", labels, waiting);
		metrics_set("gamebot_online_oldest_wait_seconds", labels, oldest < 0 ? 0 : oldest);
	}
}
