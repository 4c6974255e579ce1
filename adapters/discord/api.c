/*
 * api.c - the API over HTTP: dc_api() makes one call as the bot or
 * through an interaction's webhook, within the rate limits Discord's
 * answers state (pace.c), and reads the answer (status, JSON error code,
 * retry_after) into a struct dc_result; and the verdict on a failed call
 * (dc_settle()): the row's, or Discord's as a whole.
 */
#include "adapters/discord/internal.h"

void dc_result_release(struct dc_result *r)
{
	json_decref(r->body);
	memset(r, 0, sizeof(*r));
}


/* curl's header callback: the X-RateLimit-* headers into the call's limits. */
static size_t limits_sink(char *p, size_t size, size_t n, void *arg)
{
	dc_limits_header(arg, p, size * n);
	return size * n;
}

/*
 * Not called now: the rate limits ask to wait (res then reads as a 429 of
 * our own, paced, with retry_ms and global). Else 0, the call counted at
 * taken_ms.
 */
static bool paced(struct discord *d, const char *method, const char *path, bool auth,
		  struct dc_result *res, int64_t taken_ms)
{
	int64_t wait = dc_pace_take(d->pace, method, path, auth, taken_ms, &res->global);

	if (wait <= 0)
		return false;
	res->status = 429;
	res->paced = true;
	res->retry_ms = wait;
	res->body = json_pack("{ss}", "message", "paced within the rate limits");
	return true;
}

/*
 * A 429's wait into res: its JSON retry_after (fractional seconds), else
 * (a body that is not JSON, as Cloudflare's in front of Discord) the
 * Retry-After header, else a second; a long one is honoured (a ban of
 * hours), up to DC_RETRY_MAX_MS.
 */
static void retry_of(struct dc_result *res)
{
	const json_t *ra = json_object_get(res->body, "retry_after");
	double secs = json_is_number(ra) ? json_number_value(ra) : -1.0;
	int64_t ms;

	if (secs > 0 && secs * 1000.0 < (double)DC_RETRY_MAX_MS)
		ms = (int64_t)ceil(secs * 1000.0);
	else if (secs > 0)
		ms = DC_RETRY_MAX_MS;
	else if (res->limits.retry_after_ms > 0)
		ms = res->limits.retry_after_ms;
	else
		ms = 1000;
	res->retry_ms = ms < DC_RETRY_MAX_MS ? ms : DC_RETRY_MAX_MS;
	/*
	 * A 429 that is not Discord's JSON comes from in front of Discord
	 * (Cloudflare, for too many refused calls): it bars the address, so
	 * every call waits, not the one channel's.
	 */
	res->global = json_is_true(json_object_get(res->body, "global")) || res->limits.global ||
		      !json_is_object(res->body);
}

/*
 * method path (below the API URL) with body (may be NULL), as the bot when
 * auth, unless pacing asks to wait (see paced()), for DC_CALL_TIMEOUT_S at
 * most (a post: DC_POST_TIMEOUT_S, since Discord posts it however late it
 * answers) and never past the thread's delivery deadline
 * (adapter_call_ms(): with too little left it is not made, and reads as a
 * wait of our own as a paced one does). Webhook paths hold the
 * interaction's token and the Authorization header the bot's: neither
 * ever reaches a log line.
 */
