/*
 * adapter.c - the Discord adapter's table (discord_adapter): start and
 * stop, the interactions route, the probe of the API while the outbox is
 * paused, and the slots that deliver.c fills.
 */
#include "adapters/discord/internal.h"

static bool configured(const struct config *cfg)
{
	return cfg->discord_public_key[0] != '\0';
}

void dc_free(struct discord *d)
{
	if (!d)
		return;
	pthread_mutex_destroy(&d->lock);
	sodium_memzero(d->token, sizeof(d->token));
	dc_pace_free(d->pace);
	free(d);
}

/* State from the configuration; GB_ECONFIG (with a line on err) when it cannot work. */
int dc_new(const struct config *cfg, bool need_key, FILE *err, struct discord **out)
{
	struct discord *d = calloc(1, sizeof(*d));
	size_t n = 0;
	const char *end = NULL;
	int rc = GB_OK;

	*out = NULL;
	if (!d)
		return GB_ENOMEM;
	pthread_mutex_init(&d->lock, NULL);
	snprintf(d->api, sizeof(d->api), "%s", cfg->discord_api);
	n = strlen(d->api);
	while (n && d->api[n - 1] == '/')
		d->api[--n] = '\0';
	snprintf(d->token, sizeof(d->token), "%s", cfg->discord_token);
	if (!dc_id_ok(cfg->discord_app_id)) {
		fprintf(err, "discord: discord_app_id (DISCORD_APP_ID) must be the application's id\n");
		rc = GB_ECONFIG;
		goto out;
	}
	snprintf(d->app_id, sizeof(d->app_id), "%s", cfg->discord_app_id);
	if (need_key &&
	    (sodium_hex2bin(d->pk, sizeof(d->pk), cfg->discord_public_key,
			    strlen(cfg->discord_public_key), NULL, &n, &end) ||
	     n != sizeof(d->pk) || *end)) {
		fprintf(err, "discord: discord_public_key (DISCORD_PUBLIC_KEY) must be 64 hex digits\n");
		rc = GB_ECONFIG;
		goto out;
	}
out:
	if (rc)
		dc_free(d);
	else
		*out = d;
	return rc;
}

static int start(const struct adapter_env *env, void **self)
{
	struct discord *d = NULL;
	int rc;

	*self = NULL;
	if (sodium_init() < 0)
		return GB_EIO;
	rc = dc_new(env->cfg, true, stderr, &d);
	if (rc)
		return rc;
	d->env = *env;
	d->pace = dc_pace_new();
	if (!d->pace) {
		dc_free(d);
		return GB_ENOMEM;
	}
	if (!d->token[0])
		gb_log("discord: no bot token (DISCORD_TOKEN): interactions are answered, but tables "
		       "cannot be posted or edited once their interaction is over");
	gb_log("discord: started: interactions on POST /discord, API %s", d->api);
	*self = d;
	return GB_OK;
}

static int routes(void *self, struct http_route *out, int max)
{
	if (max < 1)
		return 0;
	out[0] = (struct http_route){ .method = "POST", .path = "/discord", .fn = dc_interactions,
				      .arg = self, .admit = dc_admit };
	return 1;
}

static void stop(void *self)
{
	if (!self)
		return;
	gb_log("discord: stopped");
	dc_free(self);
}

/*
 * Does Discord answer the bot (GET /users/@me with its token; /gateway,
 * which needs none, without a token)? enum probe_result.
 */
static int probe(void *self)
{
	struct discord *d = self;
	struct dc_result res;
	int pr;

	for (int i = 0; i < 2; i++) {
		struct timespec nap;

		if (d->token[0])
			dc_api(d, "GET", "/users/@me", NULL, true, &res);
		else
			dc_api(d, "GET", "/gateway", NULL, false, &res);
		if (!res.paced || res.retry_ms > 2000 || i)
			break;
		/* our own pacing held it back: a probe not made says nothing, so it waits its turn once */
		nap.tv_sec = (time_t)(res.retry_ms / 1000);
		nap.tv_nsec = (long)(res.retry_ms % 1000) * 1000000L;
		dc_result_release(&res);
		nanosleep(&nap, NULL);
	}
	if (res.paced || (dc_platform_failure(&res) && res.status != 401))
		pr = PROBE_DOWN;
	else if (res.status == 401 && res.as_bot)
		pr = PROBE_UNAUTHORIZED;
	else
		pr = PROBE_UP;
	dc_result_release(&res);
	return pr;
}

const struct adapter discord_adapter = {
	.name = "discord",
	.configured = configured,
	.start = start,
	.routes = routes,
	.deliver = dc_deliver,
	.held = dc_held,
	.probe = probe,
	.stop = stop,
};
