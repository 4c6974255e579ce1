/*
 * commit.c - a command's writes: everything that takes time made before
 * the write transaction (the state's text, the table message, the outbox
 * rows), then the writes themselves in one unit of a transaction that
 * commands ready at the same moment share (group commit).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/base/jsontext.h"
#include "bot/base/log.h"
#include "bot/internal.h"
#include "games/game.h"

/*
 * The log strip as saved: "type seat a b c" per event, oldest first, comma
 * between ("1 0 6 0 0,3 0 0 0 6"): one string to read and write, where an
 * array of arrays costs a value per number. A null when it cannot be made.
 */
static json_t *log_text(const struct ctx *c)
{
	/* at most 12 characters a number (sign, ten digits, separator): no printf per number */
	char buf[LOG_KEEP * 5 * 12 + 1], *p = buf;
	json_t *text;

	for (int i = 0; i < c->nlog; i++) {
		const struct gb_event *e = &c->log[i];
		const int v[5] = { e->type, e->seat, e->a, e->b, e->c };

		for (int k = 0; k < 5; k++) {
			char digits[11];
			long long x = v[k];
			int n = 0;

			if (i || k)
				*p++ = k ? ' ' : ',';
			if (x < 0) {
				*p++ = '-';
				x = -x;
			}
			do {
				digits[n++] = (char)('0' + x % 10);
				x /= 10;
			} while (x);
			while (n)
				*p++ = digits[--n];
		}
	}
	text = json_stringn(buf, (size_t)(p - buf));
	return text ? text : json_null();
}

/*
 * The wrapper's text as json_compact() writes it, without building it as
 * JSON values, for a game that writes its state as text
 * (gb_state_text()): NULL when it cannot (the game, a log strip that is
 * not a string, an owner whose name needs an escape).
 */
static char *wrapper_text(const struct ctx *c)
{
	struct strbuf sb = { 0 };

	if (!c->st || !json_is_string(c->log_saved))
		return NULL;
	sb_add(&sb, "{\"game\":");
	if (!gb_state_text(c->game, c->st, &sb))
		goto fail;
	sb_add(&sb, ",\"log\":");
	if (!gb_text_str(&sb, json_string_value(c->log_saved)))
		goto fail;
	sb_add(&sb, ",\"seq\":");
	gb_text_int(&sb, c->seq);
	sb_add(&sb, c->watch ? ",\"watch\":true,\"owner\":" : ",\"watch\":false,\"owner\":");
	if (!gb_text_str(&sb, c->owner))
		goto fail;
	sb_addn(&sb, "}", 1);
	if (sb.failed)
		goto fail;
	return sb_detach(&sb);
fail:
	sb_release(&sb);
	return NULL;
}

/* The table's wrapper JSON text into c->table.state (before the write transaction). */
static int table_text(struct ctx *c)
{
	json_t *w;
	char *text;

	/*
	 * A saved state this instance cannot read stays as it is when only
	 * seats or status change (/leave, /stop): it may be a newer instance's,
	 * or wanted for repair. Only a game started afresh replaces it.
	 */
	if (c->broken && !c->st)
		return GB_OK;
	if (c->log_changed || !c->log_saved) {
		json_decref(c->log_saved);
		c->log_saved = log_text(c);
		c->log_changed = false;
	}
	text = wrapper_text(c);
	if (text && !statecache_checking()) {
		free(c->table.state);
		c->table.state = text;
		goto done;
	}
	w = json_object();
	if (c->st)
		json_object_set_new(w, "game", gb_state_json(c->game, c->st));
	json_object_set(w, "log", c->log_saved);
	json_object_set_new(w, "seq", json_integer(c->seq));
	json_object_set_new(w, "watch", json_boolean(c->watch));
	json_object_set_new(w, "owner", json_string(c->owner));
	free(c->table.state);
	c->table.state = json_compact(w);
	json_decref(w);
	if (!c->table.state) {
		free(text);
		return GB_ENOMEM;
	}
	/* the test suites: the text written directly must be the very same */
	if (text && strcmp(text, c->table.state) != 0) {
		gb_log("table %lld: the state's text written directly differs: %s against %s",
		       (long long)c->table.id, text, c->table.state);
		abort();
	}
	free(text);
done:
	/* the next command on this table starts from this text: decoded already */
	if (c->st && !c->table_new)
		statecache_put(c, c->table.state, true);
	return GB_OK;
}

