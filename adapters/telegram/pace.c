/*
 * pace.c - the pacing of sends (struct tg_pace): Telegram's limits per chat,
 * per group and overall, kept as rates behind one mutex, so the outbox
 * waits before a call rather than meeting a 429. Pure but for its lock.
 */
#include "adapters/telegram/internal.h"

#include "adapters/call_ring.h"

/*
 * The budget of a group is spent as a rate, not as a window: a burst of
 * PACE_GROUP_BURST, then one message every PACE_GROUP_MS (a generic cell
 * rate: `due` is when the bucket is empty again). Sending twenty at once
 * and then nothing for the rest of the minute would freeze a table for
 * half a minute; at this rate a board is edited every few seconds while
 * people play. BURST + 60000 / GROUP_MS stays under 20 in any minute with
 * room for the time a call takes to reach Telegram, and the ring of the
 * last twenty sends is kept as the hard limit all the same. The chat's
 * second and the overall second carry the same room.
 *
 * The rate is the boards': a group's other messages (a line saying who
 * won, who left) go in the room the boards leave in the minute, without
 * moving the boards' next step, while the minute has that room for them
 * and for every board to come (group_spare()); past it a line spends a
 * step as a board does.
 *
 * Overall, the thirty a second are spent evenly too: after a burst (an
 * idle service sends up to thirty at once), one message every
 * PACE_ALL_STEP_MS, so that the chats waiting share a steady stream in
 * the order they are handed over, rather than thirty at once and then
 * every chat waiting out the rest of the second.
 */
/*
 * Groups whose sends still count (the last minute's): at most 1,800 under
 * Telegram's 30 a second overall, so about a fifth of the slots however
 * many groups there are (about 400 bytes a slot, its tables' turns
 * included); a slot idle longer is reused.
 */
#define PACE_SLOTS 8192
#define PACE_PROBE 64
#define PACE_GROUP_N 20         /* messages a minute in a group: Telegram's limit */
#define PACE_GROUP_BURST 3      /* sent at once after a quiet spell */
#define PACE_GROUP_MS 3600      /* then one every this many ms: 3 + 16 a minute */
#define PACE_CHAT_MS 1100       /* about one message a second in a chat */
#define PACE_ALL_N 30           /* messages a second overall */
#define PACE_ALL_MS 1050        /* the overall second, with room */
#define PACE_ALL_STEP_MS 36     /* overall, after a burst: one every this many ms (27.8 a second) */
#define PACE_KEY_LEN 32
#define PACE_TOPICS 8           /* a group's tables (forum topics) its steps go round */
#define PACE_TURN_MS 250        /* a table whose turn it is not comes back this much later */
#define PACE_BACK_MS 1500       /* a table told to wait still waits this long past the wait */

/*
 * A table of a group (its topic; 0 in a group without topics) that asked
 * for a step: the group's steps go round its tables, to the one served
 * longest ago among those waiting, so two busy tables in one forum share
 * the group's twenty a minute evenly instead of one taking two or three
 * steps in a row while the other's board waits.
 */
struct pace_topic {
	int64_t thread;             /* the topic's thread id; 0 the group itself */
	int64_t served;             /* when it last had a step (0 never) */
	int64_t until;              /* waiting for a step until then (0 not waiting) */
};

struct pace_chat {
	char chat[PACE_KEY_LEN];    /* the group (a topic's chat up to its '#'), or the user */
	int64_t sent[PACE_GROUP_N]; /* ring of the last sends */
	int next;
	int64_t last;
	int64_t due;                /* the boards' rate's theoretical next send */
	struct pace_topic topics[PACE_TOPICS];
};

struct tg_pace {
	pthread_mutex_t lock;
	struct pace_chat chats[PACE_SLOTS];
	struct call_ring all;       /* the last sends, against the thirty a second */
	int64_t all_due;            /* the overall rate's theoretical next send */
};

struct tg_pace *tg_pace_new(void)
{
	struct tg_pace *p = calloc(1, sizeof(*p));

	if (p) {
		pthread_mutex_init(&p->lock, NULL);
		call_ring_init(&p->all, PACE_ALL_N);
	}
	return p;
}

void tg_pace_free(struct tg_pace *p)
{
	if (!p)
		return;
	pthread_mutex_destroy(&p->lock);
	free(p);
}

