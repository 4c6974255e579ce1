/*
 * adapter.c - the Telegram adapter's table (telegram_adapter): start and
 * stop, the webhook route, the probe of the Bot API while the outbox is
 * paused, and the delivery slot that deliver.c fills.
 */
#include "adapters/telegram/internal.h"

static bool configured(const struct config *cfg)
{
	return cfg->telegram_token[0] != '\0';
}

void tg_free(struct telegram *t)
{
	if (!t)
		return;
	tg_pace_free(t->pace);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	sodium_memzero(t->token, sizeof(t->token));
	sodium_memzero(t->secret, sizeof(t->secret));
	free(t);
}

static int start(const struct adapter_env *env, void **self)
{
	struct telegram *t = calloc(1, sizeof(*t));
	const struct config *cfg = env->cfg;
	size_t n;
	int rc = GB_OK;

	*self = NULL;
	if (!t)
		return GB_ENOMEM;
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	t->env = *env;
	snprintf(t->api, sizeof(t->api), "%s", cfg->telegram_api);
	n = strlen(t->api);
	while (n && t->api[n - 1] == '/')
		t->api[--n] = '\0';
	snprintf(t->token, sizeof(t->token), "%s", cfg->telegram_token);
	snprintf(t->secret, sizeof(t->secret), "%s", cfg->telegram_secret);
	t->webhook = strcmp(cfg->telegram_mode, "webhook") == 0;
	if (strcmp(cfg->telegram_pacing, "off")) {
		t->pace = tg_pace_new();
		if (!t->pace) {
			rc = GB_ENOMEM;
			goto out;
		}
	}
	if (t->webhook && !t->secret[0]) {
		tg_log("webhook mode needs telegram_secret (Telegram sends it with every update)");
		rc = GB_ECONFIG;
		goto out;
	}
	tg_ensure_username(t);
	if (!t->webhook) {
		struct tg_result res;
		json_t *body = json_object();

		/* Telegram refuses getUpdates while a webhook is set */
		tg_api(t, "deleteWebhook", body, TG_CALL_TIMEOUT_S, NULL, &res);
		json_decref(body);
		tg_result_release(&res);
		if (pthread_create(&t->poller, NULL, tg_poll_main, t)) {
			rc = GB_ENOMEM;
			goto out;
		}
		t->polling = true;
	}
	tg_log("started in %s mode as @%s%s", t->webhook ? "webhook" : "polling",
	       t->username[0] ? t->username : "?", t->pace ? "" : " (pacing off)");
	*self = t;
out:
	if (rc)
		tg_free(t);
	return rc;
}

/* Does the Bot API answer getMe as it does when well (enum probe_result)? */
static int probe(void *self)
{
	struct telegram *t = self;
	struct tg_result res;
	json_t *body = json_object();
	int pr;

	tg_api(t, "getMe", body, TG_LISTENER_TIMEOUT_S, NULL, &res);
	pr = res.status == 401 ? PROBE_UNAUTHORIZED : tg_platform_failure(&res) ? PROBE_DOWN : PROBE_UP;
	tg_result_release(&res);
	json_decref(body);
	return pr;
}

static int routes(void *self, struct http_route *out, int max)
{
	struct telegram *t = self;

	if (!t->webhook || max < 1)
		return 0;
	out[0] = (struct http_route){ "POST", "/telegram", tg_webhook, t, tg_admit };
	return 1;
}

static void stop(void *self)
{
	struct telegram *t = self;

	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = true;
	atomic_store(&t->abort_poll, 1);
	pthread_cond_broadcast(&t->wake);
	pthread_mutex_unlock(&t->lock);
	if (t->polling)
		pthread_join(t->poller, NULL);
	tg_log("stopped");
	tg_free(t);
}

const struct adapter telegram_adapter = {
	.name = "telegram",
	.configured = configured,
	.start = start,
	.routes = routes,
	.deliver = tg_deliver,
	.probe = probe,
	.stop = stop,
};