static int save_table(struct ctx *c)
{
	int rc;

	/* a table over is stamped with when it ended: pruning counts its days from then */
	if (c->table.status == STORE_OVER)
		c->table.turn_started_ms = c->cmd->now_ms;
	if (c->table_new) {
		c->table.watch = c->watch;
		c->table.created_ms = c->cmd->now_ms;
		rc = store_table_insert(c->ws, &c->table);
		/* another command opened a table here first: read again and decide again */
		if (rc == GB_EEXISTS)
			rc = GB_ECONFLICT;
	} else {
		rc = store_table_update(c->ws, &c->table);
	}
	if (!rc)
		c->table_saved = true;
	return rc;
}

/* Is reply r addressed to the command's caller alone (an alert or a private view for them)? */
static bool for_caller(struct ctx *c, json_t *r)
{
	const char *kind = json_string_value(json_object_get(r, "kind"));
	const char *user = json_string_value(json_object_get(r, "user"));

	return kind && user && (!strcmp(kind, "alert") || !strcmp(kind, "private")) &&
	       !strcmp(user, c->cmd->user);
}

/* Each reply not yet made into the text of its outbox row, into c->reply_text. */
static int reply_texts(struct ctx *c)
{
	size_t n = json_array_size(c->replies);
	char **texts;

	/* an online table's rows are made for each seat's chat (online_queue_replies()) */
	if (c->nreply_text == n || c->online)
		return GB_OK;
	texts = realloc(c->reply_text, n * sizeof(char *));
	if (!texts)
		return GB_ENOMEM;
	c->reply_text = texts;
	for (size_t i = c->nreply_text; i < n; i++) {
		json_t *r = json_array_get(c->replies, i);

		/* a queue message belongs to no table, whatever the chat plays */
		if (c->has_table && !json_is_true(json_object_get(r, "queue"))) {
			json_object_set_new(r, "table", json_integer(c->table.id));
			json_object_set_new(r, "turn", json_integer(c->seq));
		}
		json_object_set_new(r, "lang", json_string(lang_code(c->lang)));
		/* only the caller's own rows answer the handle: another player's hand never does */
		if (c->cmd->reply[0] && (for_caller(c, r) || !strcmp(json_string_value(json_object_get(r, "kind")), "ack")))
			json_object_set_new(r, "reply", json_string(c->cmd->reply));
		/* every row names the command it came from, for an adapter answering in place */
		if (c->cmd->reply[0])
			json_object_set_new(r, "origin", json_string(c->cmd->reply));
		c->reply_text[i] = json_compact(r);
		if (!c->reply_text[i])
			return GB_ENOMEM;
		c->nreply_text = i + 1;
	}
	return GB_OK;
}

/*
 * Everything a command's writes need that takes time - the settings and
 * state JSON, the table message with its board, the acknowledgement - made
 * before the write transaction, so the store's write lock is held only
 * for the writes themselves.
 */
int commit_prepare(struct ctx *c)
{
	int rc = GB_OK;
	size_t i;
	json_t *r;

	if (c->chat_changed) {
		c->settings_text = json_compact(c->settings);
		if (!c->settings_text)
			return GB_ENOMEM;
	}
	if (c->has_table && (c->table_changed || c->table_new || c->seats_changed))
		rc = table_text(c);
	if (rc)
		return rc;
	if (c->show_table && c->has_table && c->online) {
		online_views(c);
	} else if (c->show_table && c->has_table) {
		table_message(c);
		/*
		 * Asked for again: a new message at the bottom of the chat,
		 * and the older one loses its buttons (bot.h, "repost")
		 */
		if (c->repost_table)
			json_object_set_new(json_array_get(c->replies, json_array_size(c->replies) - 1),
					    "repost", json_true());
	}
	if (c->cmd->reply[0]) {
		/* the platform waits for exactly one answer to a handle: the caller's own view, else an ack */
		bool answered = false;

		json_array_foreach(c->replies, i, r)
			answered |= for_caller(c, r);
		if (!answered)
			reply_push(c, "ack", c->cmd->user, "");
	}
	return c->table_new ? GB_OK : reply_texts(c);
}

/*
 * The chat as the command read it is still the chat in the store: its
 * settings carry no version, so a change is checked against what was read
 * (another command changing them in between is a conflict, not a lost
 * update).
 */