uint32_t tg_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The chat's slot: its own, else a free one, else the one idle longest. Lock held. */
static struct pace_chat *pace_slot(struct tg_pace *p, const char *chat)
{
	uint32_t h = tg_hash(chat);
	struct pace_chat *empty = NULL, *lru = NULL, *c;

	for (int i = 0; i < PACE_PROBE; i++) {
		c = &p->chats[(h + (uint32_t)i) % PACE_SLOTS];
		if (strcmp(c->chat, chat) == 0)
			return c;
		if (!c->chat[0]) {
			if (!empty)
				empty = c;
		} else if (!lru || c->last < lru->last) {
			lru = c;
		}
	}
	c = empty ? empty : lru;
	memset(c, 0, sizeof(*c));
	snprintf(c->chat, sizeof(c->chat), "%s", chat);
	return c;
}

/* How long a group must wait for its minute's hard limit at now_ms (0: none). Lock held. */
static int64_t minute_wait(const struct pace_chat *c, int64_t now_ms)
{
	int64_t oldest = c->sent[c->next];

	return oldest && now_ms - oldest < 60000 ? 60000 - (now_ms - oldest) : 0;
}

/* How long a group must wait for its boards' rate at now_ms (0: it may send). Lock held. */
static int64_t group_wait(const struct pace_chat *c, int64_t now_ms)
{
	int64_t wait = 0, hard = minute_wait(c, now_ms);

	if (c->due - now_ms > (int64_t)(PACE_GROUP_BURST - 1) * PACE_GROUP_MS)
		wait = c->due - now_ms - (int64_t)(PACE_GROUP_BURST - 1) * PACE_GROUP_MS;
	return hard > wait ? hard : wait;
}

/*
 * May a line go now aside the boards' steps? Only if every board the
 * boards' rate may send in the minute to come (each at its earliest: its
 * step, and a chat's second after the one before, the line first) still
 * finds room in the group's twenty with the line counted: a line never
 * holds a board back, and many lines do not fill the minute. Lock held.
 */
static bool group_spare(const struct pace_chat *c, int64_t now_ms)
{
	int64_t due = c->due, at = now_ms;

	for (int k = 1; k <= PACE_GROUP_N; k++) {
		int64_t ready = due - (int64_t)(PACE_GROUP_BURST - 1) * PACE_GROUP_MS;
		int recent = 0;

		at = at + PACE_CHAT_MS > ready ? at + PACE_CHAT_MS : ready;
		if (at - now_ms >= 60000)
			break;
		due = (due > at ? due : at) + PACE_GROUP_MS;
		for (int i = 0; i < PACE_GROUP_N; i++)
			if (c->sent[i] && at - c->sent[i] < 60000)
				recent++;
		if (recent + 1 + k > PACE_GROUP_N)
			return false;
	}
	return true;
}

/*
 * How long the next message must wait for the overall limit at now_ms (0:
 * none). Lock held. When the second's thirty are spent (a burst), the
 * rate's bucket is emptied as well: after the wait the stream goes on at
 * one message a step, not with another burst saved up during the wait.
 */
static int64_t all_wait(struct tg_pace *p, int64_t now_ms)
{
	int64_t oldest = call_ring_oldest(&p->all), wait = 0, room = (int64_t)(PACE_ALL_N - 1) * PACE_ALL_STEP_MS;

	if (oldest && now_ms - oldest < PACE_ALL_MS) {
		wait = PACE_ALL_MS - (now_ms - oldest);
		if (p->all_due < now_ms + wait + room)
			p->all_due = now_ms + wait + room;
		return wait;
	}
	return p->all_due - now_ms > room ? p->all_due - now_ms - room : 0;
}

/* A forum topic ("GROUP#THREAD") spends its group's budget: the group's key into key. */
static void pace_key(const char *chat, char key[PACE_KEY_LEN])
{
	size_t len = strcspn(chat, "#");

	snprintf(key, PACE_KEY_LEN, "%.*s", (int)(len < PACE_KEY_LEN ? len : PACE_KEY_LEN - 1), chat);
}

/*
 * The topic of thread among the group's tables, taking the place of one
 * not waiting (served longest ago) when it has none yet. Lock held.
 */
static struct pace_topic *pace_topic(struct pace_chat *c, int64_t thread, int64_t now_ms)
{
	struct pace_topic *t = NULL;

