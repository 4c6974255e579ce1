/*
 * jsonchat.c - see jsonchat.h. A whole platform in one file because it is
 * small: its API client (jc_call()), its classification of an answer
 * (classify(), the slot of struct deliver_platform), its delivery (the
 * table message edited in place or re-posted when lost, a superseded
 * board dropped, a private view's fallback to the group) and its probe.
 * Which message a view edits, whether a board is superseded and what a
 * failure makes of the row are adapters/deliver.h's; the pause behind the
 * probe is the outbox's.
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
static void describe(const char *what, const struct jc_result *res, char *buf, size_t n)
{
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

static const struct deliver_platform platform = {
	.name = "jsonchat",
	.classify = classify,
};

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

/* Send text (and the view's buttons) to chat, or edit message there when message is not NULL. */
static void post(struct jsonchat *j, const char *chat, const char *message, const json_t *view,
		 const char *text, struct jc_result *res)
{
	json_t *body = json_pack("{ss ss so}", "chat", chat, "text", text, "buttons", labels(view));

	if (message)
		json_object_set_new(body, "id", json_string(message));
	jc_call(j, "POST", message ? "/edit" : "/send", body, res);
	json_decref(body);
}

/* The old table message loses its buttons (a repost moved the table); not retried. */
static void strip(struct jsonchat *j, const char *chat, const char *message)
{
	json_t *body = json_pack("{ss ss}", "chat", chat, "id", message);
	struct jc_result res;

	jc_call(j, "POST", "/strip", body, &res);
	jc_result_release(&res);
	json_decref(body);
}

/*
 * A table view: its message edited in place, posted anew when it has
 * none, when it was lost (404) or on a repost; not sent at all when a
 * later move superseded it. False when the row is settled here (d).
 */
static bool deliver_table(struct jsonchat *j, struct store *s, const struct store_out *row,
			  const json_t *view, struct jc_result *res, struct delivery *d)
{
	enum view_of of = deliver_view_of(view);
	struct store_table t = { 0 };
	const char *text = json_string_value(json_object_get(view, "text"));
	bool repost = json_is_true(json_object_get(view, "repost"));
	const char *id;
	int moves = 0, rc = deliver_message_get(s, platform.name, row->table, row->chat, of, &t);
	bool go = true;

	if (!rc && row->table)
		rc = store_move_last(s, row->table, &moves);
	if (rc && rc != GB_ENOTFOUND) {
		d->result = DELIVERY_RETRY;
		snprintf(d->why, sizeof(d->why), "table message: %s", gb_strerror(rc));
		go = false;
		goto out;
	}
	if (row->table && deliver_superseded(view, moves)) {
		go = false; /* a later move's board is on its way */
		goto out;
	}
	if (t.message[0] && !repost) {
		post(j, row->chat, t.message, view, text ? text : "", res);
		if (res->transport || res->status != 404)
			goto out;
		jc_result_release(res); /* lost: the table is posted afresh */
	}
	post(j, row->chat, NULL, view, text ? text : "", res);
	id = json_string_value(json_object_get(res->body, "id"));
	if (res->status != 200 || !id || !deliver_view_kept(row->table, of))
		goto out;
	rc = deliver_message_set(s, platform.name, row->table, row->chat, of, id, false);
	if (rc && rc != GB_ENOTFOUND)
		fprintf(stderr, "jsonchat: table %lld: message %s not recorded\n", (long long)row->table, id);
	if (repost && t.message[0])
		strip(j, row->chat, t.message);
out:
	store_table_release(&t);
	return go;
}

static void jc_deliver(void *self, struct store *s, const struct store_out *row, struct delivery *d)
{
	struct jsonchat *j = self;
	struct jc_result res = { 0 };
	json_error_t jerr;
	json_t *view = json_loads(row->payload ? row->payload : "", 0, &jerr);
	const char *kind = json_string_value(json_object_get(view, "kind"));
	const char *user = json_string_value(json_object_get(view, "user"));
	const char *text = json_string_value(json_object_get(view, "text"));
	char why[sizeof(d->why)] = "", line[256];

	memset(d, 0, sizeof(*d));
	d->result = DELIVERY_OK;
	if (!json_is_object(view) || !kind) {
		d->result = DELIVERY_GIVE_UP;
		snprintf(d->why, sizeof(d->why), "unreadable reply view");
		goto out;
	}
	if (strcmp(kind, "ack") == 0)
		goto out; /* nothing to say: no press to answer on this platform */
	if (strcmp(kind, "table") == 0) {
		if (!deliver_table(j, s, row, view, &res, d))
			goto out;
	} else if (strcmp(kind, "private") == 0 && user) {
		post(j, user, NULL, view, text ? text : "", &res);
		if (res.status == 403 && strcmp(error_of(&res), "closed") == 0) {
			/* their private chat is closed: the group is told how to open it */
			jc_result_release(&res);
			snprintf(line, sizeof(line), "%s: open a private chat with the bot to see your view", user);
			post(j, row->chat, NULL, NULL, line, &res);
		}
	} else {
		post(j, row->chat, NULL, view, text ? text : "", &res);
	}
	if (res.transport || res.status < 200 || res.status >= 300)
		describe(kind, &res, why, sizeof(why));
	deliver_settle(&platform, &j->env, row, &res, why, d);
out:
	jc_result_release(&res);
	json_decref(view);
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
