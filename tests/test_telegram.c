/*
 * test_telegram.c - the Telegram adapter against a fake Bot API server on
 * 127.0.0.1 (tests/fake_telegram.c): the fake itself, updates read into
 * commands, reply views written as Bot API requests, delivery with every
 * fault the platform answers, the webhook, long polling and telegram-setup.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "tests/fake_telegram.h"

#define TOKEN "123456:TEST-token_xyz"

/* ---- a plain client for the fake ---- */

struct body {
	char buf[16384];
	size_t len;
};

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t len = size * n;

	if (b->len + len >= sizeof(b->buf))
		len = sizeof(b->buf) - 1 - b->len;
	memcpy(b->buf + b->len, p, len);
	b->len += len;
	b->buf[b->len] = '\0';
	return size * n;
}

/* POST json to url; returns the HTTP status (0 when the connection failed). */
static long post(const char *url, const char *json, struct body *out)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	long code = 0;

	assert_non_null(c);
	memset(out, 0, sizeof(*out));
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return code;
}

static long call_fake(struct fake_tg *f, const char *method, const char *json, struct body *out)
{
	char url[256];

	snprintf(url, sizeof(url), "%s/bot%s/%s", fake_tg_url(f), TOKEN, method);
	return post(url, json, out);
}

static json_t *parse(const char *text)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err);

	assert_non_null(j);
	return j;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the fake server ---- */

static void fake_records_calls_and_answers(void **state)
{
	struct fake_tg *f;
	struct body b;
	json_t *j, *body;
	char method[64];
	int status;

	(void)state;
	assert_int_equal(fake_tg_start(&f, TOKEN, "gb_bot"), 0);
	assert_int_equal(call_fake(f, "sendMessage", "{\"chat_id\":-100,\"text\":\"hi\"}", &b), 200);
	j = parse(b.buf);
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "result"), "message_id")),
			 100);
	json_decref(j);
	assert_int_equal(call_fake(f, "sendMessage", "{\"chat_id\":-100,\"text\":\"again\"}", &b), 200);
	j = parse(b.buf);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "result"), "message_id")),
			 101);
	json_decref(j);
	assert_int_equal(call_fake(f, "getMe", "{}", &b), 200);
	assert_non_null(strstr(b.buf, "\"username\":\"gb_bot\""));

	/* a wrong token is refused like the real API does */
	{
		char url[256];

		snprintf(url, sizeof(url), "%s/botWRONG/getMe", fake_tg_url(f));
		assert_int_equal(post(url, "{}", &b), 401);
	}

	assert_int_equal(fake_tg_count(f, NULL), 3);
	assert_int_equal(fake_tg_count(f, "sendMessage"), 2);
	body = fake_tg_call(f, 1, method, sizeof(method), &status);
	assert_string_equal(method, "sendMessage");
	assert_int_equal(status, 200);
	assert_string_equal(json_string_value(json_object_get(body, "text")), "again");
	json_decref(body);
	body = fake_tg_nth(f, "sendMessage", 0);
	assert_string_equal(json_string_value(json_object_get(body, "text")), "hi");
	json_decref(body);
	assert_null(fake_tg_nth(f, "sendMessage", 2));
	fake_tg_clear(f);
	assert_int_equal(fake_tg_count(f, NULL), 0);
	fake_tg_free(f);
}