static int chat_unchanged(struct ctx *c)
{
	struct store_chat now = { 0 };
	int rc = store_chat_get_by_id(c->ws, c->chat.id, &now);

	if (!rc && (strcmp(now.lang, c->lang_loaded) ||
		    strcmp(now.settings ? now.settings : "", c->chat.settings ? c->chat.settings : "")))
		rc = GB_ECONFLICT;
	store_chat_release(&now);
	return rc;
}

/* Is the command's reply i of that kind? */
static bool reply_is(const struct ctx *c, size_t i, const char *kind)
{
	return !strcmp(json_string_value(json_object_get(json_array_get(c->replies, i), "kind")), kind);
}

/*
 * The order the command's replies are queued in, into order[0..n-1];
 * returns how many of them, from the first, are turn-critical. The board
 * says whose turn it is, and a press waits for its answer: they go before
 * the chat's posts queued earlier. So do the rows before the command's
 * last board, which it shows after them - except that at a table in play
 * or over the board goes before its lines for everyone (who won, who
 * left, a turn played for someone away; not a seating line such as the
 * game beginning), the rest in their order: the board shows the move they
 * tell of, and a table waiting for its board never waits for a line as
 * well (the platform's budget spent on the board first). The first
 * c->lines_first replies keep their place: "I will speak English", then
 * the board in English.
 */
static size_t reply_order(struct ctx *c, size_t *order)
{
	size_t n = json_array_size(c->replies), last = n, from, first = n, k = 0;

	for (size_t i = 0; i < n; i++)
		if (reply_is(c, i, "table"))
			last = i;
	/* an online table's boards, one a seat (online_views()), move together */
	for (from = last; c->online && from < n && from > 0 &&
	     json_is_integer(json_object_get(json_array_get(c->replies, from - 1), "dest"));)
		from--;
	for (size_t i = c->lines_first; last < n && i < from && c->has_table && c->table.status != STORE_LOBBY;
	     i++)
		if (reply_is(c, i, "public") &&
		    !json_is_true(json_object_get(json_array_get(c->replies, i), "seating"))) {
			first = i;
			break;
		}
	/* the last board (or boards) moves up to just before the first such line */
	for (size_t i = 0; i < n; i++) {
		if (i == first)
			for (size_t b = from; b <= last; b++)
				order[k++] = b;
		if (first == n || i < from || i > last)
			order[k++] = i;
	}
	return last < n ? last + 1 : 0;
}

/*
 * The command's replies into the outbox, inside the write transaction. A
 * new table's id is known only now; settling a stake has replies of its own.
 */
static int queue_replies(struct ctx *c)
{
	struct store *s = c->ws;
	size_t n, turn_rows, *order = NULL;
	int rc = c->unreachable ? GB_OK : reply_texts(c);

	if (rc || c->unreachable)
		goto out;
	n = json_array_size(c->replies);
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!order) {
		rc = GB_ENOMEM;
		goto out;
	}
	turn_rows = reply_order(c, order);
	if (c->online) {
		rc = online_queue_replies(c, order, n, turn_rows);
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		json_t *r = json_array_get(c->replies, i);
		const char *kind = json_string_value(json_object_get(r, "kind"));
		enum store_out_prio prio = STORE_OUT_INFO;
		char key[32] = "";

		/*
		 * A newer board replaces one not yet sent: only the newest goes
		 * out. A repost is not replaced: it moves the table message.
		 */
		if (c->has_table && !strcmp(kind, "table") && !json_is_true(json_object_get(r, "repost")))
			snprintf(key, sizeof(key), "table:%lld", (long long)c->table.id);
		/* a person's queue message: only the newest of it goes out (an outdated one edited aside) */
		if (!strcmp(kind, "table") && json_is_true(json_object_get(r, "queue")))
			snprintf(key, sizeof(key), "%s", json_is_true(json_object_get(r, "stale")) ? "" : "queue");
		/* so does a seating line: the board lists the seats (a table's opening is two rows) */
		if (c->has_table && !strcmp(kind, "public") && json_is_true(json_object_get(r, "seating")))
			snprintf(key, sizeof(key), "seating:%lld", (long long)c->table.id);
		if (k < turn_rows || json_object_get(r, "reply"))
			prio = STORE_OUT_TURN;
		if (c->cmd->from_platform[0] && json_object_get(r, "reply"))
			/* a press taken from the presser's private chat (press.c): answered there */
			rc = store_out_add_prio(s, c->cmd->from_platform, c->cmd->from_chat, 0, "",
						c->reply_text[i], c->cmd->now_ms, prio);
		else
			rc = store_out_add_prio(s, c->cmd->platform, c->cmd->chat,
						c->has_table && !json_is_true(json_object_get(r, "queue")) ?
						c->table.id : 0,
						key, c->reply_text[i], c->cmd->now_ms, prio);
		if (rc)
			goto out;
	}
