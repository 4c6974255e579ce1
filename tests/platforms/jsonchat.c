/*
 * jsonchat.c - see jsonchat.h. A whole platform in one file because it is
 * small: its API client (jc_call()), the slots of its struct
 * deliver_platform (classify, post, edit, strip, lost, closed,
 * tell_closed, describe, release) and of its struct adapter (deliver is
 * deliver_view() over those, probe is GET /ping). Everything a delivery
 * decides - which message a view edits, a lost table posted again, a
 * superseded board dropped, a closed private chat told in the group, what
 * a failure makes of the row - is adapters/deliver.c's; the pause behind
 * the probe is the outbox's.
 */
#include "tests/platforms/jsonchat.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/deliver.h"
#include "games/strbuf.h"

#define JC_TIMEOUT_S 5L

struct jsonchat {
	struct adapter_env env;         /* a copy: what it points to outlives the adapter */
	char api[256];                  /* base address, no trailing slash */
};

/* What one call came back with. */
struct jc_result {
	int transport;                  /* CURLcode: 0 when an answer came */
	long status;
	json_t *body;                   /* the parsed answer (owned), or NULL */
};

static void jc_result_release(struct jc_result *r)
{
	json_decref(r->body);
	memset(r, 0, sizeof(*r));
}

/* One call: method to path with body (may be NULL), its answer into res. */
static void jc_call(struct jsonchat *j, const char *method, const char *path, const json_t *body,
		    struct jc_result *res)
{
	CURL *c = adapter_curl();
	struct strbuf url = { 0 }, answer = { 0 };
	struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
	char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
	json_error_t jerr;

	memset(res, 0, sizeof(*res));
	if (!c) {
		res->transport = CURLE_OUT_OF_MEMORY;
		goto out;
	}
	curl_easy_reset(c);
	sb_addf(&url, "%s%s", j->api, path);
	curl_easy_setopt(c, CURLOPT_URL, sb_str(&url));
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, JC_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, adapter_curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
	if (text)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
	res->transport = (int)curl_easy_perform(c);
	if (!res->transport) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &res->status);
		res->body = json_loads(sb_str(&answer), 0, &jerr);
	}
out:
	curl_slist_free_all(headers);
	free(text);
	sb_release(&url);
	sb_release(&answer);
}

static const char *error_of(const struct jc_result *res)
{
	const char *e = json_string_value(json_object_get(res->body, "error"));

	return e ? e : "";
}

/* A short account of a failed call, for logs and set-aside rows. */
static void describe(const char *what, const void *r, char *buf, size_t n)
{
	const struct jc_result *res = r;

	if (res->transport)
		snprintf(buf, n, "%s: %s", what, curl_easy_strerror((CURLcode)res->transport));
	else
		snprintf(buf, n, "%s: %ld %s", what, res->status, error_of(res));
}

/* Its answer res (a struct jc_result) as the shared delivery policy classes it. */
static void classify(const void *r, struct deliver_failure *f)
{
	const struct jc_result *res = r;

	memset(f, 0, sizeof(*f));
	if (!res->transport && res->status >= 200 && res->status < 300) {
		f->kind = DELIVER_SENT;
	} else if (res->transport || res->status >= 500 || res->status == 401) {
		f->kind = DELIVER_PLATFORM_DOWN;
		f->unauthorized = res->status == 401;
	} else if (res->status == 429) {
		f->kind = DELIVER_RATE_LIMITED;
		f->retry_ms = json_integer_value(json_object_get(res->body, "retry_ms"));
	} else if (res->status == 403 && strcmp(error_of(res), "gone") == 0) {
		f->kind = DELIVER_CHAT_GONE;
	} else {
		f->kind = DELIVER_ROW_FAILED;
	}
}

/* The labels of a view's buttons, in order (caller owns the result). */
static json_t *labels(const json_t *view)
{
	json_t *out = json_array(), *row, *b;
	size_t i, k;

	json_array_foreach(json_object_get(view, "buttons"), i, row)
		json_array_foreach(row, k, b)
			json_array_append(out, json_object_get(b, "label"));
	return out;
}

static void post(void *self, const char *chat, const json_t *view, const char *text, void *res,
		 char *id, size_t cap)
{
	json_t *body = json_pack("{ss ss so}", "chat", chat, "text", text, "buttons", labels(view));
	const struct jc_result *r = res;
	const char *got;

	jc_call(self, "POST", "/send", body, res);
	got = r->status == 200 ? json_string_value(json_object_get(r->body, "id")) : NULL;
	if (id)
		snprintf(id, cap, "%s", got ? got : "");
	json_decref(body);
}

static void edit(void *self, const char *chat, const char *message, const json_t *view, void *res)
{
	const char *text = json_string_value(json_object_get(view, "text"));
	json_t *body = json_pack("{ss ss so ss}", "chat", chat, "text", text ? text : "", "buttons",
				 labels(view), "id", message);

	jc_call(self, "POST", "/edit", body, res);
	json_decref(body);
}

static void strip(void *self, const char *chat, const char *message)
{
	json_t *body = json_pack("{ss ss}", "chat", chat, "id", message);
	struct jc_result res;

	jc_call(self, "POST", "/strip", body, &res);
	jc_result_release(&res);
	json_decref(body);
}

static bool lost(const void *res)
{
	const struct jc_result *r = res;

	return !r->transport && r->status == 404;
}

static bool closed(const void *res)
{
	const struct jc_result *r = res;

	return !r->transport && r->status == 403 && strcmp(error_of(r), "closed") == 0;
}

static void tell_closed(void *self, const char *chat, const char *user, const json_t *view, void *res)
{
	char line[256];

	(void)view;
	snprintf(line, sizeof(line), "%s: open a private chat with the bot to see your view", user);
	post(self, chat, NULL, line, res, NULL, 0);
}

static void release(void *res)
{
	jc_result_release(res);
}

static const struct deliver_platform platform = {
	.name = "jsonchat",
	.classify = classify,
	.res_size = sizeof(struct jc_result),
	.post = post,
	.edit = edit,
	.strip = strip,
	.lost = lost,
	.closed = closed,
	.tell_closed = tell_closed,
	.describe = describe,
	.release = release,
};

static void jc_deliver(void *self, struct store *s, const struct store_out *row, struct delivery *d)
{
	struct jsonchat *j = self;

	deliver_view(&platform, self, &j->env, s, row, d);
}

static int jc_probe(void *self)
{
	struct jc_result res;
	int up;

	jc_call(self, "GET", "/ping", NULL, &res);
	up = res.status == 401 ? PROBE_UNAUTHORIZED : res.transport || res.status >= 500 ? PROBE_DOWN : PROBE_UP;
	jc_result_release(&res);
	return up;
}

static bool jc_configured(const struct config *cfg)
{
	(void)cfg;
	return getenv("GAMEBOT_JSONCHAT_API") != NULL;
}

static int jc_start(const struct adapter_env *env, void **self)
{
	const char *api = getenv("GAMEBOT_JSONCHAT_API");
	struct jsonchat *j;

	*self = NULL;
	if (!api || strlen(api) >= sizeof(j->api))
		return GB_ECONFIG;
	j = calloc(1, sizeof(*j));
	if (!j)
		return GB_ENOMEM;
	j->env = *env;
	snprintf(j->api, sizeof(j->api), "%s", api);
	*self = j;
	return GB_OK;
}

static void jc_stop(void *self)
{
	free(self);
}

const struct adapter jsonchat_adapter = {
	.name = "jsonchat",
	.configured = jc_configured,
	.start = jc_start,
	.deliver = jc_deliver,
	.probe = jc_probe,
	.stop = jc_stop,
};