static void fake_faults(void **state)
{
	struct fake_tg *f;
	struct body b;
	json_t *j;
	int64_t t0;

	(void)state;
	assert_int_equal(fake_tg_start(&f, TOKEN, NULL), 0);
	fake_tg_fault(f, "sendMessage", 1, 1, FAKE_TG_429, 7);
	fake_tg_fault(f, "editMessageText", 0, 1, FAKE_TG_NOT_MODIFIED, 0);
	fake_tg_fault(f, "editMessageText", 0, 1, FAKE_TG_NOT_FOUND, 0);
	fake_tg_fault(f, "sendMessage", 0, 1, FAKE_TG_403, 0);
	fake_tg_fault(f, NULL, 0, 1, FAKE_TG_500, 0);

	/* the first sendMessage passes the 429 (skip 1) but meets the 403 */
	assert_int_equal(call_fake(f, "sendMessage", "{\"chat_id\":1,\"text\":\"a\"}", &b), 403);
	assert_non_null(strstr(b.buf, "bot can't initiate conversation with a user"));
	assert_int_equal(call_fake(f, "sendMessage", "{\"chat_id\":1,\"text\":\"a\"}", &b), 429);
	j = parse(b.buf);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "parameters"),
							    "retry_after")), 7);
	json_decref(j);
	assert_int_equal(call_fake(f, "editMessageText", "{\"chat_id\":1,\"message_id\":5}", &b), 400);
	assert_non_null(strstr(b.buf, "message is not modified"));
	assert_int_equal(call_fake(f, "editMessageText", "{\"chat_id\":1,\"message_id\":5}", &b), 400);
	assert_non_null(strstr(b.buf, "message to edit not found"));
	/* the any-method 500 is next in line for everything */
	assert_int_equal(call_fake(f, "getMe", "{}", &b), 500);
	assert_int_equal(call_fake(f, "getMe", "{}", &b), 200);
	assert_int_equal(call_fake(f, "sendMessage", "{\"chat_id\":1,\"text\":\"a\"}", &b), 200);

	fake_tg_fault(f, "getMe", 0, 1, FAKE_TG_SLOW, 300);
	t0 = now_ms();
	assert_int_equal(call_fake(f, "getMe", "{}", &b), 200);
	assert_true(now_ms() - t0 >= 290);
	fake_tg_free(f);
}

static void fake_members_and_updates(void **state)
{
	struct fake_tg *f;
	struct body b;
	json_t *j, *res;
	int64_t t0;

	(void)state;
	assert_int_equal(fake_tg_start(&f, TOKEN, NULL), 0);
	fake_tg_member(f, "-100", "7", "creator");
	assert_int_equal(call_fake(f, "getChatMember", "{\"chat_id\":-100,\"user_id\":7}", &b), 200);
	assert_non_null(strstr(b.buf, "\"status\":\"creator\""));
	assert_int_equal(call_fake(f, "getChatMember", "{\"chat_id\":-100,\"user_id\":8}", &b), 200);
	assert_non_null(strstr(b.buf, "\"status\":\"member\""));

	assert_int_equal(fake_tg_push_update(f, "{\"message\":{\"text\":\"/roll\"}}"), 1000);
	assert_int_equal(fake_tg_push_update(f, "{\"message\":{\"text\":\"/move 1\"}}"), 1001);
	assert_int_equal(call_fake(f, "getUpdates", "{\"offset\":0,\"timeout\":0}", &b), 200);
	j = parse(b.buf);
	res = json_object_get(j, "result");
	assert_int_equal(json_array_size(res), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(res, 0), "update_id")), 1000);
	json_decref(j);
	/* offset 1001 confirms 1000: it is not served again */
	assert_int_equal(call_fake(f, "getUpdates", "{\"offset\":1001,\"timeout\":0}", &b), 200);
	j = parse(b.buf);
	res = json_object_get(j, "result");
	assert_int_equal(json_array_size(res), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(res, 0), "update_id")), 1001);
	json_decref(j);
	/* nothing left: a long poll waits out its timeout */
	t0 = now_ms();
	assert_int_equal(call_fake(f, "getUpdates", "{\"offset\":1002,\"timeout\":1}", &b), 200);
	assert_true(now_ms() - t0 >= 900);
	assert_non_null(strstr(b.buf, "\"result\":[]"));
	fake_tg_free(f);
}

static void fake_down_and_up(void **state)
{
	struct fake_tg *f;
	struct body b;
	int port;

	(void)state;
	assert_int_equal(fake_tg_start(&f, TOKEN, NULL), 0);
	port = fake_tg_port(f);
	fake_tg_down(f);
	assert_int_equal(call_fake(f, "getMe", "{}", &b), 0);
	assert_int_equal(fake_tg_up(f), 0);
	assert_int_equal(fake_tg_port(f), port);
	assert_int_equal(call_fake(f, "getMe", "{}", &b), 200);
	/* the calls refused while down were never recorded */
	assert_int_equal(fake_tg_count(f, NULL), 1);
	fake_tg_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fake_records_calls_and_answers),
		cmocka_unit_test(fake_faults),
		cmocka_unit_test(fake_members_and_updates),
		cmocka_unit_test(fake_down_and_up),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