	for (int i = 0; i < PACE_TOPICS; i++) {
		struct pace_topic *k = &c->topics[i];

		if (k->thread == thread && (k->until || k->served))
			return k;
		if (k->until > now_ms)
			continue;
		if (!t || k->served < t->served)
			t = k;
	}
	if (!t)
		t = &c->topics[0]; /* more tables waiting than places: they share one */
	*t = (struct pace_topic){ .thread = thread };
	return t;
}

/*
 * Is it mine's turn for the group's step at now_ms: is no other table
 * waiting that was served before it? Lock held.
 */
static bool pace_turn(const struct pace_chat *c, const struct pace_topic *mine, int64_t now_ms)
{
	for (int i = 0; i < PACE_TOPICS; i++) {
		const struct pace_topic *k = &c->topics[i];

		if (k != mine && k->until > now_ms && k->served < mine->served)
			return false;
	}
	return true;
}

/* The thread of a topic's chat ("GROUP#THREAD"), 0 for a whole chat. */
static int64_t pace_thread(const char *chat)
{
	const char *sep = strchr(chat, '#');

	return sep ? strtoll(sep + 1, NULL, 10) : 0;
}

static int64_t pace_take(struct tg_pace *p, const char *chat, bool line, int64_t now_ms,
			 bool *global)
{
	struct pace_chat *c;
	struct pace_topic *topic = NULL;
	int64_t wait = 0;
	char key[PACE_KEY_LEN];
	bool group = chat[0] == '-', aside = false;

	pace_key(chat, key);
	*global = false;
	pthread_mutex_lock(&p->lock);
	c = pace_slot(p, key);
	if (group && !line) {
		/* a board: its table waits its turn among the group's tables */
		topic = pace_topic(c, pace_thread(chat), now_ms);
		if (topic->until < now_ms + PACE_BACK_MS)
			topic->until = now_ms + PACE_BACK_MS;
	}
	if (c->last && now_ms - c->last < PACE_CHAT_MS) {
		wait = PACE_CHAT_MS - (now_ms - c->last);
		goto out;
	}
	if (group) {
		aside = line && group_spare(c, now_ms);
		wait = aside ? minute_wait(c, now_ms) : group_wait(c, now_ms);
		if (!wait && topic && !pace_turn(c, topic, now_ms))
			wait = PACE_TURN_MS;
		if (wait)
			goto out;
	}
	wait = all_wait(p, now_ms);
	if (wait) {
		*global = true;
		goto out;
	}
	c->sent[c->next] = now_ms;
	c->next = (c->next + 1) % PACE_GROUP_N;
	c->last = now_ms;
	if (!aside)
		c->due = (c->due > now_ms ? c->due : now_ms) + PACE_GROUP_MS;
	if (topic) {
		topic->served = now_ms;
		topic->until = 0;
	}
	call_ring_push(&p->all, now_ms);
	p->all_due = (p->all_due > now_ms ? p->all_due : now_ms) + PACE_ALL_STEP_MS;
out:
	if (topic && wait > 0 && topic->until < now_ms + wait + PACE_BACK_MS)
		topic->until = now_ms + wait + PACE_BACK_MS;
	pthread_mutex_unlock(&p->lock);
	return wait;
}

int64_t tg_pace_take(struct tg_pace *p, const char *chat, int64_t now_ms, bool *global)
{
	return pace_take(p, chat, false, now_ms, global);
}

int64_t tg_pace_take_line(struct tg_pace *p, const char *chat, int64_t now_ms, bool *global)
{
	return pace_take(p, chat, true, now_ms, global);
}

void tg_pace_sent(struct tg_pace *p, const char *chat, int64_t taken_ms, int64_t done_ms)
{
	struct pace_chat *c;
	char key[PACE_KEY_LEN];
	int i;

	if (!p || done_ms <= taken_ms)
		return;
	pace_key(chat, key);
	pthread_mutex_lock(&p->lock);
	c = pace_slot(p, key);
	i = (c->next + PACE_GROUP_N - 1) % PACE_GROUP_N;
	if (c->sent[i] == taken_ms)
		c->sent[i] = done_ms;
	if (c->last == taken_ms)
		c->last = done_ms;
	call_ring_answered(&p->all, taken_ms, done_ms);
	pthread_mutex_unlock(&p->lock);
}
