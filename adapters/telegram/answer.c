/*
 * answer.c - the lane of answers to presses: answerCallbackQuery must
 * come within seconds of the press, so the listener that received a press
 * takes the row that answers it out of the outbox and sends it at once
 * (tg_answer_press()), ahead of the workers and their pacing.
 */
#include "adapters/telegram/internal.h"

#define TG_TAKE_MAX 32          /* the chat's newest rows looked through for a press's answer */
#define TG_ANSWER_HOLD_MS 15000 /* out of the workers' reach while it is being sent */

/*
 * The row of chat whose view answers the press reply (an ack, or an alert
 * or a hand shown in one) among rows[0..n-1], not in a worker's hands at
 * now: its index, or -1. *call gets the rendered answerCallbackQuery.
 */
static int find_answer(const struct store_out *rows, int n, const char *chat, const char *reply,
		       int64_t now, struct tg_call *call)
{
	int found = -1;

	for (int i = 0; i < n && found < 0; i++) {
		json_error_t jerr;
		json_t *v = json_loads(rows[i].payload ? rows[i].payload : "", 0, &jerr);
		const char *r = json_string_value(json_object_get(v, "reply"));

		if (rows[i].lease_until_ms <= now && r && strcmp(r, reply) == 0 &&
		    !tg_render(v, chat, "", call) && strcmp(call->method, "answerCallbackQuery") == 0)
			found = i;
		else
			tg_call_release(call);
		json_decref(v);
	}
	return found;
}

/*
 * A press's answer is not a chat message: it goes out now, from the thread
 * that received the press, never behind the chat's boards waiting out the
 * group's budget (Telegram shows a press unanswered within seconds as
 * failed, and refuses the late answer). Its row was committed with the
 * command; here it is put out of the workers' reach (leased for longer
 * than this call can last, as a worker's claim would) in one transaction,
 * sent, and removed. On a failure, or a
 * crash in between, a worker sends it later: still delivered at least
 * once, and a repeat is refused by Telegram and ignored.
 */
/*
 * Mark reply as being answered by this thread: false when another thread
 * already is (the same update delivered again while its answer is on its
 * way, whose row is held but still there). *slot gets the mark, -1 when
 * every mark is taken (then it goes unmarked).
 */
static bool answering_take(struct telegram *t, const char *reply, int *slot)
{
	bool mine = true;

	*slot = -1;
	pthread_mutex_lock(&t->lock);
	for (int k = 0; k < TG_ANSWERING && mine; k++) {
		if (!strcmp(t->answering[k], reply))
			mine = false;
		else if (*slot < 0 && !t->answering[k][0])
			*slot = k;
	}
	if (mine && *slot >= 0)
		snprintf(t->answering[*slot], sizeof(t->answering[*slot]), "%s", reply);
	pthread_mutex_unlock(&t->lock);
	return mine;
}

static void answering_drop(struct telegram *t, int slot)
{
	if (slot < 0)
		return;
	pthread_mutex_lock(&t->lock);
	t->answering[slot][0] = '\0';
	pthread_mutex_unlock(&t->lock);
}

void tg_answer_press(struct telegram *t, struct store *s, const char *chat, const char *reply)
{
	struct store_out rows[TG_TAKE_MAX];
	struct tg_call call = { 0 };
	struct tg_result res = { 0 };
	int64_t now = bot_now_ms();
	int n = 0, i = -1, slot = -1, rc;

	if (!answering_take(t, reply, &slot))
		return;
	rc = store_begin(s);
	if (rc)
		goto out;
	rc = store_out_chat(s, "telegram", chat, rows, TG_TAKE_MAX, &n);
	if (!rc)
		i = find_answer(rows, n, chat, reply, now, &call);
	if (!rc && i >= 0) {
		/* leased, not delayed: the chat's next board is not placed behind the hold */
		rc = store_out_lease(s, rows[i].id, now, now + TG_ANSWER_HOLD_MS);
		if (rc == GB_ENOTFOUND) {
			i = -1; /* a worker has it */
			rc = GB_OK;
		}
	}
	if (!rc)
		rc = store_commit(s);
	else
		store_rollback(s);
	if (rc || i < 0)
		goto out;
	tg_api(t, call.method, call.body, TG_ANSWER_TIMEOUT_S, NULL, &res);
	if (res.ok || res.status == 400) {
		/* answered, or too old or answered already: the press is over either way */
		rc = store_out_done(s, rows[i].id);
		metrics_inc("gamebot_deliveries_total", "platform=\"telegram\",result=\"ok\"", 1);
	} else {
		rc = store_out_retry(s, rows[i].id, now, 0);
	}
	if (rc)
		tg_log("answer to a press in chat %s: row %lld not settled (%s): a worker sends it again",
		       chat, (long long)rows[i].id, gb_strerror(rc));
out:
	answering_drop(t, slot);
	for (int k = 0; k < n; k++)
		store_out_release(&rows[k]);
	tg_result_release(&res);
	tg_call_release(&call);
}