out:
	free(order);
	return rc;
}

/* The command's writes, inside the write transaction. */
static int commit(struct ctx *c)
{
	struct store *s = c->ws;
	int rc = GB_OK;

	if (c->cmd->update_id[0]) {
		rc = store_mark_processed(s, c->cmd->platform, c->cmd->update_id);
		if (rc)
			goto out;
	}
	if (c->chat_changed) {
		rc = chat_unchanged(c);
		if (!rc) {
			free(c->chat.settings);
			c->chat.settings = c->settings_text;
			c->settings_text = NULL;
			rc = store_chat_save(s, &c->chat);
		}
		if (rc)
			goto out;
	}
	/*
	 * Seats, moves and terms are written only with the row, so that its
	 * version tells them (statecache_known()).
	 */
	if (c->has_table && (c->table_changed || c->table_new || c->seats_changed || c->nmoves ||
			     c->terms_changed)) {
		rc = save_table(c);
		if (rc)
			goto out;
	}
	if (c->has_table && (c->seats_changed || c->table_new)) {
		rc = store_seats_set(s, c->table.id, c->seats, c->nseats);
		if (rc)
			goto out;
	}
	for (int m = 0; m < c->nmoves; m++) {
		rc = store_move_append(s, c->table.id, c->moves[m].move_seq, c->moves[m].actor,
				       c->moves[m].action, c->moves[m].events);
		if (rc)
			goto out;
	}
	for (int q = 0; c->record_stats && q < c->nseats; q++) {
		const struct gb_outcome *oc = &c->final;

		/* every person who sat: who left is counted as a game not won, without points */
		if (!c->seats[q].user[0])
			continue;
		rc = store_stat_add(s, c->chat.id, c->seats[q].user, c->seats[q].name, c->game->name,
				    seat_is_person(c, q) && !oc->draw && oc->winner == q,
				    seat_is_person(c, q) ? oc->score[q] : 0);
		if (rc)
			goto out;
	}
	/* coins move in the same transaction as the move that moved them */
	rc = coins_commit(c);
	if (!rc)
		rc = online_commit(c);
	if (rc)
		goto out;
	/* a table known to have no timers, and given none, has none to clear */
	c->timers_none = c->has_table && !c->ntimers && (c->clear_timers || c->timers_quiet);
	if (c->has_table && (c->clear_timers || c->ntimers) && !(c->timers_none && c->timers_quiet)) {
		rc = store_timer_clear(s, c->table.id, NULL);
		if (rc)
			goto out;
	}
	for (int t = 0; t < c->ntimers; t++) {
		struct store_timer tm = { .table = c->table.id, .due_ms = c->timers[t].due_ms,
					  .version = c->table.version };

		snprintf(tm.kind, sizeof(tm.kind), "%s", c->timers[t].kind);
		rc = store_timer_set(s, &tm);
		if (rc)
			goto out;
	}
	rc = queue_replies(c);
out:
	return rc;
}

/*
 * Commands of this process that are ready to write at the same moment
 * share one transaction: the first to arrive writes everyone's work, each
 * in a unit of its own (one command's conflict or refusal undoes only its
 * writes), and commits once. A commit costs the same for one command as
 * for twenty (writing the pages that changed, most of them shared: the
 * outbox's, the move log's, the update ids'), so under load the write
 * lock is held for far less per command; alone, a command writes as it
 * would by itself. The waiting commands' contexts are read by the writing
 * thread only while their own threads sleep.
 *
 * Commands join the batch of their own database (a process may serve
 * several, as tests do). Each waiter sleeps on a condition of its own:
 * the writer wakes exactly the commands it wrote, and the first one left
 * waiting, which writes next.
 */
struct pending {
	struct ctx *c;
	const char *db;                /* store_target() of the command's store */
	int rc;
	bool done;
	pthread_cond_t wake;
	struct pending *next;
};

static pthread_mutex_t group_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t group_arrived = PTHREAD_COND_INITIALIZER;
static struct pending *group_head;
static bool group_writing;
static bool group_lingering;     /* the writer waits for commands still deciding */
static int group_queued;
/* Commands reading and deciding (run_once() and prepare()): they will want to write soon. */
static atomic_int group_deciding;

