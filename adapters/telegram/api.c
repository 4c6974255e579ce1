/*
 * api.c - the Bot API over HTTP: tg_api() makes one call and reads its
 * answer (status, "ok", result, retry_after, migrate_to) into a struct
 * tg_result; the bot's own username and inline mode learned with getMe;
 * the adapter's log lines. The token is in every URL and is never logged.
 */
#include "adapters/telegram/internal.h"

const char *const tg_allowed_updates[TG_UPDATE_KINDS] = {
	"message", "callback_query", "inline_query", "chosen_inline_result", "my_chat_member",
};

void tg_result_release(struct tg_result *r)
{
	json_decref(r->result);
	memset(r, 0, sizeof(*r));
}


static int progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		    curl_off_t ulnow)
{
	const atomic_int *abort_flag = arg;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return abort_flag && atomic_load(abort_flag);
}

/* Read an API answer (any status) into res. */
static void read_answer(const struct strbuf *sb, struct tg_result *res)
{
	json_error_t jerr;
	/* getUpdates hands over what people typed: \u0000 included */
	json_t *j = json_loadb(sb_str(sb), sb->len, JSON_ALLOW_NUL, &jerr), *params;
	const char *desc;

	res->ok = json_is_true(json_object_get(j, "ok")) && res->status == 200;
	if (res->ok)
		res->result = json_incref(json_object_get(j, "result"));
	desc = json_string_value(json_object_get(j, "description"));
	utf8_copy(res->description, sizeof(res->description), desc ? desc : "",
		  desc ? strlen(desc) : 0);
	params = json_object_get(j, "parameters");
	res->retry_after = json_integer_value(json_object_get(params, "retry_after"));
	tg_id_text(json_object_get(params, "migrate_to_chat_id"), res->migrate_to, sizeof(res->migrate_to));
	json_decref(j);
}

/*
 * POST body (JSON) to $api/bot<token>/<method> with the calling thread's
 * handle, for timeout_s at most and never past the thread's delivery
 * deadline (adapter_call_ms(): with too little left, no call is made and
 * res says so). abort_flag (may be NULL) ends the call early when it
 * becomes non-zero. The URL holds the token: it never reaches a log line,
 * and curl's own messages (curl_easy_strerror) do not include it.
 */
void tg_api(struct telegram *t, const char *method, const json_t *body, long timeout_s,
	    const atomic_int *abort_flag, struct tg_result *res)
{
	CURL *c = adapter_curl();
	struct curl_slist *h = NULL;
	struct strbuf url = { 0 }, in = { 0 };
	char *text = NULL;
	long timeout_ms = adapter_call_ms(timeout_s * 1000);

	memset(res, 0, sizeof(*res));
	if (!timeout_ms) {
		res->transport = CURLE_OPERATION_TIMEDOUT;
		res->not_made = true;
		return;
	}
	text = json_dumps(body, JSON_COMPACT);
	h = curl_slist_append(h, "Content-Type: application/json");
	if (!c || !text || !h) {
		res->transport = CURLE_OUT_OF_MEMORY;
		goto out;
	}
	sb_addf(&url, "%s/bot%s/%s", t->api, t->token, method);
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, sb_str(&url));
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, adapter_curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 5L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (abort_flag) {
		curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
		curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)abort_flag);
		curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	}
	res->transport = (int)curl_easy_perform(c);
	res->no_connection = res->transport && adapter_no_connection(res->transport, c);
	res->sent = res->transport && adapter_request_sent(res->transport, c, strlen(text));
	if (res->transport)
		goto out;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
	read_answer(&in, res);
out:
	curl_slist_free_all(h);
	/* setWebhook's body holds the webhook secret */
	if (text)
		sodium_memzero(text, strlen(text));
	free(text);
	adapter_sb_wipe(&url);
	sb_release(&in);
}

/* A short account of a failed call for logs and set-aside rows: no URL, no token. */
void tg_describe(const char *method, const struct tg_result *res, char *buf, size_t n)
{
	struct strbuf sb = { 0 };

	if (res->transport)
		sb_addf(&sb, "%s: %s", method, curl_easy_strerror((CURLcode)res->transport));
	else
		sb_addf(&sb, "%s: %ld %s", method, res->status, res->description);
	utf8_copy(buf, n, sb_str(&sb), sb.len);
	sb_release(&sb);
}

void tg_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tg_log(const char *fmt, ...)
{
	struct strbuf sb = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	gb_log("telegram: %s", sb_str(&sb));
	sb_release(&sb);
}

/* Learn the bot's username with getMe, at most once a minute until it is known. */
void tg_ensure_username(struct telegram *t)
{
	struct tg_result res;
	int64_t now = bot_now_ms();
	json_t *body;
	const char *name;

	pthread_mutex_lock(&t->lock);
	if (t->username[0] || (t->username_tried_ms && now - t->username_tried_ms < 60000)) {
		pthread_mutex_unlock(&t->lock);
		return;
	}
	t->username_tried_ms = now;
	pthread_mutex_unlock(&t->lock);
	body = json_object();
	tg_api(t, "getMe", body, TG_CALL_TIMEOUT_S, NULL, &res);
	json_decref(body);
	name = json_string_value(json_object_get(res.result, "username"));
	if (res.ok && name) {
		pthread_mutex_lock(&t->lock);
		snprintf(t->username, sizeof(t->username), "%s", name);
		/* without it, "My cards" and "type @bot" would open nothing */
		t->no_inline = !json_is_true(json_object_get(res.result, "supports_inline_queries"));
		pthread_mutex_unlock(&t->lock);
	} else {
		char why[200];

		tg_describe("getMe", &res, why, sizeof(why));
		tg_log("cannot learn the bot's username (%s); commands for other bots are not told apart until then",
		       why);
	}
	tg_result_release(&res);
}

void tg_username_copy(struct telegram *t, char *buf, size_t n)
{
	pthread_mutex_lock(&t->lock);
	snprintf(buf, n, "%s", t->username);
	pthread_mutex_unlock(&t->lock);
}

/* Is the bot's inline mode on (as far as getMe has told; on until it has)? */
bool tg_inline_on(struct telegram *t)
{
	bool on;

	pthread_mutex_lock(&t->lock);
	on = !t->no_inline;
	pthread_mutex_unlock(&t->lock);
	return on;
}