void dc_api(struct discord *d, const char *method, const char *path,
	    const json_t *body, bool auth, struct dc_result *res)
{
	CURL *c = NULL;
	struct curl_slist *h = NULL;
	struct strbuf url = { 0 }, in = { 0 }, authz = { 0 };
	char *text = NULL;
	json_error_t jerr;
	bool post = strcmp(method, "POST") == 0;
	int64_t taken_ms = bot_now_ms();
	long timeout_ms = adapter_call_ms((post ? DC_POST_TIMEOUT_S : DC_CALL_TIMEOUT_S) * 1000);

	memset(res, 0, sizeof(*res));
	res->as_bot = auth;
	dc_limits_init(&res->limits);
	if (!timeout_ms) {
		res->status = 429;
		res->paced = true;
		res->body = json_pack("{ss}", "message", "no time left in the lease: handed back untried");
		goto out;
	}
	if (paced(d, method, path, auth, res, taken_ms))
		goto out;
	c = adapter_curl();
	text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	h = curl_slist_append(h, "Content-Type: application/json");
	if (h)
		h = curl_slist_append(h, "User-Agent: DiscordBot (https://github.com/gamebot, 1.0)");
	if (h && auth) {
		sb_addf(&authz, "Authorization: Bot %s", d->token);
		h = curl_slist_append(h, sb_str(&authz));
	}
	if (!c || !h || (body && !text)) {
		res->transport = CURLE_OUT_OF_MEMORY;
		goto out;
	}
	sb_addf(&url, "%s%s", d->api, path);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, sb_str(&url));
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (text)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, adapter_curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, limits_sink);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &res->limits);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	res->transport = (int)curl_easy_perform(c);
	/* counted from when it is over: it reached Discord at the latest then */
	dc_pace_sent(d->pace, auth, taken_ms, bot_now_ms());
	res->no_connection = res->transport && adapter_no_connection(res->transport, c);
	res->in_doubt = post && !json_is_true(json_object_get(body, "enforce_nonce")) &&
			adapter_request_sent(res->transport, c, text ? strlen(text) : 0);
	if (res->transport)
		goto out;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	res->body = json_loadb(sb_str(&in), in.len, 0, &jerr);
	res->code = (long)json_integer_value(json_object_get(res->body, "code"));
	if (res->status == 429)
		retry_of(res);
	if (!auth && res->status == 401 && res->code == DC_INVALID_WEBHOOK_TOKEN && !strncmp(path, "/webhooks/", 10)) {
		/*
		 * An interaction's token past its fifteen minutes: Discord says
		 * 401 Invalid Webhook Token, where an unknown one is 404 Unknown
		 * Webhook. Both are the webhook gone for good, read as the
		 * latter (never the bot's token refused: no pause, no probe).
		 */
		res->status = 404;
		res->code = DC_UNKNOWN_WEBHOOK;
	}
	if (!auth && res->status == 404 && !strncmp(path, "/webhooks/", 10) &&
	    (res->code == DC_UNKNOWN_WEBHOOK || res->code == DC_UNKNOWN_INTERACTION)) {
		/* "/webhooks/APP/TOKEN[/...]": that interaction's webhook is gone for good */
		const char *tok = strchr(path + 10, '/');

		if (tok)
			dc_hook_bury(d, tok + 1, strcspn(tok + 1, "/"));
	}
	res->limits.status = res->status;
	res->limits.retry_ms = res->retry_ms;
	res->limits.global = res->limits.global || res->global;
	dc_pace_learn(d->pace, method, path, &res->limits, bot_now_ms());
out:
	curl_slist_free_all(h);
	free(text);
	adapter_sb_wipe(&url);
	sb_release(&in);
	adapter_sb_wipe(&authz);
}

/* A short account of a call for logs and set-aside rows: no URL, no token. */
void dc_describe(const char *what, const struct dc_result *res, char *buf, size_t n)
{
	const char *msg = json_string_value(json_object_get(res->body, "message"));
	struct strbuf sb = { 0 };

	if (res->transport)
		sb_addf(&sb, "%s: %s", what, curl_easy_strerror((CURLcode)res->transport));
	else
		sb_addf(&sb, "%s: %ld %s", what, res->status, msg ? msg : "");
	utf8_copy(buf, n, sb_str(&sb), sb.len);
	sb_release(&sb);
}

bool dc_ok_status(const struct dc_result *res)
{
	return !res->transport && res->status >= 200 && res->status < 300;
}

/*
 * A failure of Discord as a whole rather than of the call: no answer
 * (refused, timed out, cut off), 5xx, or 401 to the bot's own token (it
 * was revoked: every call as the bot gets it, and Discord bans an address
 * that goes on making such calls).
 */
bool dc_platform_failure(const struct dc_result *res)
{
	return res->transport || res->status >= 500 || (res->status == 401 && res->as_bot);
}

/* Discord's answer res (a struct dc_result) as the shared delivery policy classes it. */
static void classify(const void *r, struct deliver_failure *f)
{
	const struct dc_result *res = r;

	memset(f, 0, sizeof(*f));
	if (dc_ok_status(res)) {
		f->kind = DELIVER_SENT;
	} else if (res->in_doubt) {
		/*
		 * A follow-up whose answer never came may be in the channel: a
		 * webhook takes no nonce, so it is not posted again blindly but
		 * set aside (at most once; a channel post's nonce makes its
		 * repeat harmless, and it is tried again as any failure).
		 */
		f->kind = DELIVER_IN_DOUBT;
	} else if (dc_platform_failure(res)) {
		f->kind = DELIVER_PLATFORM_DOWN;
		f->unauthorized = res->status == 401;
	} else if (res->status == 429) {
		f->kind = DELIVER_RATE_LIMITED;
		f->retry_ms = res->retry_ms;
		f->global = res->global;
	} else {
		f->kind = DELIVER_ROW_FAILED;
	}
}

const struct deliver_platform dc_deliver_platform = {
	.name = "discord",
	.classify = classify,
};

/* The outcome of a finished call into d. */
void dc_settle(const char *what, const struct dc_result *res, struct delivery *d)
{
	char why[sizeof(d->why)] = "";

	memset(d, 0, sizeof(*d));
	if (!dc_ok_status(res))
		dc_describe(what, res, why, sizeof(why));
	deliver_settle(&dc_deliver_platform, NULL, NULL, res, why, d);
}