#define GROUP_MAX 64
/*
 * How long a writer waits for commands still deciding to join its batch
 * (only while some are): under load a bigger batch shares one commit
 * among more commands; alone, a command never waits.
 */
#define GROUP_LINGER_US 200

/*
 * Write the commands of list in one transaction on s; their results in
 * each rc. Returns how long the write lock was held (microseconds).
 */
static int64_t write_batch(struct store *s, struct pending *list)
{
	int rc = store_begin(s);
	int64_t t0 = mono_us();

	for (struct pending *p = list; !rc && p; p = p->next) {
		int unit = store_unit_begin(s);

		p->c->ws = s;
		p->rc = unit ? unit : commit(p->c);
		unit = store_unit_end(s, p->rc == GB_OK);
		if (unit == GB_ESTORE)
			rc = unit; /* the transaction itself is lost: nobody's work is kept */
		else if (unit && !p->rc)
			p->rc = unit;
	}
	if (!rc)
		rc = store_commit(s);
	if (rc) {
		store_rollback(s);
		for (struct pending *p = list; p; p = p->next)
			if (!p->rc || rc == GB_ESTORE)
				p->rc = rc;
	}
	return mono_us() - t0;
}

void commit_deciding(int delta)
{
	atomic_fetch_add(&group_deciding, delta);
}

/* Wait (group_lock held) until no more commands are deciding, GROUP_MAX are queued, or the linger is over. */
static void group_linger(void)
{
	struct timespec until;

	if (atomic_load(&group_deciding) == 0)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += GROUP_LINGER_US * 1000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	group_lingering = true;
	while (atomic_load(&group_deciding) > 0 && group_queued < GROUP_MAX &&
	       pthread_cond_timedwait(&group_arrived, &group_lock, &until) == 0)
		;
	group_lingering = false;
}

/* Take up to GROUP_MAX queued commands of database db, in order, off the queue (group_lock held). */
static struct pending *group_take(const char *db)
{
	struct pending *list = NULL, **tail = &list, **pp = &group_head;
	int n = 0;

	while (*pp && n < GROUP_MAX) {
		struct pending *p = *pp;

		if (strcmp(p->db, db) != 0) {
			pp = &p->next;
			continue;
		}
		*pp = p->next;
		p->next = NULL;
		*tail = p;
		tail = &p->next;
		n++;
	}
	group_queued -= n;
	return list;
}

/* Write c's work, with whatever else is ready; *held_us gets the transaction's time. */
/* A command's write is done (rc): what the next command on its table may know. */
static int written(struct ctx *c, int rc)
{
	if (!rc && c->timers_none && !c->table_new)
		statecache_quiet(c->table.id, c->table.state, c->table.version);
	if (!rc && c->table_saved && !c->table_new)
		statecache_known(c);
	return rc;
}

int commit_write(struct bot *b, struct ctx *c, int64_t *held_us)
{
	struct pending me = { .c = c, .db = store_target(b->store), .wake = PTHREAD_COND_INITIALIZER };
	struct pending **pp;

	if (!store_one_writer(b->store)) {
		/* a database with row locks and many writers (PostgreSQL): each command writes alone */
		*held_us = write_batch(b->store, &me);
		return written(c, me.rc);
	}
	pthread_mutex_lock(&group_lock);
	for (pp = &group_head; *pp; pp = &(*pp)->next)
		;
	*pp = &me;
	group_queued++;
	if (group_lingering)
		pthread_cond_signal(&group_arrived);
	while (!me.done) {
		struct pending *list;

		if (group_writing) {
			pthread_cond_wait(&me.wake, &group_lock);
			continue;
		}
		/* this thread writes: its own command's batch (its own among it) */
		group_writing = true;
		group_linger();
		list = group_take(me.db);
		pthread_mutex_unlock(&group_lock);
		*held_us = write_batch(b->store, list);
		pthread_mutex_lock(&group_lock);
		for (struct pending *p = list, *next; p; p = next) {
			next = p->next;
			p->done = true;
			if (p != &me)
				pthread_cond_signal(&p->wake);
		}
		group_writing = false;
		if (group_head)
			pthread_cond_signal(&group_head->wake);
	}
	pthread_mutex_unlock(&group_lock);
	pthread_cond_destroy(&me.wake);
	return written(c, me.rc);
}
