/*
 * poll.c - long polling: the poller thread (tg_poll_main()) asks
 * getUpdates in a loop and hands each update to tg_receive(); its offset
 * lives in the store, so a restart neither repeats nor skips an update.
 */
#include "adapters/telegram/internal.h"

/* Wait ms, or less when the adapter stops. Returns true when it is stopping. */
static bool pause_ms(struct telegram *t, int64_t ms)
{
	struct timespec until;
	bool stop;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&t->lock);
	while (!t->stop)
		if (pthread_cond_timedwait(&t->wake, &t->lock, &until))
			break;
	stop = t->stop;
	pthread_mutex_unlock(&t->lock);
	return stop;
}

#define OFFSET_KEY "telegram.offset"

/*
 * The polling loop. The offset (the next update_id wanted) is kept in the
 * store after each update is handled, so a restart asks for exactly the
 * first update not yet handled: none is skipped, and one handled but not
 * yet confirmed is dropped by the bot's dedupe.
 */
void *tg_poll_main(void *arg)
{
	struct telegram *t = arg;
	struct bot *b = NULL;
	long long offset = 0;
	int64_t backoff = 500, wait;
	bool logged = false;
	char buf[32], why[200];

	while (!atomic_load(&t->abort_poll)) {
		struct tg_result res;
		json_t *body, *allowed, *upd;
		size_t i;
		bool failed = false;

		if (!b) {
			b = adapter_bot(&t->env);
			if (b && !store_meta_get(b->store, OFFSET_KEY, buf, sizeof(buf)))
				offset = strtoll(buf, NULL, 10);
			if (!b && pause_ms(t, 1000))
				break;
			if (!b)
				continue;
		}
		body = json_object();
		allowed = json_array();
		for (size_t k = 0; k < sizeof(tg_allowed_updates) / sizeof(tg_allowed_updates[0]); k++)
			json_array_append_new(allowed, json_string(tg_allowed_updates[k]));
		json_object_set_new(body, "offset", json_integer(offset));
		json_object_set_new(body, "timeout", json_integer(TG_POLL_S));
		json_object_set_new(body, "allowed_updates", allowed);
		tg_api(t, "getUpdates", body, TG_POLL_S + 10, &t->abort_poll, &res);
		json_decref(body);
		if (atomic_load(&t->abort_poll)) {
			tg_result_release(&res);
			break;
		}
		if (!res.ok || !json_is_array(res.result)) {
			if (!logged) {
				tg_describe("getUpdates", &res, why, sizeof(why));
				tg_log("%s; trying again", why);
				logged = true;
			}
			/* read before the release clears it: a 429 says how long to wait */
			wait = res.status == 429 && res.retry_after > 0 ? res.retry_after * 1000 : backoff;
			tg_result_release(&res);
			if (pause_ms(t, wait))
				break;
			backoff = backoff * 2 > 30000 ? 30000 : backoff * 2;
			continue;
		}
		if (logged)
			tg_log("getUpdates answers again");
		logged = false;
		backoff = 500;
		json_array_foreach(res.result, i, upd) {
			long long id = json_integer_value(json_object_get(upd, "update_id"));
			char *text = json_dumps(upd, JSON_COMPACT);
			/* polling has no answer to carry a call: an over-limit press stays open */
			char close[TG_REPLY_LEN];
			int status = text ? tg_receive(t, text, strlen(text), close, sizeof(close)) : 500;

			free(text);
			if (status >= 500) {
				failed = true; /* not confirmed: asked for again after a pause */
				break;
			}
			if (id >= offset) {
				offset = id + 1;
				snprintf(buf, sizeof(buf), "%lld", offset);
				if (store_meta_set(b->store, OFFSET_KEY, buf))
					tg_log("polling offset %s not saved", buf);
			}
		}
		tg_result_release(&res);
		if (failed && pause_ms(t, 1000))
			break;
	}
	adapter_bot_release();
	return NULL;
}
