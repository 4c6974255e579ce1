/*
 * test_telegram.c - the Telegram adapter against a fake Bot API server on
 * 127.0.0.1 (tests/fake_telegram.c): the fake itself, updates read into
 * commands, reply views written as Bot API requests, delivery with every
 * fault the platform answers, the webhook, long polling and telegram-setup.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/adapter.h"
#include "adapters/http.h"
#include "adapters/outbox.h"
#include "adapters/telegram.h"
#include "bot/base/config.h"
#include "bot/base/limit.h"
#include "bot/base/metrics.h"
#include "bot/commands.h"
#include "bot/commands/choices.h"
#include "games/callbreak.h"
#include "games/game.h"
#include "games/strbuf.h"
#include "games/utf8.h"
#include "store/store.h"
#include "tests/fake_telegram.h"
#include "tests/rawhttp.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

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

/*
 * A client killed while its request is on its way: the fake may read and
 * record the request after the client is gone. The crash harness marks
 * each kill with the count of calls so far, to tell a repeat across the
 * kill from a message posted twice; a mark taken at once missed such a
 * last call, and its repeat after the restart was reported as posted
 * twice with no kill between. Taken after fake_tg_settle(), it counts.
 */
static void fake_settles_a_killed_clients_last_call(void **state)
{
	static const char body[] = "{\"chat_id\":5,\"text\":\"spades K 10 9 8 4\"}";
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct fake_tg *f;
	char req[512];
	int len, fd, status = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(fake_tg_start(&f, TOKEN, NULL), 0);
	a.sin_port = htons((uint16_t)strtol(strrchr(fake_tg_url(f), ':') + 1, NULL, 10));
	len = snprintf(req, sizeof(req), "POST /bot%s/sendMessage HTTP/1.1\r\nHost: t\r\n"
		       "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
		       TOKEN, sizeof(body) - 1, body);
	/* the fake is slow to get to it, as on a loaded machine */
	fake_tg_hold(f, true);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* the service: sends its call, and is killed waiting for the answer */
		if (write(fd, req, (size_t)len) != len)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fd);
	/* its bytes are on their way: the connection is the fake's until it reads them */
	for (int i = 0; i < 200 && fake_tg_settle(f, 0); i++)
		usleep(10000);
	usleep(100000);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	/* what a mark taken at once sees: not the call */
	assert_int_equal(fake_tg_count(f, "sendMessage"), 0);
	fake_tg_hold(f, false);
	assert_true(fake_tg_settle(f, 10000));
	/* the call the dead client made, answered 200 to nobody: delivered, before the kill's mark */
	assert_int_equal(fake_tg_count_status(f, "sendMessage", 200), 1);
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


/* ---- updates in ---- */

static void parse_ok(const char *json, struct tg_update *u)
{
	assert_int_equal(tg_update_parse(json, strlen(json), "GameBot", 1234, u), GB_OK);
}

static void update_message_commands(void **state)
{
	struct tg_update u;

	(void)state;
	parse_ok("{\"update_id\":5,\"message\":{\"message_id\":1,\"from\":{\"id\":77,\"first_name\":\"Asha\","
		 "\"last_name\":\"Rai\"},\"chat\":{\"id\":-1001,\"type\":\"supergroup\"},\"text\":\"/move 2\"}}",
		 &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_int_equal(u.update_id, 5);
	assert_string_equal(u.cmd.platform, "telegram");
	assert_string_equal(u.cmd.chat, "-1001");
	assert_string_equal(u.cmd.user, "77");
	assert_string_equal(u.cmd.user_name, "Asha Rai");
	assert_string_equal(u.cmd.verb, "move");
	assert_string_equal(u.cmd.args, "2");
	assert_string_equal(u.cmd.update_id, "5");
	assert_int_equal(u.cmd.now_ms, 1234);
	assert_string_equal(u.chat_type, "supergroup");
	assert_false(u.button);
	assert_string_equal(u.reply, "");

	/* addressed to us (any case), or to another bot: ignored */
	parse_ok("{\"update_id\":6,\"message\":{\"from\":{\"id\":77,\"username\":\"asha\"},"
		 "\"chat\":{\"id\":-5,\"type\":\"group\"},\"text\":\"/Roll@gamebot\"}}", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_string_equal(u.cmd.verb, "roll");
	assert_string_equal(u.cmd.user_name, "asha");
	parse_ok("{\"update_id\":7,\"message\":{\"from\":{\"id\":77,\"first_name\":\"A\"},"
		 "\"chat\":{\"id\":-5,\"type\":\"group\"},\"text\":\"/roll@OtherBot\"}}", &u);
	assert_int_equal(u.kind, TG_IGNORE);
	/* plain talk, a message without a sender, a number after the slash */
	parse_ok("{\"update_id\":8,\"message\":{\"from\":{\"id\":77,\"first_name\":\"A\"},"
		 "\"chat\":{\"id\":-5},\"text\":\"good game\"}}", &u);
	assert_int_equal(u.kind, TG_IGNORE);
	parse_ok("{\"update_id\":9,\"message\":{\"chat\":{\"id\":-5},\"text\":\"/roll\"}}", &u);
	assert_int_equal(u.kind, TG_IGNORE);
	parse_ok("{\"update_id\":10,\"message\":{\"from\":{\"id\":1},\"chat\":{\"id\":-5},\"text\":\"/123\"}}",
		 &u);
	assert_int_equal(u.kind, TG_IGNORE);
}

static void update_callback_query(void **state)
{
	struct tg_update u;

	(void)state;
	parse_ok("{\"update_id\":11,\"callback_query\":{\"id\":\"4382bfdwdsb323b2d9\",\"from\":{\"id\":77,"
		 "\"first_name\":\"Asha\"},\"message\":{\"message_id\":100,\"chat\":{\"id\":-1001,"
		 "\"type\":\"supergroup\"}},\"data\":\"42:17:move 3\"}}", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_true(u.button);
	assert_string_equal(u.reply, "4382bfdwdsb323b2d9");
	assert_int_equal(u.button_table, 42);
	assert_int_equal(u.button_turn, 17);
	assert_string_equal(u.cmd.verb, "move");
	assert_string_equal(u.cmd.args, "3");
	assert_string_equal(u.cmd.chat, "-1001");

	/* forged data: a press the router will refuse, still answered */
	parse_ok("{\"update_id\":12,\"callback_query\":{\"id\":\"q2\",\"from\":{\"id\":77},"
		 "\"message\":{\"chat\":{\"id\":-1001}},\"data\":\"rm -rf\"}}", &u);
	assert_int_equal(u.kind, TG_COMMAND);
	assert_string_equal(u.reply, "q2");
	assert_int_equal(u.button_table, -1);
	assert_int_equal(u.button_turn, -1);
	assert_string_equal(u.cmd.verb, "board");
}

static void update_inline_and_others(void **state)
{
	struct tg_update u;

	(void)state;
	parse_ok("{\"update_id\":13,\"inline_query\":{\"id\":\"iq1\",\"from\":{\"id\":77,\"first_name\":\"A\"},"
		 "\"query\":\"\",\"offset\":\"\",\"chat_type\":\"supergroup\"}}", &u);
	assert_int_equal(u.kind, TG_INLINE_QUERY);
	assert_string_equal(u.query_id, "iq1");
	assert_string_equal(u.cmd.user, "77");
	assert_string_equal(u.chat_type, "supergroup");

	parse_ok("{\"update_id\":14,\"chosen_inline_result\":{\"result_id\":\"42:20:play QS\","
		 "\"from\":{\"id\":77,\"first_name\":\"A\"},\"query\":\"\"}}", &u);
	assert_int_equal(u.kind, TG_CHOSEN);
	assert_int_equal(u.button_table, 42);
	assert_int_equal(u.button_turn, 20);
	assert_string_equal(u.cmd.verb, "play");
	assert_string_equal(u.cmd.args, "QS");
	/* picked in no chat: answered from the chooser's own, and only their seat may move */
	assert_string_equal(u.cmd.chat, "77");
	assert_true(u.cmd.no_place);

	parse_ok("{\"update_id\":15,\"my_chat_member\":{\"chat\":{\"id\":-5,\"type\":\"group\"},"
		 "\"from\":{\"id\":77},\"old_chat_member\":{\"status\":\"left\"},"
		 "\"new_chat_member\":{\"status\":\"member\",\"user\":{\"id\":4242}}}}", &u);
	assert_int_equal(u.kind, TG_MEMBER);
	assert_string_equal(u.cmd.chat, "-5");
	assert_string_equal(u.member_status, "member");

	parse_ok("{\"update_id\":16,\"message\":{\"chat\":{\"id\":-5,\"type\":\"group\"},"
		 "\"from\":{\"id\":77},\"migrate_to_chat_id\":-1009}}", &u);
	assert_int_equal(u.kind, TG_MIGRATE);
	assert_string_equal(u.cmd.chat, "-5");
	assert_string_equal(u.migrate_to, "-1009");

	/* every other type is acknowledged and ignored */
	parse_ok("{\"update_id\":17,\"edited_message\":{\"chat\":{\"id\":-5},\"text\":\"/roll\"}}", &u);
	assert_int_equal(u.kind, TG_IGNORE);
	parse_ok("{\"update_id\":18,\"poll\":{\"id\":\"p\"}}", &u);
	assert_int_equal(u.kind, TG_IGNORE);
	parse_ok("{\"update_id\":19}", &u);
	assert_int_equal(u.kind, TG_IGNORE);

	/* malformed */
	assert_int_equal(tg_update_parse("{\"update_id\":", 13, NULL, 0, &u), GB_EPARSE);
	assert_int_equal(tg_update_parse("[1]", 3, NULL, 0, &u), GB_EPARSE);
	/* a JSON object without a usable update id: well formed, not used */
	assert_int_equal(tg_update_parse("{\"update_id\":\"7\"}", 17, NULL, 0, &u), GB_OK);
	assert_int_equal(u.kind, TG_IGNORE);
	assert_int_equal(tg_update_parse("", 0, NULL, 0, &u), GB_EPARSE);
}

static void callback_data_round_trip(void **state)
{
	char buf[TG_CALLBACK_MAX + 1], cmd[80];
	int64_t table;
	int turn;

	(void)state;
	assert_int_equal(tg_callback_encode(42, 17, "/move b2 c3", buf, sizeof(buf)), GB_OK);
	assert_string_equal(buf, "42:17:move b2 c3");
	assert_int_equal(tg_callback_decode(buf, &table, &turn, cmd, sizeof(cmd)), GB_OK);
	assert_int_equal(table, 42);
	assert_int_equal(turn, 17);
	assert_string_equal(cmd, "/move b2 c3");
	/* the largest ids still leave room for every command a table shows */
	assert_int_equal(tg_callback_encode(INT64_C(999999999999), 99999, "/addbot", buf, sizeof(buf)),
			 GB_OK);
	/* too long for 64 bytes: refused, never cut into another command */
	assert_int_equal(tg_callback_encode(1, 1, "/settings ludo six_bonus on and a great many more words than fit here",
					    buf, sizeof(buf)), GB_EARGS);
	assert_int_equal(tg_callback_encode(1, 1, "roll", buf, sizeof(buf)), GB_EARGS);
	assert_int_equal(tg_callback_decode("42:17:", &table, &turn, cmd, sizeof(cmd)), GB_EPARSE);
	assert_int_equal(tg_callback_decode("42:x:roll", &table, &turn, cmd, sizeof(cmd)), GB_EPARSE);
	assert_int_equal(tg_callback_decode(":1:roll", &table, &turn, cmd, sizeof(cmd)), GB_EPARSE);
	assert_int_equal(tg_callback_decode("-1:1:roll", &table, &turn, cmd, sizeof(cmd)), GB_EPARSE);
	assert_int_equal(tg_callback_decode("1234567890123456789:1:roll", &table, &turn, cmd, sizeof(cmd)),
			 GB_EPARSE);
}

/* ---- reply views out ---- */

static json_t *render(const char *view, const char *chat, const char *msg, struct tg_call *c)
{
	json_t *v = parse(view);

	assert_int_equal(tg_render(v, chat, msg, c), GB_OK);
	json_decref(v);
	return c->body;
}

static void render_table_message(void **state)
{
	struct tg_call c;
	json_t *b, *kb;

	(void)state;
	b = render("{\"kind\":\"table\",\"text\":\"a<b & c>d\",\"table\":42,\"turn\":17,\"lang\":\"en\","
		   "\"buttons\":[[{\"label\":\"Roll\",\"cmd\":\"/roll\"},{\"label\":\"Move 1\","
		   "\"cmd\":\"/move 1\"}],[{\"label\":\"Show my hand\",\"cmd\":\"/hand\"}]]}",
		   "-1001", "", &c);
	assert_string_equal(c.method, "sendMessage");
	assert_string_equal(c.chat, "-1001");
	assert_int_equal(json_integer_value(json_object_get(b, "chat_id")), -1001);
	assert_string_equal(json_string_value(json_object_get(b, "parse_mode")), "HTML");
	assert_string_equal(json_string_value(json_object_get(b, "text")),
			    "<pre>a&lt;b &amp; c&gt;d</pre>");
	kb = json_object_get(json_object_get(b, "reply_markup"), "inline_keyboard");
	assert_int_equal(json_array_size(kb), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_array_get(kb, 0), 1),
							      "callback_data")), "42:17:move 1");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_array_get(kb, 1), 0),
							      "text")), "Show my hand");
	tg_call_release(&c);

	/* posted once: then edited in place, and without buttons the old ones go */
	b = render("{\"kind\":\"table\",\"text\":\"over\",\"table\":42,\"turn\":30}", "-1001", "100", &c);
	assert_string_equal(c.method, "editMessageText");
	assert_int_equal(json_integer_value(json_object_get(b, "message_id")), 100);
	assert_int_equal(json_array_size(json_object_get(json_object_get(b, "reply_markup"),
							  "inline_keyboard")), 0);
	tg_call_release(&c);
}

static void render_other_kinds(void **state)
{
	struct tg_call c;
	json_t *b;

	(void)state;
	b = render("{\"kind\":\"public\",\"text\":\"Asha bid 3\",\"table\":4}", "-5", "", &c);
	assert_string_equal(c.method, "sendMessage");
	assert_string_equal(json_string_value(json_object_get(b, "text")), "Asha bid 3");
	assert_null(json_object_get(b, "reply_markup"));
	tg_call_release(&c);

	b = render("{\"kind\":\"private\",\"user\":\"77\",\"text\":\"spades A♠\",\"table\":4}", "-5", "", &c);
	assert_string_equal(c.method, "sendMessage");
	assert_string_equal(c.chat, "77");
	assert_int_equal(json_integer_value(json_object_get(b, "chat_id")), 77);
	assert_string_equal(json_string_value(json_object_get(b, "text")), "<pre>spades A♠</pre>");
	tg_call_release(&c);

	/* a "My hand" press: the hand comes back as an alert on the button */
	b = render("{\"kind\":\"private\",\"user\":\"77\",\"text\":\"spades A♠\",\"reply\":\"q9\"}", "-5", "",
		   &c);
	assert_string_equal(c.method, "answerCallbackQuery");
	assert_string_equal(c.chat, "");
	assert_string_equal(json_string_value(json_object_get(b, "callback_query_id")), "q9");
	assert_string_equal(json_string_value(json_object_get(b, "text")), "spades A♠");
	assert_true(json_is_true(json_object_get(b, "show_alert")));
	tg_call_release(&c);

	b = render("{\"kind\":\"alert\",\"user\":\"77\",\"text\":\"Not your turn\",\"reply\":\"q1\"}", "-5",
		   "", &c);
	assert_string_equal(c.method, "answerCallbackQuery");
	assert_string_equal(json_string_value(json_object_get(b, "text")), "Not your turn");
	tg_call_release(&c);

	b = render("{\"kind\":\"ack\",\"reply\":\"q2\"}", "-5", "", &c);
	assert_string_equal(c.method, "answerCallbackQuery");
	assert_null(json_object_get(b, "text"));
	assert_null(json_object_get(b, "show_alert"));
	tg_call_release(&c);

	/* without a handle: an alert is a line in the chat, an ack is nothing */
	b = render("{\"kind\":\"alert\",\"user\":\"77\",\"text\":\"No <game>\"}", "-5", "", &c);
	assert_string_equal(c.method, "sendMessage");
	assert_string_equal(json_string_value(json_object_get(b, "text")), "No &lt;game&gt;");
	tg_call_release(&c);
	render("{\"kind\":\"ack\"}", "-5", "", &c);
	assert_string_equal(c.method, "");
	assert_null(c.body);

	{
		json_t *v = parse("{\"kind\":\"poem\",\"text\":\"x\"}");

		assert_int_equal(tg_render(v, "-5", "", &c), GB_EPARSE);
		json_decref(v);
		v = parse("{\"text\":\"x\"}");
		assert_int_equal(tg_render(v, "-5", "", &c), GB_EPARSE);
		json_decref(v);
	}
}

static void render_limits(void **state)
{
	struct strbuf sb = { 0 };
	struct tg_call c;
	json_t *v, *b;
	const char *text;
	char *view;

	(void)state;
	/* 5000 Devanagari letters (3 bytes, 1 unit each) and then some emoji (2 units) */
	for (int i = 0; i < 5000; i++)
		sb_add(&sb, "क");
	v = json_pack("{ss ss}", "kind", "public", "text", sb_str(&sb));
	view = json_dumps(v, 0);
	json_decref(v);
	b = render(view, "-5", "", &c);
	free(view);
	text = json_string_value(json_object_get(b, "text"));
	assert_int_equal(strlen(text), 4095 * 3 + strlen("…"));
	assert_true(strcmp(text + 4095 * 3, "…") == 0);
	tg_call_release(&c);
	sb_release(&sb);

	assert_int_equal(utf8_cut_utf16("ab🂡c", 3), 2);
	assert_int_equal(utf8_cut_utf16("ab🂡c", 4), 6);
	assert_int_equal(utf8_cut_utf16("ab🂡c", 99), 7);

	/* an alert is cut to 200 characters */
	for (int i = 0; i < 300; i++)
		sb_add(&sb, "x");
	v = json_pack("{ss ss ss}", "kind", "alert", "text", sb_str(&sb), "reply", "q");
	assert_int_equal(tg_render(v, "-5", "", &c), GB_OK);
	json_decref(v);
	text = json_string_value(json_object_get(c.body, "text"));
	assert_int_equal(strlen(text), 199 + strlen("…"));
	tg_call_release(&c);
	sb_release(&sb);

	/* a button whose command cannot fit in callback_data is left out, its row with it */
	b = render("{\"kind\":\"table\",\"text\":\"t\",\"table\":1,\"turn\":1,\"buttons\":[[{\"label\":\"x\","
		   "\"cmd\":\"/settings callbreak rounds 5 and far too many words to fit in sixty-four\"}],"
		   "[{\"label\":\"ok\",\"cmd\":\"/roll\"}]]}", "-5", "", &c);
	assert_int_equal(json_array_size(json_object_get(json_object_get(b, "reply_markup"),
							  "inline_keyboard")), 1);
	tg_call_release(&c);

	v = tg_chat_id("@channel");
	assert_true(json_is_string(v));
	json_decref(v);
	v = tg_chat_id("-1001234567890");
	assert_int_equal(json_integer_value(v), INT64_C(-1001234567890));
	json_decref(v);
}

/*
 * A call slow on its way is counted from when its answer came: the next
 * message to the chat, and the thirty-first overall, wait from then, so
 * they cannot reach Telegram closer together than its limits allow.
 */
static void pacing_counts_arrival(void **state)
{
	struct tg_pace *p = tg_pace_new();
	int64_t t = 1700000000000;
	char chat[32];
	bool global;

	(void)state;
	assert_int_equal(tg_pace_take(p, "-5", t, &global), 0);
	tg_pace_sent(p, "-5", t, t + 400);
	assert_int_equal(tg_pace_take(p, "-5", t + 1100, &global), 400);
	assert_false(global);
	for (int i = 0; i < 29; i++) {
		snprintf(chat, sizeof(chat), "-%d", 100 + i);
		assert_int_equal(tg_pace_take(p, chat, t + 10, &global), 0);
	}
	/* the overall second runs from the slow call's answer too */
	assert_int_equal(tg_pace_take(p, "-99", t + 1050, &global), 400);
	assert_true(global);
	tg_pace_sent(NULL, "-5", t, t + 1);
	tg_pace_free(p);
}

/*
 * A send slower than the thirty made after it still counts: its answer,
 * come once it has left the ring of the last thirty, starts an overall
 * second of its own.
 */
static void pacing_counts_slowest_arrival(void **state)
{
	struct tg_pace *p = tg_pace_new();
	int64_t t = 1700000000000, now;
	char chat[32];
	bool global;

	(void)state;
	assert_int_equal(tg_pace_take(p, "-7", t, &global), 0);
	for (int i = 0; i < 30; i++) { /* Telegram's thirty a second */
		snprintf(chat, sizeof(chat), "-%d", 200 + i);
		now = t + 100 + i * 40;
		assert_int_equal(tg_pace_take(p, chat, now, &global), 0);
		tg_pace_sent(p, chat, now, now + 1);
	}
	/* thirty sends after it, the first is answered, 2 s after it was made */
	tg_pace_sent(p, "-7", t, t + 2000);
	assert_int_equal(tg_pace_take(p, "-8", t + 2100, &global), 950);
	assert_true(global);
	assert_int_equal(tg_pace_take(p, "-8", t + 3050, &global), 0);
	tg_pace_free(p);
}

/*
 * A group's lines go in the room its boards leave: a line between two
 * boards does not move the next board's step, while the minute has room;
 * a flood of lines spends the boards' steps. The overall second is spent
 * evenly after its burst.
 */
static void pacing_lines_and_overall(void **state)
{
	struct tg_pace *p = tg_pace_new();
	int64_t t = 1700000000000, now = t, board = 0;
	bool global;
	char chat[32];
	int lines = 0;

	(void)state;
	/* a table in full play: a board at every step, each followed by a line while there is room */
	for (int i = 0; i < 40; i++) {
		while (tg_pace_take(p, "-5", now, &global))
			now += 10;
		assert_true(!board || now - board <= 3600); /* never a long silence */
		board = now;
		if (!tg_pace_take_line(p, "-5", now + 1100, &global))
			lines++;
		now += 10;
	}
	/* some lines went without moving a board; not all of them (the minute has 20) */
	assert_true(lines >= 3);
	assert_true(lines < 40);
	tg_pace_free(p);

	/*
	 * After the burst the next board waits for its step (t + 3600); a
	 * line goes now, and the board then waits only for the chat's second.
	 * A board in the line's place would have put the next one a step on.
	 */
	p = tg_pace_new();
	for (int i = 0; i < 3; i++)
		assert_int_equal(tg_pace_take(p, "-6", t + i * 1100, &global), 0);
	assert_int_equal(tg_pace_take(p, "-6", t + 3300, &global), 300);
	assert_int_equal(tg_pace_take_line(p, "-6", t + 3300, &global), 0);
	assert_int_equal(tg_pace_take(p, "-6", t + 4000, &global), 400);
	assert_int_equal(tg_pace_take(p, "-6", t + 4400, &global), 0);
	/* the bucket: four steps taken (t + 14400), two of them may be ahead */
	assert_int_equal(tg_pace_take(p, "-6", t + 5500, &global), 14400 - 5500 - 2 * 3600);
	tg_pace_free(p);

	/*
	 * Overall, chats always waiting: thirty at once after a quiet spell,
	 * never more than thirty in any second, and once the stream settles a
	 * message every 36 ms or so, not thirty at once and then a wait.
	 */
	p = tg_pace_new();
	{
		static int64_t at[400];
		int n = 0, settled = 0;

		for (now = t; now < t + 8000 && n < 400; now++) {
			snprintf(chat, sizeof(chat), "-%d", 1000 + n);
			if (tg_pace_take(p, chat, now, &global))
				continue;
			at[n++] = now;
		}
		assert_true(n >= 8 * 27);
		for (int i = 30; i < n; i++)
			assert_true(at[i] - at[i - 30] >= 1000);
		for (int i = 1; i < n; i++)
			if (at[i] - t >= 4000) {
				assert_true(at[i] - at[i - 1] >= 36 && at[i] - at[i - 1] <= 40);
				settled++;
			}
		assert_true(settled > 80);
	}
	tg_pace_free(p);
}

static void pacing(void **state)
{
	struct tg_pace *p = tg_pace_new();
	int64_t t = 1700000000000, w, last = 0, gap = 0;
	bool global;
	char chat[32];
	int sent = 0, in_minute = 0;

	(void)state;
	assert_non_null(p);
	/* about one a second in a chat */
	assert_int_equal(tg_pace_take(p, "-5", t, &global), 0);
	w = tg_pace_take(p, "-5", t + 300, &global);
	assert_int_equal(w, 800);
	assert_false(global);
	/* another chat is not held up; a topic of the group is */
	assert_int_equal(tg_pace_take(p, "-6", t + 300, &global), 0);
	assert_int_equal(tg_pace_take(p, "-5#31", t + 300, &global), 800);
	tg_pace_free(p);

	/*
	 * A group asking all the time: a short burst, then a steady rate, at
	 * most twenty in any minute and never a long silence.
	 */
	p = tg_pace_new();
	for (int64_t now = t; now < t + 5 * 60000; now += 100) {
		if (tg_pace_take(p, "-5", now, &global))
			continue;
		if (last && now - last > gap)
			gap = now - last;
		if (now < t + 60000)
			in_minute++;
		last = now;
		sent++;
	}
	assert_true(in_minute <= 20 && in_minute >= 18);
	assert_true(gap <= 3600);
	assert_true(sent >= 5 * 16);
	/* the burst comes back after a quiet spell */
	assert_int_equal(tg_pace_take(p, "-5", t + 7 * 60000, &global), 0);
	assert_int_equal(tg_pace_take(p, "-5", t + 7 * 60000 + 1100, &global), 0);
	assert_int_equal(tg_pace_take(p, "-5", t + 7 * 60000 + 2200, &global), 0);
	assert_true(tg_pace_take(p, "-5", t + 7 * 60000 + 3300, &global) > 0);
	/* a private chat only keeps its second */
	for (int i = 0; i < 25; i++)
		assert_int_equal(tg_pace_take(p, "77", t + 8 * 60000 + i * 1100, &global), 0);
	tg_pace_free(p);

	/* thirty a second overall */
	p = tg_pace_new();
	for (int i = 0; i < 30; i++) {
		snprintf(chat, sizeof(chat), "-%d", 100 + i);
		assert_int_equal(tg_pace_take(p, chat, t + i, &global), 0);
	}
	w = tg_pace_take(p, "-99", t + 30, &global);
	assert_int_equal(w, 1020);
	assert_true(global);
	assert_int_equal(tg_pace_take(p, "-99", t + 1050, &global), 0);
	/* many more chats than slots: every one is still paced */
	for (int i = 0; i < 5000; i++) {
		snprintf(chat, sizeof(chat), "-%d", 1000 + i);
		assert_int_equal(tg_pace_take(p, chat, t + 2000 + i * 40, &global), 0);
		assert_true(tg_pace_take(p, chat, t + 2000 + i * 40 + 1, &global) > 0);
	}
	tg_pace_free(p);
	tg_pace_free(NULL);
}

/* ---- configuration ---- */

static const char *const tg_env[] = {
	"TELEGRAM_TOKEN", "GAMEBOT_TELEGRAM_TOKEN", "TELEGRAM_SECRET", "GAMEBOT_TELEGRAM_SECRET",
	"TELEGRAM_API_URL", "GAMEBOT_TELEGRAM_API_URL", "GAMEBOT_TELEGRAM_API", "TELEGRAM_MODE",
	"GAMEBOT_TELEGRAM_MODE", "TELEGRAM_PACING", "GAMEBOT_TELEGRAM_PACING",
};

static void clear_tg_env(void)
{
	for (size_t i = 0; i < sizeof(tg_env) / sizeof(tg_env[0]); i++)
		unsetenv(tg_env[i]);
}

static void config_spellings(void **state)
{
	struct config c;
	char err[256], path[] = "/tmp/gb-tg-conf-XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_true(write(fd, "telegram_token = from-file\n", 27) == 27);
	close(fd);
	clear_tg_env();
	assert_int_equal(config_load(&c, path, err, sizeof(err)), GB_OK);
	assert_string_equal(c.telegram_token, "from-file");
	assert_string_equal(c.telegram_mode, "polling");
	assert_string_equal(c.telegram_pacing, "on");
	assert_string_equal(c.telegram_api, "https://api.telegram.org");

	/* without the prefix, as Telegram's guides spell them */
	setenv("TELEGRAM_TOKEN", "bare", 1);
	setenv("TELEGRAM_API_URL", "http://127.0.0.1:1", 1);
	setenv("TELEGRAM_MODE", "webhook", 1);
	setenv("TELEGRAM_SECRET", "s3", 1);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), GB_OK);
	assert_string_equal(c.telegram_token, "bare");
	assert_string_equal(c.telegram_api, "http://127.0.0.1:1");
	assert_string_equal(c.telegram_mode, "webhook");
	assert_string_equal(c.telegram_secret, "s3");
	/* the prefixed spelling wins */
	setenv("GAMEBOT_TELEGRAM_TOKEN", "prefixed", 1);
	setenv("GAMEBOT_TELEGRAM_API_URL", "http://127.0.0.1:2", 1);
	setenv("GAMEBOT_TELEGRAM_PACING", "off", 1);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), GB_OK);
	assert_string_equal(c.telegram_token, "prefixed");
	assert_string_equal(c.telegram_api, "http://127.0.0.1:2");
	assert_string_equal(c.telegram_pacing, "off");
	unsetenv("GAMEBOT_TELEGRAM_API_URL");
	setenv("GAMEBOT_TELEGRAM_API", "http://127.0.0.1:3", 1);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), GB_OK);
	assert_string_equal(c.telegram_api, "http://127.0.0.1:3");

	setenv("TELEGRAM_MODE", "carrier-pigeon", 1);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), GB_ECONFIG);
	assert_non_null(strstr(err, "telegram_mode"));
	clear_tg_env();
	setenv("GAMEBOT_TELEGRAM_PACING", "sometimes", 1);
	assert_int_equal(config_load(&c, path, err, sizeof(err)), GB_ECONFIG);
	clear_tg_env();
	unlink(path);
}

/* ---- the store query behind inline mode ---- */

static void store_tables_of_a_user(void **state)
{
	char dir[64], path[128];
	struct store *s;
	struct store_chat a = { 0 }, b = { 0 }, d = { 0 };
	struct store_table t1 = { 0 }, t2 = { 0 }, t3 = { 0 };
	struct store_seat seats[2] = { { 0, "77", "Asha", -1 }, { 1, "", "", 2 } };
	struct store_seat other[1] = { { 0, "78", "Bina", -1 } };
	int64_t ids[8];
	int n;

	(void)state;
	assert_int_equal(fixture_dir(dir, sizeof(dir), "tg-store"), 0);
	snprintf(path, sizeof(path), "%s/t.db", dir);
	assert_int_equal(store_open(&s, path), GB_OK);
	assert_int_equal(store_chat_get(s, "telegram", "-1", "en", &a), GB_OK);
	assert_int_equal(store_chat_get(s, "telegram", "-2", "en", &b), GB_OK);
	assert_int_equal(store_chat_get(s, "discord", "-1", "en", &d), GB_OK);
	t1.chat = a.id;
	snprintf(t1.game, sizeof(t1.game), "callbreak");
	t1.status = STORE_PLAYING;
	assert_int_equal(store_table_insert(s, &t1), GB_OK);
	t2 = t1;
	t2.chat = b.id;
	t2.status = STORE_OVER;
	assert_int_equal(store_table_insert(s, &t2), GB_OK);
	t3 = t1;
	t3.chat = d.id;
	assert_int_equal(store_table_insert(s, &t3), GB_OK);
	assert_int_equal(store_seats_set(s, t1.id, seats, 2), GB_OK);
	assert_int_equal(store_seats_set(s, t2.id, seats, 2), GB_OK);
	assert_int_equal(store_seats_set(s, t3.id, seats, 2), GB_OK);
	/* open tables of this platform only; a computer's empty id matches nothing */
	assert_int_equal(store_tables_of_user(s, "telegram", "77", ids, 8, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], t1.id);
	assert_int_equal(store_tables_of_user(s, "telegram", "", ids, 8, &n), GB_OK);
	assert_int_equal(n, 0);
	assert_int_equal(store_seats_set(s, t2.id, other, 1), GB_OK);
	assert_int_equal(store_tables_of_user(s, "telegram", "78", ids, 8, &n), GB_OK);
	assert_int_equal(n, 0);
	store_chat_release(&a);
	store_chat_release(&b);
	store_chat_release(&d);
	store_free(s);
	unlink(path);
	snprintf(path, sizeof(path), "%s/t.db-wal", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/t.db-shm", dir);
	unlink(path);
	rmdir(dir);
}

/* ---- what a player may do now (inline mode) ---- */

static void say_as(struct bot *b, const char *chat, const char *user, const char *text)
{
	struct command cmd;

	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, text), GB_OK);
	snprintf(cmd.platform, sizeof(cmd.platform), "telegram");
	snprintf(cmd.chat, sizeof(cmd.chat), "%s", chat);
	snprintf(cmd.user, sizeof(cmd.user), "%s", user);
	snprintf(cmd.user_name, sizeof(cmd.user_name), "u%s", user);
	cmd.now_ms = 1700000000000;
	assert_int_equal(bot_handle(b, &cmd), GB_OK);
}

/* The seat to act at the chat's open table, its state read as the router does. */
static int cb_turn(struct bot *b, const char *chat, struct callbreak *st)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	json_t *w;
	json_error_t err;

	assert_int_equal(store_chat_get(b->store, "telegram", chat, "en", &c), GB_OK);
	assert_int_equal(store_table_open_get(b->store, c.id, &t), GB_OK);
	w = json_loads(t.state, 0, &err);
	assert_int_equal(callbreak_game.from_json(st, json_object_get(w, "game")), GB_OK);
	json_decref(w);
	store_table_release(&t);
	store_chat_release(&c);
	return callbreak_turn(st);
}

static void choices_are_the_legal_actions(void **state)
{
	char dir[64], path[128], user[16], cmd[600];
	struct bot b = { 0 };
	struct bot_choice ch[64];
	struct callbreak st;
	int n, turn;

	(void)state;
	assert_int_equal(fixture_dir(dir, sizeof(dir), "tg-choice"), 0);
	snprintf(path, sizeof(path), "%s/c.db", dir);
	bot_config_init(&b.cfg);
	b.cfg.seed = 7;
	assert_int_equal(store_open(&b.store, path), GB_OK);
	say_as(&b, "-50", "1", "/new callbreak");
	for (int i = 1; i <= 4; i++) {
		snprintf(user, sizeof(user), "%d", i);
		say_as(&b, "-50", user, "/join");
	}
	say_as(&b, "-50", "1", "/start");

	/* bids first: only the seat to act has choices, 1 to 8 */
	turn = cb_turn(&b, "-50", &st);
	snprintf(user, sizeof(user), "%d", turn + 1);
	assert_int_equal(bot_user_choices(&b, "telegram", user, ch, 64, &n), GB_OK);
	assert_int_equal(n, 8);
	assert_string_equal(ch[0].cmd, "/bid 1");
	assert_string_equal(ch[0].chat, "-50");
	assert_string_equal(ch[0].game, "callbreak");
	snprintf(user, sizeof(user), "%d", (turn + 1) % 4 + 1);
	assert_int_equal(bot_user_choices(&b, "telegram", user, ch, 64, &n), GB_OK);
	assert_int_equal(n, 0);
	for (int i = 0; i < 4; i++) {
		turn = cb_turn(&b, "-50", &st);
		snprintf(user, sizeof(user), "%d", turn + 1);
		say_as(&b, "-50", user, "/bid 2");
	}
	/* then exactly the cards that may be played on this trick, tagged with the turn */
	for (int k = 0; k < 6; k++) {
		struct callbreak_view v;
		uint64_t legal;
		int cards = 0;

		turn = cb_turn(&b, "-50", &st);
		callbreak_view(&st, turn, &v);
		legal = v.legal;
		snprintf(user, sizeof(user), "%d", turn + 1);
		assert_int_equal(bot_user_choices(&b, "telegram", user, ch, 64, &n), GB_OK);
		assert_int_equal(n, __builtin_popcountll(legal));
		for (int i = 0; i < n; i++) {
			int card;

			assert_int_equal(strncmp(ch[i].cmd, "/play ", 6), 0);
			assert_int_equal(callbreak_card_parse(ch[i].cmd + 6, &card), GB_OK);
			assert_true(legal & CB_BIT(card));
			assert_int_equal(ch[i].turn, 4 + k);
			assert_non_null(strstr(ch[i].label, callbreak_suit_symbol(CB_SUIT(card))));
			cards++;
		}
		assert_int_equal(cards, n);
		snprintf(cmd, sizeof(cmd), "%s", ch[n - 1].cmd);
		say_as(&b, "-50", user, cmd);
	}
	/* someone without a seat has none */
	assert_int_equal(bot_user_choices(&b, "telegram", "99", ch, 64, &n), GB_OK);
	assert_int_equal(n, 0);
	store_free(b.store);
	assert_int_equal(fixture_rm(dir), 0);
}

/* ---- delivery against the fake server ---- */

struct dfix {
	char dir[64], db[128];
	struct fake_tg *f;
	struct config cfg;
	struct adapter_env env;
	struct store *s;
	void *self;
	int64_t chat_id;        /* store id of chat -1001 */
	int64_t table;          /* a table of it */
};

static int dfix_setup(void **state, bool pacing)
{
	struct dfix *x = calloc(1, sizeof(*x));
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	struct store_seat seats[2] = { { 0, "77", "Asha", -1 }, { 1, "78", "Bina", -1 } };

	assert_non_null(x);
	assert_int_equal(fixture_dir(x->dir, sizeof(x->dir), "tg-deliver"), 0);
	snprintf(x->db, sizeof(x->db), "%s/d.db", x->dir);
	assert_int_equal(fake_tg_start(&x->f, TOKEN, "gb_test_bot"), 0);
	fixture_tg_env(&x->cfg, &x->env, x->f, TOKEN, "webhook", pacing, x->db);
	assert_int_equal(store_open(&x->s, x->db), GB_OK);
	assert_int_equal(store_chat_get(x->s, "telegram", "-1001", "en", &c), GB_OK);
	x->chat_id = c.id;
	store_chat_release(&c);
	t.chat = x->chat_id;
	snprintf(t.game, sizeof(t.game), "ludo");
	t.status = STORE_OVER; /* an old game: the chat is free for new ones */
	assert_int_equal(store_table_insert(x->s, &t), GB_OK);
	x->table = t.id;
	assert_int_equal(store_seats_set(x->s, t.id, seats, 2), GB_OK);
	assert_int_equal(telegram_adapter.start(&x->env, &x->self), GB_OK);
	assert_non_null(x->self);
	/* start learnt the username */
	assert_true(fake_tg_count(x->f, "getMe") >= 1);
	fake_tg_clear(x->f);
	*state = x;
	return 0;
}

static int dfix_setup_unpaced(void **state)
{
	return dfix_setup(state, false);
}

static int dfix_setup_paced(void **state)
{
	return dfix_setup(state, true);
}

static int dfix_teardown(void **state)
{
	struct dfix *x = *state;
	int rc;

	telegram_adapter.stop(x->self);
	store_free(x->s);
	fake_tg_free(x->f);
	rc = fixture_rm(x->dir);
	free(x);
	return rc;
}

/* Queue one row for chat -1001 and deliver it at once. */
static void deliver_view(struct dfix *x, const char *payload, struct delivery *d)
{
	struct store_out row[4];
	int n = 0;

	assert_int_equal(store_out_add(x->s, "telegram", "-1001", x->table, NULL, payload, 1), GB_OK);
	assert_int_equal(store_out_claim(x->s, "telegram", bot_now_ms(), 30000, row, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	telegram_adapter.deliver(x->self, x->s, &row[0], d);
	if (d->result == DELIVERY_OK)
		assert_int_equal(store_out_done(x->s, row[0].id), GB_OK);
	else
		assert_int_equal(store_out_set_aside(x->s, row[0].id, d->why), GB_OK);
	store_out_release(&row[0]);
	/* a reason never carries the token */
	assert_null(strstr(d->why, TOKEN));
}

static void table_message_id(struct dfix *x, char *buf, size_t n)
{
	struct store_table t = { 0 };

	assert_int_equal(store_table_get(x->s, x->table, &t), GB_OK);
	snprintf(buf, n, "%s", t.message);
	store_table_release(&t);
}

static int count_texts(struct dfix *x, const char *method, const char *needle)
{
	int n = 0;

	for (int i = 0; i < fake_tg_count(x->f, method); i++) {
		json_t *b = fake_tg_nth(x->f, method, i);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (text && strstr(text, needle))
			n++;
		json_decref(b);
	}
	return n;
}

static void deliver_table_posted_then_edited(void **state)
{
	struct dfix *x = *state;
	struct delivery d;
	char id[64];
	json_t *b;

	deliver_view(x, "{\"kind\":\"table\",\"text\":\"board 1\",\"table\":1,\"turn\":0,\"buttons\":"
		     "[[{\"label\":\"Roll\",\"cmd\":\"/roll\"}]]}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	table_message_id(x, id, sizeof(id));
	assert_string_equal(id, "100");
	deliver_view(x, "{\"kind\":\"table\",\"text\":\"board 2\",\"table\":1,\"turn\":1}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_tg_count(x->f, "sendMessage"), 1);
	b = fake_tg_nth(x->f, "editMessageText", 0);
	assert_non_null(b);
	assert_int_equal(json_integer_value(json_object_get(b, "message_id")), 100);
	assert_int_equal(json_integer_value(json_object_get(b, "chat_id")), -1001);
	assert_string_equal(json_string_value(json_object_get(b, "text")), "<pre>board 2</pre>");
	json_decref(b);

	/* "message is not modified" is success */
	fake_tg_fault(x->f, "editMessageText", 0, 1, FAKE_TG_NOT_MODIFIED, 0);
	deliver_view(x, "{\"kind\":\"table\",\"text\":\"board 2\",\"table\":1,\"turn\":1}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_tg_count(x->f, "editMessageText"), 2);

	/* "message to edit not found": a new table message, and its id kept */
	fake_tg_fault(x->f, "editMessageText", 0, 1, FAKE_TG_NOT_FOUND, 0);
	deliver_view(x, "{\"kind\":\"table\",\"text\":\"board 3\",\"table\":1,\"turn\":2}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_tg_count(x->f, "sendMessage"), 2);
	table_message_id(x, id, sizeof(id));
	assert_string_equal(id, "101");
	b = fake_tg_nth(x->f, "sendMessage", 1);
	assert_string_equal(json_string_value(json_object_get(b, "text")), "<pre>board 3</pre>");
	json_decref(b);

	/* a board drawn before the table's last move is superseded: not sent */
	for (int seq = 1; seq <= 3; seq++)
		assert_int_equal(store_move_append(x->s, x->table, seq, "0", "roll", "[]"), GB_OK);
	deliver_view(x, "{\"kind\":\"table\",\"text\":\"board 2 again\",\"table\":1,\"turn\":2}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(count_texts(x, "editMessageText", "board 2 again"), 0);
	deliver_view(x, "{\"kind\":\"table\",\"text\":\"board 4\",\"table\":1,\"turn\":3}", &d);
	assert_int_equal(count_texts(x, "editMessageText", "board 4"), 1);
}

/* Claim chat's head row (the only one claimable there) and deliver it; its payload into *payload when given. */
static void deliver_head(struct dfix *x, const char *chat, struct delivery *d, char **payload)
{
	struct store_out row[4];
	int n = 0;

	assert_int_equal(store_out_claim(x->s, "telegram", bot_now_ms(), 30000, row, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_string_equal(row[0].chat, chat);
	if (payload)
		*payload = strdup(row[0].payload);
	telegram_adapter.deliver(x->self, x->s, &row[0], d);
	assert_int_equal(d->result, DELIVERY_OK);
	assert_int_equal(store_out_done(x->s, row[0].id), GB_OK);
	store_out_release(&row[0]);
}

/*
 * A person's queue message is posted once: its first post still on its
 * way when the entry goes (seated), the entry's last view - queued
 * meanwhile behind it, not knowing its id - edits it, the id handed to it
 * in the outbox when the post is recorded. A press on it afterwards edits
 * that message (never posts one), and one that can no longer be edited
 * is left as it is.
 */
static void deliver_queue_message_once(void **state)
{
	struct dfix *x = *state;
	struct store_queue e = { .game = "ludo", .seats = 2, .platform = "telegram", .user = "77", .chat = "77",
				 .name = "Asha", .lang = "en", .since_ms = 1 };
	struct store_queue list[2];
	struct store_out row[4];
	struct delivery d;
	char *payload = NULL;
	int n = 0;
	json_t *b;

	assert_int_equal(store_queue_add(x->s, &e), GB_OK);
	assert_int_equal(store_queue_list(x->s, list, 2, &n), GB_OK);
	assert_int_equal(n, 1);
	assert_int_equal(store_out_add(x->s, "telegram", "77", 0, "queue",
				       "{\"kind\":\"table\",\"queue\":true,\"text\":\"2 wait\",\"buttons\":"
				       "[[{\"label\":\"Leave the queue\",\"cmd\":\"/online leave\"}]]}", 1), GB_OK);
	/* the first post in a worker's hands ... */
	assert_int_equal(store_out_claim(x->s, "telegram", bot_now_ms(), 30000, row, 4, &n), GB_OK);
	assert_int_equal(n, 1);
	/* ... when the table opens: the entry goes, its last view queued behind the post */
	assert_int_equal(store_queue_claim(x->s, &list[0].id, 1, NULL), GB_OK);
	assert_int_equal(store_out_add(x->s, "telegram", "77", 0, "queue",
				       "{\"kind\":\"table\",\"queue\":true,\"text\":\"ready\"}", 2), GB_OK);
	telegram_adapter.deliver(x->self, x->s, &row[0], &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(store_out_done(x->s, row[0].id), GB_OK);
	store_out_release(&row[0]);
	deliver_head(x, "77", &d, &payload);
	assert_non_null(strstr(payload, "\"message\":\"100\""));
	free(payload);
	assert_int_equal(fake_tg_count(x->f, "sendMessage"), 1);
	b = fake_tg_nth(x->f, "editMessageText", 0);
	assert_non_null(b);
	assert_int_equal(json_integer_value(json_object_get(b, "message_id")), 100);
	assert_string_equal(json_string_value(json_object_get(b, "text")), "ready");
	json_decref(b);

	/* "Leave the queue" pressed on it once seated: that message edited, its buttons gone */
	assert_int_equal(store_out_add(x->s, "telegram", "77", 0, "",
				       "{\"kind\":\"table\",\"queue\":true,\"stale\":true,\"message\":\"100\","
				       "\"text\":\"seated\"}", 3), GB_OK);
	deliver_head(x, "77", &d, NULL);
	b = fake_tg_nth(x->f, "editMessageText", 1);
	assert_non_null(b);
	assert_int_equal(json_integer_value(json_object_get(b, "message_id")), 100);
	assert_string_equal(json_string_value(json_object_get(b, "text")), "seated");
	assert_int_equal(json_array_size(json_object_get(json_object_get(b, "reply_markup"), "inline_keyboard")), 0);
	json_decref(b);
	/* one too old to edit is left as it is: nothing posted */
	fake_tg_fault(x->f, "editMessageText", 0, 1, FAKE_TG_NOT_FOUND, 0);
	assert_int_equal(store_out_add(x->s, "telegram", "77", 0, "",
				       "{\"kind\":\"table\",\"queue\":true,\"stale\":true,\"message\":\"99\","
				       "\"text\":\"seated\"}", 4), GB_OK);
	deliver_head(x, "77", &d, NULL);
	assert_int_equal(fake_tg_count(x->f, "editMessageText"), 3);
	assert_int_equal(fake_tg_count(x->f, "sendMessage"), 1);
}

static void deliver_faults(void **state)
{
	struct dfix *x = *state;
	struct delivery d;

	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_429, 7);
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"hello\"}", &d);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_int_equal(d.retry_ms, 7000);
	assert_false(d.global);

	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_500, 0);
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"hello\"}", &d);
	assert_int_equal(d.result, DELIVERY_RETRY);
	assert_non_null(strstr(d.why, "500"));

	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_400, 0);
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"hello\"}", &d);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
	assert_non_null(strstr(d.why, "chat not found"));

	/* a slow answer is waited for */
	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_SLOW, 400);
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"hello\"}", &d);
	assert_int_equal(d.result, DELIVERY_OK);

	/* the server down: a transient failure */
	fake_tg_down(x->f);
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"hello\"}", &d);
	assert_int_equal(d.result, DELIVERY_RETRY);
	assert_non_null(strstr(d.why, "sendMessage"));
	assert_int_equal(fake_tg_up(x->f), 0);
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"hello\"}", &d);
	assert_int_equal(d.result, DELIVERY_OK);

	deliver_view(x, "not json", &d);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
	deliver_view(x, "{\"kind\":\"sonnet\",\"text\":\"x\"}", &d);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
}

static void deliver_private_and_callbacks(void **state)
{
	struct dfix *x = *state;
	struct delivery d;
	json_t *b;
	const char *text;

	deliver_view(x, "{\"kind\":\"private\",\"user\":\"77\",\"text\":\"A♠ K♠\",\"table\":1,\"lang\":\"en\"}",
		     &d);
	assert_int_equal(d.result, DELIVERY_OK);
	b = fake_tg_nth(x->f, "sendMessage", 0);
	assert_int_equal(json_integer_value(json_object_get(b, "chat_id")), 77);
	json_decref(b);

	/* never started the bot: a line in the group says how */
	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_403, 0);
	deliver_view(x, "{\"kind\":\"private\",\"user\":\"77\",\"text\":\"A♠ K♠\",\"table\":1,\"lang\":\"en\"}",
		     &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_tg_count(x->f, "sendMessage"), 3);
	b = fake_tg_nth(x->f, "sendMessage", 2);
	assert_int_equal(json_integer_value(json_object_get(b, "chat_id")), -1001);
	text = json_string_value(json_object_get(b, "text"));
	assert_non_null(strstr(text, "Asha"));
	assert_non_null(strstr(text, "@gb_test_bot"));
	assert_null(strstr(text, "A♠"));
	json_decref(b);
	/* in Nepali for a Nepali chat */
	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_403, 0);
	deliver_view(x, "{\"kind\":\"private\",\"user\":\"78\",\"text\":\"A♠\",\"table\":1,\"lang\":\"ne\"}", &d);
	b = fake_tg_nth(x->f, "sendMessage", 4);
	assert_non_null(strstr(json_string_value(json_object_get(b, "text")), "Bina, म तपाईंलाई"));
	json_decref(b);
	/* blocked by the person: their private chat closed, not the group gone; the group is told */
	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_BLOCKED, 0);
	deliver_view(x, "{\"kind\":\"private\",\"user\":\"77\",\"text\":\"A♠\",\"table\":2,\"lang\":\"en\"}",
		     &d);
	assert_int_equal(d.result, DELIVERY_OK);
	b = fake_tg_nth(x->f, "sendMessage", 6);
	assert_int_equal(json_integer_value(json_object_get(b, "chat_id")), -1001);
	assert_non_null(strstr(json_string_value(json_object_get(b, "text")), "@gb_test_bot"));
	json_decref(b);

	/* answers to a button press */
	deliver_view(x, "{\"kind\":\"alert\",\"user\":\"77\",\"text\":\"Not your turn\",\"reply\":\"cq1\"}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	deliver_view(x, "{\"kind\":\"ack\",\"reply\":\"cq2\"}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), 2);
	b = fake_tg_nth(x->f, "answerCallbackQuery", 0);
	assert_string_equal(json_string_value(json_object_get(b, "callback_query_id")), "cq1");
	assert_true(json_is_true(json_object_get(b, "show_alert")));
	json_decref(b);
	/* a press too old to answer is over: nothing to retry */
	fake_tg_fault(x->f, "answerCallbackQuery", 0, 1, FAKE_TG_400, 0);
	deliver_view(x, "{\"kind\":\"ack\",\"reply\":\"cq3\"}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	/* no handle, no call */
	deliver_view(x, "{\"kind\":\"ack\"}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), 3);
}

static void deliver_migrated_group(void **state)
{
	struct dfix *x = *state;
	struct store_chat c = { 0 };
	struct delivery d;

	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_MIGRATE, -1009);
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"hello\"}", &d);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_int_equal(d.retry_ms, 0);
	assert_int_equal(store_chat_get(x->s, "telegram", "-1009", "en", &c), GB_OK);
	assert_int_equal(c.id, x->chat_id);
	store_chat_release(&c);
}

static void deliver_paced(void **state)
{
	struct dfix *x = *state;
	struct delivery d;

	deliver_view(x, "{\"kind\":\"public\",\"text\":\"one\"}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	/* the same chat within the second: wait, and nothing sent */
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"two\"}", &d);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_true(d.retry_ms > 0 && d.retry_ms <= 1100);
	assert_int_equal(fake_tg_count(x->f, "sendMessage"), 1);
	/* answers to presses are not messages: never paced */
	deliver_view(x, "{\"kind\":\"ack\",\"reply\":\"cq\"}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
}

/*
 * A delivery's calls end by the thread's deadline: a new message whose
 * answer has not come by then - over a connection kept from an earlier
 * call - is in doubt and set aside, never sent again; with too little
 * time left no call is made and the row goes back untried.
 */
static void deliver_within_the_deadline(void **state)
{
	struct dfix *x = *state;
	struct delivery d;
	int64_t t0;

	deliver_view(x, "{\"kind\":\"public\",\"text\":\"first\"}", &d);
	assert_int_equal(d.result, DELIVERY_OK);
	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_SLOW, 3000);
	t0 = now_ms();
	adapter_deadline_set(adapter_mono_ms() + 1000);
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"held\"}", &d);
	adapter_deadline_set(0);
	assert_true(now_ms() - t0 < 2900);
	assert_int_equal(d.result, DELIVERY_GIVE_UP);
	assert_non_null(strstr(d.why, "in doubt"));
	/* too little time left: nothing is called, the row waits (no attempt) */
	adapter_deadline_set(adapter_mono_ms() + ADAPTER_CALL_MIN_MS / 2);
	deliver_view(x, "{\"kind\":\"public\",\"text\":\"late\"}", &d);
	adapter_deadline_set(0);
	assert_int_equal(d.result, DELIVERY_WAIT);
	assert_true(fake_tg_quiet(x->f, 10000));
	assert_int_equal(count_texts(x, "sendMessage", "held"), 1);
	assert_int_equal(count_texts(x, "sendMessage", "late"), 0);
}

/* ---- receiving by long polling ---- */

static int pfix_setup(void **state)
{
	struct dfix *x;

	dfix_setup(state, false);
	x = *state;
	/* the same service again, in polling mode */
	telegram_adapter.stop(x->self);
	snprintf(x->cfg.telegram_mode, sizeof(x->cfg.telegram_mode), "polling");
	x->self = NULL;
	return 0;
}

static void poll_start(struct dfix *x)
{
	assert_int_equal(telegram_adapter.start(&x->env, &x->self), GB_OK);
	/* a webhook would make Telegram refuse getUpdates */
	assert_true(fake_tg_wait(x->f, "deleteWebhook", 1, 2000) >= 1);
}

static void poll_stop(struct dfix *x)
{
	telegram_adapter.stop(x->self);
	x->self = NULL;
}

/* Wait until the polling offset in the store reaches want. */
static void wait_offset(struct dfix *x, long long want)
{
	char buf[32];
	int64_t t0 = now_ms();

	for (;;) {
		long long got = store_meta_get(x->s, "telegram.offset", buf, sizeof(buf)) ? 0
			: strtoll(buf, NULL, 10);

		if (got >= want)
			return;
		if (now_ms() - t0 > 5000) {
			fake_tg_dump(x->f);
			fail_msg("offset %lld, wanted %lld", got, want);
		}
		usleep(10000);
	}
}

static void push_text(struct dfix *x, long long id, const char *user, const char *name, const char *text)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%s,"
		 "\"first_name\":\"%s\"},\"chat\":{\"id\":-1001,\"type\":\"supergroup\"},\"text\":\"%s\"}}",
		 id, id, user, name, text);
	assert_int_equal(fake_tg_push_update(x->f, buf), id);
}

/* Count the outbox rows of chat -1001 whose payload holds needle. */
static int out_rows(struct dfix *x, const char *needle)
{
	struct store_out rows[64];
	int n = 0, hits = 0;

	assert_int_equal(store_out_due(x->s, "telegram", INT64_MAX, rows, 64, &n), GB_OK);
	for (int i = 0; i < n; i++) {
		if (strstr(rows[i].payload, needle))
			hits++;
		store_out_release(&rows[i]);
	}
	return hits;
}

/* People seated at chat -1001's open table (0 without one). */
static int seated(struct dfix *x)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	struct store_seat seats[8];
	int n = 0, people = 0;

	if (!store_chat_get(x->s, "telegram", "-1001", "en", &c) &&
	    !store_table_open_get(x->s, c.id, &t) && !store_seats_get(x->s, t.id, seats, 8, &n))
		for (int i = 0; i < n; i++)
			people += seats[i].user[0] != '\0';
	store_table_release(&t);
	store_chat_release(&c);
	return people;
}

static void polling_commands_and_offset(void **state)
{
	struct dfix *x = *state;
	json_t *b;

	poll_start(x);
	push_text(x, 5000, "77", "Asha", "/new ludo");
	push_text(x, 5001, "78", "Bina", "/join@gb_test_bot");
	push_text(x, 5002, "78", "Bina", "/join@some_other_bot");
	wait_offset(x, 5003);
	/* handled once each (a seating line not yet sent gives way to the next) */
	assert_int_equal(seated(x), 2);
	assert_int_equal(out_rows(x, "Asha opened a table"), 0);
	assert_int_equal(out_rows(x, "Bina sits down"), 1);
	/* each update handled once: the next poll confirms them */
	b = fake_tg_nth(x->f, "getUpdates", 0);
	assert_int_equal(json_array_size(json_object_get(b, "allowed_updates")), 5);
	json_decref(b);
	poll_stop(x);

	/* a restart asks from the saved offset: nothing handled twice, nothing skipped */
	fake_tg_clear(x->f);
	push_text(x, 5003, "79", "Chandra", "/join");
	poll_start(x);
	wait_offset(x, 5004);
	b = fake_tg_nth(x->f, "getUpdates", 0);
	assert_int_equal(json_integer_value(json_object_get(b, "offset")), 5003);
	json_decref(b);
	assert_int_equal(seated(x), 3);
	assert_int_equal(out_rows(x, "Bina sits down"), 0);
	assert_int_equal(out_rows(x, "Chandra sits down"), 1);
	poll_stop(x);
}

static void polling_outage(void **state)
{
	struct dfix *x = *state;

	poll_start(x);
	fake_tg_down(x->f);
	usleep(300000);
	push_text(x, 6000, "77", "Asha", "/new ludo");
	assert_int_equal(fake_tg_up(x->f), 0);
	wait_offset(x, 6001);
	assert_int_equal(out_rows(x, "Asha opened a table"), 1);
	/* a 500 from getUpdates is waited out too */
	fake_tg_fault(x->f, "getUpdates", 0, 2, FAKE_TG_500, 0);
	push_text(x, 6001, "78", "Bina", "/join");
	wait_offset(x, 6002);
	assert_int_equal(out_rows(x, "Bina sits down"), 1);
	poll_stop(x);
}

static void polling_admin_rights(void **state)
{
	struct dfix *x = *state;

	poll_start(x);
	fake_tg_member(x->f, "-1001", "77", "administrator");
	push_text(x, 7000, "78", "Bina", "/lang ne");
	push_text(x, 7001, "77", "Asha", "/lang ne");
	push_text(x, 7002, "77", "Asha", "/speed fast");
	push_text(x, 7003, "77", "Asha", "/roll");
	wait_offset(x, 7004);
	/* a member is refused, an administrator changes it; asked once each, then cached */
	assert_int_equal(out_rows(x, "Only chat admins"), 1);
	assert_int_equal(fake_tg_count(x->f, "getChatMember"), 2);
	{
		struct store_chat c = { 0 };

		assert_int_equal(store_chat_get(x->s, "telegram", "-1001", "en", &c), GB_OK);
		assert_string_equal(c.lang, "ne");
		store_chat_release(&c);
	}
	poll_stop(x);
}

static void polling_migration_and_others(void **state)
{
	struct dfix *x = *state;
	struct store_chat c = { 0 };

	poll_start(x);
	fake_tg_push_update(x->f, "{\"update_id\":8000,\"message\":{\"chat\":{\"id\":-1001,\"type\":\"group\"},"
			    "\"from\":{\"id\":77},\"migrate_to_chat_id\":-100777}}");
	fake_tg_push_update(x->f, "{\"update_id\":8001,\"my_chat_member\":{\"chat\":{\"id\":-5,\"type\":\"group\"},"
			    "\"new_chat_member\":{\"status\":\"member\"}}}");
	fake_tg_push_update(x->f, "{\"update_id\":8002,\"edited_message\":{\"chat\":{\"id\":-5}}}");
	fake_tg_push_update(x->f, "{\"update_id\":8003,\"poll\":{\"id\":\"x\"}}");
	wait_offset(x, 8004);
	assert_int_equal(store_chat_get(x->s, "telegram", "-100777", "en", &c), GB_OK);
	assert_int_equal(c.id, x->chat_id);
	store_chat_release(&c);
	poll_stop(x);
}

static void polling_inline_mode(void **state)
{
	struct dfix *x = *state;
	struct bot view = { .store = x->s };
	struct callbreak st;
	char buf[512], user[16];
	const char *names[] = { "Asha", "Bina", "Chandra", "Dipa" };
	json_t *b, *results;
	int turn, moves = 0;
	long long id = 9000;

	poll_start(x);
	push_text(x, id++, "1", names[0], "/new callbreak");
	for (int i = 0; i < 4; i++) {
		snprintf(user, sizeof(user), "%d", i + 1);
		push_text(x, id++, user, names[i], "/join");
	}
	push_text(x, id++, "1", names[0], "/start");
	wait_offset(x, id);
	turn = cb_turn(&view, "-1001", &st);

	/* "@bot" typed by the player to act: their bids, personal and not cached */
	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"inline_query\":{\"id\":\"iq7\",\"from\":{\"id\":%d,"
		 "\"first_name\":\"%s\"},\"query\":\"\",\"offset\":\"\"}}", id++, turn + 1, names[turn]);
	fake_tg_push_update(x->f, buf);
	assert_int_equal(fake_tg_wait(x->f, "answerInlineQuery", 1, 5000), 1);
	b = fake_tg_nth(x->f, "answerInlineQuery", 0);
	assert_string_equal(json_string_value(json_object_get(b, "inline_query_id")), "iq7");
	assert_int_equal(json_integer_value(json_object_get(b, "cache_time")), 0);
	assert_true(json_is_true(json_object_get(b, "is_personal")));
	results = json_object_get(b, "results");
	assert_int_equal(json_array_size(results), 8);
	assert_string_equal(json_string_value(json_object_get(json_array_get(results, 2), "id")),
			    "2:0:bid 3");
	json_decref(b);

	/* another player has nothing to choose now: one article says why (whose turn it is) */
	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"inline_query\":{\"id\":\"iq8\",\"from\":{\"id\":%d,"
		 "\"first_name\":\"x\"},\"query\":\"\"}}", id++, (turn + 1) % 4 + 1);
	fake_tg_push_update(x->f, buf);
	assert_int_equal(fake_tg_wait(x->f, "answerInlineQuery", 2, 5000), 2);
	b = fake_tg_nth(x->f, "answerInlineQuery", 1);
	results = json_object_get(b, "results");
	assert_int_equal(json_array_size(results), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(results, 0), "id")),
			    TG_INLINE_NOTHING);
	assert_string_equal(json_string_value(json_object_get(json_array_get(results, 0), "title")),
			    "Nothing to play now");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(results, 0), "description")),
			       names[turn]));
	json_decref(b);

	/* choosing a result plays it at the table's chat */
	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"chosen_inline_result\":{\"result_id\":\"2:0:bid 3\","
		 "\"from\":{\"id\":%d,\"first_name\":\"%s\"},\"query\":\"\"}}", id++, turn + 1, names[turn]);
	fake_tg_push_update(x->f, buf);
	wait_offset(x, id);
	assert_int_equal(store_move_count(x->s, x->table + 1, &moves), GB_OK);
	assert_int_equal(moves, 1);
	assert_int_equal(cb_turn(&view, "-1001", &st), (turn + 1) % 4);
	poll_stop(x);
}

/* ---- gamebot telegram-setup ---- */

static int run_setup(struct dfix *x, int argc, char **argv, char **out, char **err)
{
	size_t no, ne;
	FILE *fo = open_memstream(out, &no), *fe = open_memstream(err, &ne);
	int status;

	assert_non_null(fo);
	assert_non_null(fe);
	status = telegram_setup_main(argc, argv, &x->cfg, fo, fe);
	fclose(fo);
	fclose(fe);
	return status;
}

static void setup_webhook_and_commands(void **state)
{
	struct dfix *x = *state;
	char *argv[] = { "telegram-setup", "--url", "https://games.example.org/telegram", "--drop-pending" };
	char *out, *err, method[64];
	json_t *b;

	assert_int_equal(run_setup(x, 4, argv, &out, &err), 0);
	assert_non_null(strstr(out, "bot: @gb_test_bot (id 4242)"));
	assert_non_null(strstr(out, "webhook: https://games.example.org/telegram"));
	assert_null(strstr(out, TOKEN));
	assert_string_equal(err, "");
	free(out);
	free(err);
	assert_int_equal(fake_tg_count(x->f, NULL), 4);
	b = fake_tg_call(x->f, 0, method, sizeof(method), NULL);
	assert_string_equal(method, "getMe");
	json_decref(b);
	b = fake_tg_call(x->f, 1, method, sizeof(method), NULL);
	assert_string_equal(method, "setWebhook");
	assert_string_equal(json_string_value(json_object_get(b, "url")), "https://games.example.org/telegram");
	assert_string_equal(json_string_value(json_object_get(b, "secret_token")), "s3cret");
	assert_true(json_is_true(json_object_get(b, "drop_pending_updates")));
	assert_int_equal(json_array_size(json_object_get(b, "allowed_updates")), 5);
	json_decref(b);
	b = fake_tg_call(x->f, 2, method, sizeof(method), NULL);
	assert_string_equal(method, "setMyCommands");
	assert_null(json_object_get(b, "language_code"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(b, "commands"), 0),
							      "command")), "new");
	json_decref(b);
	b = fake_tg_call(x->f, 3, method, sizeof(method), NULL);
	assert_string_equal(method, "setMyCommands");
	assert_string_equal(json_string_value(json_object_get(b, "language_code")), "ne");
	json_decref(b);
}

/*
 * The menus are the router's command table: in each language, every row
 * with a menu line, in the table's order, each with its own line; a play
 * verb names the games that know it, and /new the games' names.
 */
static void setup_menus_are_the_command_table(void **state)
{
	struct dfix *x = *state;
	char *argv[] = { "telegram-setup", "--polling" };
	char *out, *err;
	size_t n, k = 0;
	const struct bot_command *cmds = bot_commands(&n);

	assert_int_equal(run_setup(x, 2, argv, &out, &err), 0);
	free(out);
	free(err);
	assert_int_equal(fake_tg_count(x->f, "setMyCommands"), LANG_COUNT);
	for (int lang = 0; lang < LANG_COUNT; lang++) {
		json_t *b = fake_tg_nth(x->f, "setMyCommands", lang), *list = json_object_get(b, "commands");

		k = 0;
		for (size_t i = 0; i < n; i++) {
			json_t *c = json_array_get(list, k);
			struct strbuf line = { 0 };

			if (!cmds[i].desc[lang])
				continue;
			bot_command_describe(&cmds[i], lang, false, &line);
			assert_string_equal(json_string_value(json_object_get(c, "command")), cmds[i].name);
			assert_string_equal(json_string_value(json_object_get(c, "description")), sb_str(&line));
			sb_release(&line);
			k++;
		}
		assert_int_equal(json_array_size(list), k);
		json_decref(b);
	}
	{
		json_t *b = fake_tg_nth(x->f, "setMyCommands", LANG_NE);
		json_t *list = json_object_get(b, "commands");
		size_t i;
		json_t *c;

		json_array_foreach(list, i, c) {
			const char *d = json_string_value(json_object_get(c, "description"));

			if (!strcmp(json_string_value(json_object_get(c, "command")), "new"))
				assert_string_equal(d, "नयाँ खेल: snakes, ludo, baghchal वा callbreak");
			if (!strcmp(json_string_value(json_object_get(c, "command")), "bid"))
				assert_string_equal(d, "हात बोल्नुहोस् (कल ब्रेक)");
		}
		json_decref(b);
	}
	/*
	 * every typeable command but /seat is in the menu; the service's own
	 * four (timers, online tables, the queue messages drawn again, a chat
	 * the bot was removed from) are not
	 */
	assert_int_equal(k, n - 5);
}

static void setup_polling_and_refusals(void **state)
{
	struct dfix *x = *state;
	char *polling[] = { "telegram-setup", "--polling" };
	char *bad[] = { "telegram-setup", "--frobnicate" };
	char *both[] = { "telegram-setup", "--polling", "--url", "https://x/telegram" };
	char *hook[] = { "telegram-setup", "--url", "https://x/telegram" };
	char *out, *err;

	assert_int_equal(run_setup(x, 2, polling, &out, &err), 0);
	assert_non_null(strstr(out, "webhook: none"));
	assert_int_equal(fake_tg_count(x->f, "deleteWebhook"), 1);
	free(out);
	free(err);

	assert_int_equal(run_setup(x, 2, bad, &out, &err), 2);
	assert_non_null(strstr(err, "unknown option '--frobnicate'"));
	free(out);
	free(err);
	assert_int_equal(run_setup(x, 4, both, &out, &err), 2);
	free(out);
	free(err);

	/* a failing call is named, without the token */
	fake_tg_fault(x->f, "setWebhook", 0, 1, FAKE_TG_400, 0);
	assert_int_equal(run_setup(x, 3, hook, &out, &err), 1);
	assert_non_null(strstr(err, "setWebhook: 400 Bad Request"));
	assert_null(strstr(err, TOKEN));
	free(out);
	free(err);

	x->cfg.telegram_secret[0] = '\0';
	assert_int_equal(run_setup(x, 3, hook, &out, &err), 2);
	assert_non_null(strstr(err, "telegram_secret"));
	free(out);
	free(err);
	x->cfg.telegram_token[0] = '\0';
	assert_int_equal(run_setup(x, 2, polling, &out, &err), 2);
	free(out);
	free(err);
}

/* ---- whole games through long polling, delivered to the fake ---- */

/* Deliver every row due, as the outbox worker would; returns how many went. */
static int drain(struct dfix *x)
{
	int total = 0;

	for (int round = 0; round < 1000; round++) {
		struct store_out rows[32];
		int n = 0;

		assert_int_equal(store_out_claim(x->s, "telegram", INT64_MAX / 2, 30000, rows, 32, &n), GB_OK);
		if (!n)
			break;
		for (int i = 0; i < n; i++) {
			struct delivery d;

			telegram_adapter.deliver(x->self, x->s, &rows[i], &d);
			if (d.result == DELIVERY_OK)
				assert_int_equal(store_out_done(x->s, rows[i].id), GB_OK);
			else if (d.result == DELIVERY_GIVE_UP)
				fail_msg("row given up: %s: %s", d.why, rows[i].payload);
			else
				assert_int_equal(store_out_retry(x->s, rows[i].id, 0, 0), GB_OK);
			store_out_release(&rows[i]);
			total++;
		}
	}
	return total;
}

/* The newest table message sent to chat -1001 (sendMessage or edit with a <pre> board): a new reference. */
static json_t *last_table(struct dfix *x)
{
	char method[64];
	json_t *best = NULL;

	for (int i = fake_tg_count(x->f, NULL) - 1; i >= 0 && !best; i--) {
		json_t *b = fake_tg_call(x->f, i, method, sizeof(method), NULL);
		const char *text = json_string_value(json_object_get(b, "text"));

		if ((!strcmp(method, "sendMessage") || !strcmp(method, "editMessageText")) && text &&
		    !strncmp(text, "<pre>", 5) && json_integer_value(json_object_get(b, "chat_id")) == -1001)
			best = json_incref(b);
		json_decref(b);
	}
	return best;
}

/* The seat to act at the chat's open table (-1 when none or over). */
static int table_turn(struct dfix *x, int64_t *table)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	const struct gb_game *g;
	json_error_t err;
	json_t *w;
	void *st;
	int turn = -1;

	assert_int_equal(store_chat_get(x->s, "telegram", "-1001", "en", &c), GB_OK);
	if (store_table_open_get(x->s, c.id, &t) == GB_OK && t.state && t.status == STORE_PLAYING) {
		g = gb_game_find(t.game);
		st = calloc(1, g->state_size);
		w = json_loads(t.state, 0, &err);
		assert_int_equal(g->from_json(st, json_object_get(w, "game")), GB_OK);
		turn = g->turn(st);
		json_decref(w);
		free(st);
		*table = t.id;
	}
	store_table_release(&t);
	store_chat_release(&c);
	return turn;
}

/* How many table messages (boards) were posted with sendMessage to chat -1001. */
static int table_posts(struct dfix *x)
{
	int n = 0;

	for (int i = 0; i < fake_tg_count(x->f, "sendMessage"); i++) {
		json_t *b = fake_tg_nth(x->f, "sendMessage", i);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (text && !strncmp(text, "<pre>", 5) && json_integer_value(json_object_get(b, "chat_id")) == -1001)
			n++;
		json_decref(b);
	}
	return n;
}

static void press(struct dfix *x, long long *id, const char *user, const char *data)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"callback_query\":{\"id\":\"cq%lld\",\"from\":{\"id\":%s,"
		 "\"first_name\":\"P%s\"},\"message\":{\"message_id\":100,\"chat\":{\"id\":-1001,"
		 "\"type\":\"supergroup\"}},\"chat_instance\":\"1\",\"data\":\"%s\"}}", *id, *id, user, user, data);
	assert_int_equal(fake_tg_push_update(x->f, buf), *id);
	(*id)++;
	wait_offset(x, *id);
	drain(x);
}

static void polling_ludo_game_with_buttons(void **state)
{
	struct dfix *x = *state;
	long long id = 20000;
	int presses = 0, edits, turn;
	int64_t table = 0;
	json_t *msg;

	x->env.bot.seed = 3;
	poll_start(x);
	push_text(x, id++, "1", "Asha", "/new ludo");
	push_text(x, id++, "2", "Bina", "/join");
	wait_offset(x, id);
	drain(x);
	/* the lobby's buttons start the game */
	msg = last_table(x);
	assert_non_null(msg);
	{
		char *kb = json_dumps(json_object_get(msg, "reply_markup"), 0);

		assert_non_null(strstr(kb, ":start\""));
		free(kb);
	}
	json_decref(msg);
	press(x, &id, "1", "2:0:start");
	for (turn = table_turn(x, &table); turn >= 0 && presses < 3000; turn = table_turn(x, &table)) {
		json_t *kb, *btn;
		const char *data;
		char user[16];

		msg = last_table(x);
		kb = json_object_get(json_object_get(msg, "reply_markup"), "inline_keyboard");
		btn = json_array_get(json_array_get(kb, 0), 0);
		data = json_string_value(json_object_get(btn, "callback_data"));
		assert_non_null(data);
		snprintf(user, sizeof(user), "%d", turn + 1);
		press(x, &id, user, data);
		json_decref(msg);
		presses++;
	}
	assert_int_equal(turn, -1);
	assert_true(presses > 20);
	/* one table message, posted once and then edited in place after every press */
	assert_int_equal(table_posts(x), 1);
	edits = fake_tg_count(x->f, "editMessageText");
	assert_true(edits >= presses);
	msg = last_table(x);
	assert_non_null(strstr(json_string_value(json_object_get(msg, "text")), "Ludo"));
	json_decref(msg);
	poll_stop(x);
}

/* ---- receiving by webhook, delivered by the outbox worker ---- */

struct wfix {
	struct dfix *x;
	struct outbox *ob;
	struct http_server *http;
	char url[128];
};

static void wake(void *arg)
{
	outbox_wake(arg);
}

/* The per-user rate limit the next wfix starts with (0: none). */
static int wfix_rate;
/* The outbox lease the next wfix starts with (0: the default). */
static int64_t wfix_lease;

static int wfix_setup_as(void **state, bool pacing)
{
	struct wfix *w = calloc(1, sizeof(*w));
	struct http_route routes[4];
	struct http_options ho;
	struct outbox_opts oo;
	int n;

	assert_non_null(w);
	dfix_setup(state, pacing);
	w->x = *state;
	telegram_adapter.stop(w->x->self);
	w->x->self = NULL;
	outbox_opts_init(&oo);
	oo.poll_ms = 10;
	oo.backoff_ms = 50;
	oo.backoff_max_ms = 200;
	oo.max_attempts = 1000;
	if (wfix_lease)
		oo.lease_ms = wfix_lease;
	assert_int_equal(outbox_new(&w->ob, &telegram_adapter, w->x->db, &oo), GB_OK);
	w->x->env.wake = wake;
	w->x->env.wake_arg = w->ob;
	w->x->env.bot.rate_user_per_min = wfix_rate;
	assert_int_equal(telegram_adapter.start(&w->x->env, &w->x->self), GB_OK);
	assert_int_equal(outbox_run(w->ob, w->x->self), GB_OK);
	n = telegram_adapter.routes(w->x->self, routes, 4);
	assert_int_equal(n, 1);
	assert_string_equal(routes[0].path, "/telegram");
	http_options_init(&ho);
	ho.listen = "127.0.0.1:0";
	ho.routes = routes;
	ho.nroutes = n;
	assert_int_equal(http_start(&w->http, &ho), GB_OK);
	snprintf(w->url, sizeof(w->url), "http://127.0.0.1:%d/telegram", http_port(w->http));
	*state = w;
	return 0;
}

static int wfix_setup(void **state)
{
	return wfix_setup_as(state, false);
}

static int wfix_setup_paced(void **state)
{
	return wfix_setup_as(state, true);
}

/* Five commands a minute per user (ten lookups). */
static int wfix_setup_limited(void **state)
{
	int rc;

	wfix_rate = 5;
	rc = wfix_setup_as(state, false);
	wfix_rate = 0;
	return rc;
}

/* Leases of 4 s and of 12 s, two workers: a slow Bot API outlasts them. */
static int wfix_setup_lease(void **state, int64_t lease_ms)
{
	int rc;

	wfix_lease = lease_ms;
	rc = wfix_setup_as(state, false);
	wfix_lease = 0;
	return rc;
}

static int wfix_setup_lease4(void **state)
{
	return wfix_setup_lease(state, 4000);
}

static int wfix_setup_lease12(void **state)
{
	return wfix_setup_lease(state, 12000);
}

static int wfix_teardown(void **state)
{
	struct wfix *w = *state;

	http_stop(w->http);
	outbox_stop(w->ob);
	*state = w->x;
	free(w);
	return dfix_teardown(state);
}

/*
 * POST an update to the webhook with the given secret (NULL: no header);
 * returns the status, and the answer's body in out when out is not NULL.
 */
static long hook_body(struct wfix *w, const char *secret, const char *json, struct body *out)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	struct body scratch;
	char header[300];
	long code = 0;

	if (!out)
		out = &scratch;
	if (secret) {
		snprintf(header, sizeof(header), "X-Telegram-Bot-Api-Secret-Token: %s", secret);
		h = curl_slist_append(h, header);
	}
	memset(out, 0, sizeof(*out));
	curl_easy_setopt(c, CURLOPT_URL, w->url);
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

static long hook(struct wfix *w, const char *secret, const char *json)
{
	return hook_body(w, secret, json, NULL);
}

static void hook_text(struct wfix *w, long long id, const char *user, const char *name, const char *text)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%s,"
		 "\"first_name\":\"%s\"},\"chat\":{\"id\":-1001,\"type\":\"supergroup\"},\"text\":\"%s\"}}",
		 id, id, user, name, text);
	assert_int_equal(hook(w, "s3cret", buf), 200);
}

static void hook_press(struct wfix *w, long long id, const char *user, const char *data)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"callback_query\":{\"id\":\"cq%lld\",\"from\":{\"id\":%s,"
		 "\"first_name\":\"P%s\"},\"message\":{\"message_id\":100,\"chat\":{\"id\":-1001,"
		 "\"type\":\"supergroup\"}},\"chat_instance\":\"1\",\"data\":\"%s\"}}", id, id, user, user, data);
	assert_int_equal(hook(w, "s3cret", buf), 200);
}

/* Wait until the outbox of Telegram is empty (everything delivered), failing after timeout_ms. */
static void wait_delivered_within(struct dfix *x, int timeout_ms)
{
	int64_t t0 = now_ms();
	int pending = 1;

	while (pending) {
		assert_int_equal(store_out_count(x->s, "telegram", &pending, NULL, NULL), GB_OK);
		if (pending && now_ms() - t0 > timeout_ms) {
			fake_tg_dump(x->f);
			fail_msg("%d rows still pending", pending);
		}
		if (pending)
			usleep(5000);
	}
}

static void wait_delivered(struct dfix *x)
{
	wait_delivered_within(x, 10000);
}


/*
 * A press is answered before its update is acknowledged, while the chat's
 * messages still wait out the group's pacing: an answer never queues
 * behind them (Telegram refuses one older than a few seconds).
 */
static void webhook_press_answered_at_once(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;
	int pending = 0;

	hook_text(w, 90000, "1", "Asha", "/new ludo");
	hook_text(w, 90001, "2", "Bina", "/join");
	hook_text(w, 90002, "3", "Chandra", "/join");
	fake_tg_clear(x->f);
	hook_press(w, 90003, "1", "2:0:start");
	/* answered during the webhook call itself */
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), 1);
	assert_int_equal(store_out_count(x->s, "telegram", &pending, NULL, NULL), GB_OK);
	assert_true(pending >= 1);
	/* and only once: its row is gone, what is left are the chat's messages */
	assert_int_equal(out_rows(x, "\"kind\":\"ack\""), 0);
	wait_delivered_within(x, 20000);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), 1);
}

/*
 * Without the secret header an update is refused from its headers: 401
 * while the body it promised has not been sent, and nothing is counted
 * as received.
 */
static void webhook_refused_before_its_body(void **state)
{
	struct wfix *w = *state;
	static const char head[] = "POST /telegram HTTP/1.1\r\nHost: t\r\nContent-Length: 60000\r\n\r\n";
	static const char wrong[] = "POST /telegram HTTP/1.1\r\nHost: t\r\n"
				    "X-Telegram-Bot-Api-Secret-Token: wrong\r\nContent-Length: 60000\r\n\r\n";

	metrics_reset();
	assert_int_equal(raw_head_answer(http_port(w->http), head, 5000), 401);
	assert_int_equal(raw_head_answer(http_port(w->http), wrong, 5000), 401);
	assert_true(metrics_value("gamebot_updates_refused_total", "platform=\"telegram\",reason=\"auth\"") == 2);
	assert_true(metrics_value("gamebot_updates_received_total", "platform=\"telegram\"") == 0);
}

/* An inline query from user as Telegram sends it; returns the webhook's status. */
static long hook_inline(struct wfix *w, long long id, const char *user)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"inline_query\":{\"id\":\"iq%lld\",\"from\":{\"id\":%s,"
		 "\"first_name\":\"A\"},\"query\":\"\",\"chat_type\":\"supergroup\"}}", id, id, user);
	return hook(w, "s3cret", buf);
}

/*
 * Inline queries are rate limited in a budget of their own (twice the
 * commands'): past it they get no answer, and cost no call to Telegram.
 */
static void webhook_lookups_limited(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;
	int per = 2 * x->env.bot.rate_user_per_min;

	limit_reset();
	assert_true(per > 0);
	for (int i = 0; i < per + 10; i++)
		assert_int_equal(hook_inline(w, 95000 + i, "77"), 200);
	assert_int_equal(fake_tg_count(x->f, "answerInlineQuery"), per);
	/* another user's budget is their own */
	assert_int_equal(hook_inline(w, 96000, "78"), 200);
	assert_int_equal(fake_tg_count(x->f, "answerInlineQuery"), per + 1);
	/* a press on a message sent in inline mode is answered from the same budget */
	for (int i = 0; i < 2; i++) {
		char buf[512];

		snprintf(buf, sizeof(buf), "{\"update_id\":%d,\"callback_query\":{\"id\":\"cqe%d\",\"from\":"
			 "{\"id\":%s,\"first_name\":\"A\"},\"inline_message_id\":\"im1\",\"chat_instance\":\"1\","
			 "\"data\":\"2:0:start\"}}", 96100 + i, i, i ? "78" : "77");
		assert_int_equal(hook(w, "s3cret", buf), 200);
	}
	/* answered by the listener, or by a worker that claimed its row first */
	wait_delivered(x);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), 1);
}

/*
 * Presses past the rate limit's one warning write nothing and cost no
 * call: the webhook's own answer closes each (answerCallbackQuery as the
 * answer's method), so the presser's client stops waiting.
 */
static void webhook_press_over_limit_closed_in_answer(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;
	struct body out;
	char buf[512];
	json_t *ans;
	int before;

	limit_reset();
	/* a press on no table of ours counts against the limit (5 a minute here) */
	for (int i = 0; i < 8; i++)
		hook_press(w, 98000 + i, "77", "2:0:start");
	wait_delivered_within(x, 10000);
	before = fake_tg_count(x->f, "answerCallbackQuery");
	snprintf(buf, sizeof(buf), "{\"update_id\":98100,\"callback_query\":{\"id\":\"cqflood\",\"from\":"
		 "{\"id\":77,\"first_name\":\"P\"},\"message\":{\"message_id\":100,\"chat\":{\"id\":-1001,"
		 "\"type\":\"supergroup\"}},\"chat_instance\":\"1\",\"data\":\"2:0:start\"}}");
	assert_int_equal(hook_body(w, "s3cret", buf, &out), 200);
	ans = json_loads(out.buf, 0, NULL);
	assert_non_null(ans);
	assert_string_equal(json_string_value(json_object_get(ans, "method")), "answerCallbackQuery");
	assert_string_equal(json_string_value(json_object_get(ans, "callback_query_id")), "cqflood");
	json_decref(ans);
	/* a typed command over the limit is answered plainly */
	snprintf(buf, sizeof(buf), "{\"update_id\":98101,\"message\":{\"message_id\":98101,\"from\":{\"id\":77,"
		 "\"first_name\":\"P\"},\"chat\":{\"id\":-1001,\"type\":\"supergroup\"},\"date\":1,"
		 "\"text\":\"/board\"}}");
	assert_int_equal(hook_body(w, "s3cret", buf, &out), 200);
	assert_null(strstr(out.buf, "method"));
	/* the next press's answer is the proof that nothing else went out for the flood */
	hook_press(w, 98102, "78", "2:0:start");
	wait_delivered_within(x, 10000);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), before + 1);
}

/* A failed getChatMember is remembered for a while: a flood of admin commands asks once. */
static void webhook_rights_failure_cached(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;

	fake_tg_fault(x->f, "getChatMember", 0, 1000, FAKE_TG_500, 0);
	for (int i = 0; i < 5; i++)
		hook_text(w, 97000 + i, "77", "Asha", "/speed fast");
	assert_int_equal(fake_tg_count(x->f, "getChatMember"), 1);
}

/*
 * The inline answer is sent while the update waits: a Bot API slow to
 * answer holds the listener's thread a few seconds, not the full call
 * timeout (10 s).
 */
static void webhook_inline_answer_short_timeout(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;
	int64_t t0;

	fake_tg_fault(x->f, "answerInlineQuery", 0, 1, FAKE_TG_SLOW, 12000);
	t0 = now_ms();
	assert_int_equal(hook_inline(w, 98000, "77"), 200);
	print_message("      inline query answered in %lld ms with the Bot API stalled\n",
		      (long long)(now_ms() - t0));
	assert_true(now_ms() - t0 < 8000);
}

struct redelivery {
	struct wfix *w;
	const char *update;
	long status;
};

static void *post_update(void *arg)
{
	struct redelivery *r = arg;

	r->status = hook(r->w, "s3cret", r->update);
	return NULL;
}

/*
 * The same press delivered again while its answer is still on its way
 * (Telegram, or a client, sending it again for want of an answer in time):
 * the repeat changes nothing and its answer is not sent a second time.
 */
static void webhook_press_delivered_again_answered_once(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;
	static const char press[] = "{\"update_id\":90003,\"callback_query\":{\"id\":\"cq90003\",\"from\":{\"id\":1,"
				    "\"first_name\":\"P1\"},\"message\":{\"message_id\":100,\"chat\":{\"id\":-1001,"
				    "\"type\":\"supergroup\"}},\"chat_instance\":\"1\",\"data\":\"2:0:start\"}}";
	struct redelivery first = { .w = w, .update = press };
	pthread_t th;

	hook_text(w, 90000, "1", "Asha", "/new ludo");
	hook_text(w, 90001, "2", "Bina", "/join");
	hook_text(w, 90002, "3", "Chandra", "/join");
	wait_delivered(x);
	fake_tg_clear(x->f);
	fake_tg_fault(x->f, "answerCallbackQuery", 0, 1, FAKE_TG_SLOW, 1500);
	assert_int_equal(pthread_create(&th, NULL, post_update, &first), 0);
	/* the first delivery's answer has reached the Bot API, which is slow to reply */
	for (int i = 0; i < 1000 && fake_tg_count(x->f, "answerCallbackQuery") == 0; i++)
		usleep(10000);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), 1);
	assert_int_equal(hook(w, "s3cret", press), 200);
	pthread_join(th, NULL);
	assert_int_equal(first.status, 200);
	wait_delivered(x);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), 1);
}

/*
 * Updates the adapter answers itself, not through a command - an inline
 * query, a press on a message sent in inline mode, the bot's own
 * membership - delivered twice by the webhook (Telegram retrying for want
 * of an answer in time): answered once, the repeat acknowledged and dropped.
 */
static void webhook_every_kind_delivered_again_run_once(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;
	static const char elsewhere[] = "{\"update_id\":97001,\"callback_query\":{\"id\":\"cq97001\","
					"\"from\":{\"id\":77,\"first_name\":\"A\"},\"inline_message_id\":\"im9\","
					"\"chat_instance\":\"1\",\"data\":\"2:0:board\"}}";
	static const char member[] = "{\"update_id\":97002,\"my_chat_member\":{\"chat\":{\"id\":-5,"
				     "\"type\":\"group\"},\"new_chat_member\":{\"status\":\"member\"}}}";

	metrics_reset();
	assert_int_equal(hook_inline(w, 97000, "77"), 200);
	assert_int_equal(hook_inline(w, 97000, "77"), 200);
	assert_int_equal(hook(w, "s3cret", elsewhere), 200);
	assert_int_equal(hook(w, "s3cret", elsewhere), 200);
	assert_int_equal(hook(w, "s3cret", member), 200);
	assert_int_equal(hook(w, "s3cret", member), 200);
	/* a new update of each kind is answered as before */
	assert_int_equal(hook_inline(w, 97003, "77"), 200);
	assert_int_equal(fake_tg_count(x->f, "answerInlineQuery"), 2);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), 1);
	/* the inline query and the membership; the press is a command, dropped as one */
	assert_true(metrics_value("gamebot_updates_refused_total",
				  "platform=\"telegram\",reason=\"repeated\"") == 2);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"board\",result=\"duplicate\"") == 1);
}

/*
 * The same updates asked for again by getUpdates (the offset was not
 * saved: a restart, a store that failed): each answered once, a command
 * run once.
 */
static void polling_batch_delivered_again_run_once(void **state)
{
	struct dfix *x = *state;
	static const char *const batch[] = {
		"{\"update_id\":9600,\"inline_query\":{\"id\":\"iq9600\",\"from\":{\"id\":77,"
		"\"first_name\":\"A\"},\"query\":\"\"}}",
		"{\"update_id\":9601,\"callback_query\":{\"id\":\"cq9601\",\"from\":{\"id\":77,"
		"\"first_name\":\"A\"},\"inline_message_id\":\"im1\",\"chat_instance\":\"1\","
		"\"data\":\"2:0:board\"}}",
		"{\"update_id\":9602,\"my_chat_member\":{\"chat\":{\"id\":-5,\"type\":\"group\"},"
		"\"new_chat_member\":{\"status\":\"member\"}}}",
		"{\"update_id\":9603,\"message\":{\"message_id\":9603,\"from\":{\"id\":77,"
		"\"first_name\":\"Asha\"},\"chat\":{\"id\":-1001,\"type\":\"supergroup\"},"
		"\"text\":\"/new ludo\"}}",
	};

	metrics_reset();
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < sizeof(batch) / sizeof(batch[0]); i++)
			fake_tg_push_update(x->f, batch[i]);
		poll_start(x);
		wait_offset(x, 9604);
		poll_stop(x);
		/* the stopped poll's last getUpdates has ended (its offset confirmed the batch) */
		assert_true(fake_tg_quiet(x->f, 10000));
		/* handled, but its offset lost: the restart asks for the same batch again */
		assert_int_equal(store_meta_set(x->s, "telegram.offset", "9600"), GB_OK);
	}
	assert_int_equal(fake_tg_count(x->f, "answerInlineQuery"), 1);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), 1);
	assert_true(metrics_value("gamebot_updates_refused_total",
				  "platform=\"telegram\",reason=\"repeated\"") == 2);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"board\",result=\"duplicate\"") == 1);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"new\",result=\"ok\"") == 1);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"new\",result=\"duplicate\"") == 1);
}

static void webhook_secret_malformed_repeat(void **state)
{
	struct wfix *w = *state;
	const char *upd = "{\"update_id\":31,\"message\":{\"message_id\":1,\"from\":{\"id\":77,"
			  "\"first_name\":\"Asha\"},\"chat\":{\"id\":-1001,\"type\":\"group\"},\"text\":\"/new ludo\"}}";

	metrics_reset();
	assert_int_equal(hook(w, NULL, upd), 401);
	assert_int_equal(hook(w, "wrong", upd), 401);
	assert_int_equal(hook(w, "s3cre", upd), 401);
	assert_int_equal(hook(w, "s3crett", upd), 401);
	assert_int_equal(hook(w, "", upd), 401);
	assert_int_equal(hook(w, "s3cret", "{\"update_id\":"), 400);
	assert_int_equal(hook(w, "s3cret", "[]"), 400);
	assert_int_equal(hook(w, "s3cret", upd), 200);
	/* Telegram sending it again (it got no answer in time): acknowledged, dropped */
	assert_int_equal(hook(w, "s3cret", upd), 200);
	assert_int_equal(hook(w, "s3cret", "{\"update_id\":32,\"poll\":{}}"), 200);
	/* what /metrics reports of it */
	assert_true(metrics_value("gamebot_updates_refused_total", "platform=\"telegram\",reason=\"auth\"") == 5);
	assert_true(metrics_value("gamebot_updates_refused_total", "platform=\"telegram\",reason=\"malformed\"") == 2);
	assert_true(metrics_value("gamebot_updates_received_total", "platform=\"telegram\"") == 5);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"new\",result=\"duplicate\"") == 1);
	wait_delivered(w->x);
	assert_int_equal(count_texts(w->x, "sendMessage", "Asha opened a table"), 1);
	assert_int_equal(table_posts(w->x), 1);
}

/*
 * Wait until the outbox of Telegram has nothing pending (delivered or set
 * aside) and no call is in the fake's hands (a held one has gone through,
 * whether or not the bot still waited for it).
 */
static void wait_settled(struct dfix *x, int timeout_ms)
{
	int64_t t0 = now_ms();
	int pending = 1;

	while (pending) {
		assert_int_equal(store_out_count(x->s, "telegram", &pending, NULL, NULL), GB_OK);
		if (pending && now_ms() - t0 > timeout_ms) {
			fake_tg_dump(x->f);
			fail_msg("%d rows still pending", pending);
		}
		if (pending)
			usleep(5000);
	}
	assert_true(fake_tg_quiet(x->f, timeout_ms));
}

/*
 * One delivery making two slow calls - a table posted afresh, then its old
 * message's buttons stripped - longer together than the row's lease (4 s),
 * with two workers: each call ends before the lease does, so the other
 * worker never claims the row while it is in hand, and the chat sees the
 * table once.
 */
static void lease_outlasted_by_slow_calls_sent_once(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;

	assert_int_equal(store_table_set_message(x->s, x->table, "100"), GB_OK);
	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_SLOW, 2500);
	fake_tg_fault(x->f, "editMessageReplyMarkup", 0, 1, FAKE_TG_SLOW, 2500);
	assert_int_equal(store_out_add(x->s, "telegram", "-1001", x->table, NULL,
				       "{\"kind\":\"table\",\"text\":\"board R\",\"table\":1,\"turn\":0,"
				       "\"repost\":true}", 1), GB_OK);
	outbox_wake(w->ob);
	wait_settled(x, 20000);
	assert_int_equal(count_texts(x, "sendMessage", "board R"), 1);
}

/*
 * A sendMessage Telegram answers only after the bot's call gave up (held
 * 12.5 s; the lease of 12 s lets the call wait 10.8 s): the message is in
 * the chat all the same. It is not sent again - Telegram cannot be asked
 * whether it has it, nor drop a repeat - but set aside, in doubt, and the
 * rows behind it go on: the chat sees each message once.
 */
static void send_answered_after_the_call_gave_up_not_repeated(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;
	int nasides = 0;

	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_SLOW, 12500);
	assert_int_equal(store_out_add(x->s, "telegram", "-1001", 0, NULL,
				       "{\"kind\":\"public\",\"text\":\"slow news\"}", 1), GB_OK);
	assert_int_equal(store_out_add(x->s, "telegram", "-1001", 0, NULL,
				       "{\"kind\":\"public\",\"text\":\"next news\"}", 1), GB_OK);
	outbox_wake(w->ob);
	wait_settled(x, 30000);
	assert_int_equal(count_texts(x, "sendMessage", "slow news"), 1);
	assert_int_equal(count_texts(x, "sendMessage", "next news"), 1);
	assert_int_equal(store_out_count(x->s, "telegram", NULL, &nasides, NULL), GB_OK);
	assert_int_equal(nasides, 1);
}

static void webhook_store_failure(void **state)
{
	struct wfix *w = *state;

	/* this thread's store cannot be opened: Telegram is told to send it again */
	w->x->env.db = "/proc/gamebot-no-such-dir/x.db";
	telegram_adapter.stop(w->x->self);
	http_stop(w->http);
	w->http = NULL;
	assert_int_equal(telegram_adapter.start(&w->x->env, &w->x->self), GB_OK);
	{
		struct http_route routes[4];
		struct http_options ho;

		http_options_init(&ho);
		ho.listen = "127.0.0.1:0";
		ho.routes = routes;
		ho.nroutes = telegram_adapter.routes(w->x->self, routes, 4);
		assert_int_equal(http_start(&w->http, &ho), GB_OK);
		snprintf(w->url, sizeof(w->url), "http://127.0.0.1:%d/telegram", http_port(w->http));
	}
	assert_true(hook(w, "s3cret", "{\"update_id\":41,\"message\":{\"from\":{\"id\":1,\"first_name\":\"A\"},"
			 "\"chat\":{\"id\":-1001},\"text\":\"/help\"}}") >= 500);
	w->x->env.db = w->x->db;
}

static void webhook_callbreak_game(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;
	const char *names[] = { "Asha", "Bina", "Chandra", "Dipa" };
	char user[16], buf[512], data[80];
	long long id = 50000;
	int64_t table = 0;
	int turn, presses = 0, plays = 0;
	json_t *msg, *kb;

	fake_tg_member(x->f, "-1001", "1", "creator");
	hook_text(w, id++, "1", names[0], "/settings callbreak rounds 1");
	hook_text(w, id++, "1", names[0], "/new callbreak");
	for (int i = 1; i < 4; i++) {
		snprintf(user, sizeof(user), "%d", i + 1);
		hook_text(w, id++, user, names[i], "/join");
	}
	wait_delivered(x);
	hook_press(w, id++, "1", "2:0:start");
	presses++;
	wait_delivered(x);
	/* bids with the table's buttons */
	for (int k = 0; k < 4; k++) {
		turn = table_turn(x, &table);
		msg = last_table(x);
		kb = json_object_get(json_object_get(msg, "reply_markup"), "inline_keyboard");
		snprintf(data, sizeof(data), "%s",
			 json_string_value(json_object_get(json_array_get(json_array_get(kb, 0), 1), "callback_data")));
		json_decref(msg);
		assert_non_null(strstr(data, ":bid 2"));
		snprintf(user, sizeof(user), "%d", turn + 1);
		hook_press(w, id++, user, data);
		presses++;
		wait_delivered(x);
	}
	/* a button from an earlier turn: refused with an alert, nothing changes */
	turn = table_turn(x, &table);
	snprintf(user, sizeof(user), "%d", turn + 1);
	hook_press(w, id++, user, "2:1:bid 3");
	presses++;
	wait_delivered(x);
	assert_int_equal(table_turn(x, &table), turn);
	{
		json_t *b = fake_tg_nth(x->f, "answerCallbackQuery", fake_tg_count(x->f, "answerCallbackQuery") - 1);

		assert_true(json_is_true(json_object_get(b, "show_alert")));
		json_decref(b);
	}
	/* "Show my hand": the hand as an alert on the button */
	msg = last_table(x);
	{
		char *kbt = json_dumps(json_object_get(msg, "reply_markup"), 0);
		const char *p = strstr(kbt, ":hand\"");

		assert_non_null(p);
		while (p > kbt && p[-1] != '"')
			p--;
		snprintf(data, sizeof(data), "%.*s", (int)(strstr(p, "\"") - p), p);
		free(kbt);
	}
	json_decref(msg);
	hook_press(w, id++, user, data);
	presses++;
	wait_delivered(x);
	assert_true(count_texts(x, "answerCallbackQuery", "♠") + count_texts(x, "answerCallbackQuery", "♥") +
		    count_texts(x, "answerCallbackQuery", "♦") + count_texts(x, "answerCallbackQuery", "♣") >= 1);

	/* every card through inline mode: the player's legal cards, one chosen */
	for (turn = table_turn(x, &table); turn >= 0 && plays < 60; turn = table_turn(x, &table)) {
		json_t *ans, *results;
		const char *rid;
		int before = fake_tg_count(x->f, "answerInlineQuery");

		snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"inline_query\":{\"id\":\"iq%lld\",\"from\":{\"id\":%d,"
			 "\"first_name\":\"%s\"},\"query\":\"\",\"chat_type\":\"supergroup\"}}", id, id, turn + 1,
			 names[turn]);
		id++;
		assert_int_equal(hook(w, "s3cret", buf), 200);
		assert_int_equal(fake_tg_count(x->f, "answerInlineQuery"), before + 1);
		ans = fake_tg_nth(x->f, "answerInlineQuery", before);
		results = json_object_get(ans, "results");
		assert_true(json_array_size(results) >= 1);
		rid = json_string_value(json_object_get(json_array_get(results, 0), "id"));
		snprintf(buf, sizeof(buf), "{\"update_id\":%lld,\"chosen_inline_result\":{\"result_id\":\"%s\","
			 "\"from\":{\"id\":%d,\"first_name\":\"%s\"},\"query\":\"\"}}", id++, rid, turn + 1, names[turn]);
		json_decref(ans);
		assert_int_equal(hook(w, "s3cret", buf), 200);
		plays++;
	}
	assert_int_equal(plays, 52);
	wait_delivered(x);
	/* one table message for the whole game, every press answered */
	assert_int_equal(table_posts(x), 1);
	assert_true(fake_tg_count(x->f, "answerCallbackQuery") >= presses);
	assert_true(count_texts(x, "sendMessage", "wins") + count_texts(x, "sendMessage", "won") >= 1);
}

/* ---- faults: an outage of the API, a crash of the service ---- */

/* The first legal action of the seat to act, as a command for its user; false when none. */
static bool next_action(struct dfix *x, char *user, size_t un, char *cmd, size_t cn)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	struct gb_action acts[GB_MAX_LEGAL];
	const struct gb_game *g;
	json_error_t err;
	json_t *w;
	void *st;
	bool ok = false;

	assert_int_equal(store_chat_get(x->s, "telegram", "-1001", "en", &c), GB_OK);
	if (store_table_open_get(x->s, c.id, &t) == GB_OK && t.state && t.status == STORE_PLAYING) {
		g = gb_game_find(t.game);
		st = calloc(1, g->state_size);
		w = json_loads(t.state, 0, &err);
		assert_int_equal(g->from_json(st, json_object_get(w, "game")), GB_OK);
		if (g->turn(st) >= 0 && g->legal(st, acts) > 0) {
			snprintf(user, un, "%d", g->turn(st) + 1);
			cmd[0] = '/';
			g->format(st, &acts[0], cmd + 1, cn - 1);
			ok = true;
		}
		json_decref(w);
		free(st);
	}
	store_table_release(&t);
	store_chat_release(&c);
	return ok;
}

/* The texts of the lines (not boards) sent to chat -1001, in order, joined with "|". */
static void public_lines(struct dfix *x, struct strbuf *sb)
{
	for (int i = 0; i < fake_tg_count(x->f, "sendMessage"); i++) {
		json_t *b = fake_tg_nth(x->f, "sendMessage", i);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (text && strncmp(text, "<pre>", 5) && json_integer_value(json_object_get(b, "chat_id")) == -1001) {
			sb_add(sb, text);
			sb_add(sb, "|");
		}
		json_decref(b);
	}
}

/* No board was sent twice: every edit differs from the one before it. */
static void no_repeated_edits(struct dfix *x)
{
	for (int i = 1; i < fake_tg_count(x->f, "editMessageText"); i++) {
		json_t *a = fake_tg_nth(x->f, "editMessageText", i - 1), *b = fake_tg_nth(x->f, "editMessageText", i);

		assert_string_not_equal(json_string_value(json_object_get(a, "text")),
					json_string_value(json_object_get(b, "text")));
		json_decref(a);
		json_decref(b);
	}
}

/* The lines of opening a Ludo table for Asha, Bina and Chandra, each once and in this order. */
static void assert_ludo_lines(const char *lines)
{
	/*
	 * Nothing reached Telegram during the opening: of its seating lines
	 * (opened, sits down, sits down, begins) only the newest is left to
	 * send - the board lists the seats - and no line is lost after that.
	 * A row a worker was already sending when the next line came (its
	 * try failing on the API that is down) is never replaced, so it may
	 * go out too: once, and before the lines after it.
	 */
	static const char *const seating[] = { "Asha opened a table of Ludo.", "Bina sits down in seat",
					       "Chandra sits down in seat" };
	const char *last = "The game of Ludo begins!|";
	size_t k = 0, n = strlen(lines), tail = strlen(last);
	const char *p = lines;

	assert_true(n >= tail);
	assert_string_equal(lines + n - tail, last);
	while (p < lines + n - tail) {
		while (k < sizeof(seating) / sizeof(seating[0]) && strncmp(p, seating[k], strlen(seating[k])))
			k++;
		assert_true(k < sizeof(seating) / sizeof(seating[0])); /* a seating line, in order, once */
		k++;
		p = strchr(p, '|');
		assert_non_null(p);
		p++;
	}
}

static void outage_then_everything_in_order(void **state)
{
	struct wfix *w = *state;
	struct dfix *x = w->x;
	struct strbuf lines = { 0 };
	char user[16], cmd[64];
	long long id = 60000;

	fake_tg_clear(x->f);
	fake_tg_down(x->f);
	hook_text(w, id++, "1", "Asha", "/new ludo");
	hook_text(w, id++, "2", "Bina", "/join");
	hook_text(w, id++, "3", "Chandra", "/join");
	hook_text(w, id++, "1", "Asha", "/start");
	for (int k = 0; k < 12 && next_action(x, user, sizeof(user), cmd, sizeof(cmd)); k++)
		hook_text(w, id++, user, "P", cmd);
	usleep(500000); /* the worker keeps failing meanwhile */
	assert_int_equal(fake_tg_count(x->f, NULL), 0);
	assert_int_equal(fake_tg_up(x->f), 0);
	wait_delivered(x);
	public_lines(x, &lines);
	assert_ludo_lines(sb_str(&lines));
	sb_release(&lines);
	/* one board posted, then only its newest state: not one per move */
	assert_int_equal(table_posts(x), 1);
	assert_true(fake_tg_count(x->f, "editMessageText") <= 1);
	no_repeated_edits(x);
}

static const char *bin(void)
{
	const char *b = getenv("GAMEBOT_BIN");

	return b ? b : "bin/gamebot";
}

/* `gamebot serve` on x's database in webhook mode against the fake; returns its pid. */
static pid_t serve(struct dfix *x, int port)
{
	char e_db[160], e_listen[96], e_api[160], url[128];
	const char *env[] = { "GAMEBOT_CONFIG=/dev/null", e_db, e_listen,
			      "GAMEBOT_TELEGRAM_TOKEN=" TOKEN, e_api, "GAMEBOT_TELEGRAM_MODE=webhook",
			      "GAMEBOT_TELEGRAM_SECRET=s3cret", "GAMEBOT_TELEGRAM_PACING=off", NULL };
	pid_t pid;

	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s", x->db);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", port);
	snprintf(e_api, sizeof(e_api), "GAMEBOT_TELEGRAM_API_URL=%s", fake_tg_url(x->f));
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/healthz", port);
	/* its log lines go with the suite's */
	pid = spawn(bin(), (char *const[]){ (char *)bin(), "serve", NULL }, env, NULL, false);
	assert_true(pid > 0);
	if (wait_serving(pid, url, 20000))
		return pid;
	fail_msg("gamebot serve did not answer /healthz");
	return pid;
}

static void sigkill_with_rows_pending(void **state)
{
	struct dfix *x = *state;
	struct wfix w = { .x = x };
	struct strbuf lines = { 0 };
	char user[16], cmd[64];
	long long id = 70000;
	int port = free_port(), status, pending = 0, moves = 0;
	pid_t pid;

	telegram_adapter.stop(x->self);
	x->self = NULL;
	snprintf(w.url, sizeof(w.url), "http://127.0.0.1:%d/telegram", port);
	fake_tg_down(x->f);
	pid = serve(x, port);
	hook_text(&w, id++, "1", "Asha", "/new ludo");
	hook_text(&w, id++, "2", "Bina", "/join");
	hook_text(&w, id++, "3", "Chandra", "/join");
	hook_text(&w, id++, "1", "Asha", "/start");
	for (int k = 0; k < 12 && next_action(x, user, sizeof(user), cmd, sizeof(cmd)); k++)
		hook_text(&w, id++, user, "P", cmd);
	assert_int_equal(store_move_count(x->s, x->table + 1, &moves), GB_OK);
	assert_true(moves >= 12);
	assert_int_equal(store_out_count(x->s, "telegram", &pending, NULL, NULL), GB_OK);
	assert_true(pending >= 2); /* the newest seating line and board */
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));

	/* the API back, the service restarted: everything goes out, once */
	assert_int_equal(fake_tg_up(x->f), 0);
	pid = serve(x, port);
	wait_delivered_within(x, 45000); /* rows backing off when the API was down wait their turn */
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	public_lines(x, &lines);
	assert_ludo_lines(sb_str(&lines));
	sb_release(&lines);
	assert_int_equal(table_posts(x), 1);
	no_repeated_edits(x);
}

/*
 * A service stopped while it held claims (its rows under lease): the next
 * one on the same file takes them back at start and sends them at once,
 * not when the 120 s leases run out.
 */
static void leases_of_a_stopped_service_taken_back(void **state)
{
	struct dfix *x = *state;
	struct store_out o[8];
	int port = free_port(), status, n = 0;
	int64_t t0;
	pid_t pid;

	telegram_adapter.stop(x->self);
	x->self = NULL;
	for (int i = 0; i < 3; i++) {
		char chat[24];

		snprintf(chat, sizeof(chat), "-10077%d", i);
		assert_int_equal(store_out_add(x->s, "telegram", chat, 0, "",
					       "{\"kind\":\"public\",\"text\":\"hello\",\"lang\":\"en\"}", 0),
				 GB_OK);
	}
	/* claimed as a service does: on the wall clock, here for 120 s */
	assert_int_equal(store_out_claim(x->s, "telegram", bot_now_ms(), 120000, o, 8, &n), GB_OK);
	assert_int_equal(n, 3);
	for (int i = 0; i < n; i++)
		store_out_release(&o[i]);
	t0 = now_ms();
	pid = serve(x, port);
	assert_true(fake_tg_wait(x->f, "sendMessage", 3, 20000) >= 3);
	assert_true(now_ms() - t0 < 20000);
	wait_delivered_within(x, 20000);
	assert_int_equal(fake_tg_count(x->f, "sendMessage"), 3);
	kill(pid, SIGTERM);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fake_records_calls_and_answers),
		cmocka_unit_test(fake_faults),
		cmocka_unit_test(fake_settles_a_killed_clients_last_call),
		cmocka_unit_test(fake_members_and_updates),
		cmocka_unit_test(fake_down_and_up),
		cmocka_unit_test(update_message_commands),
		cmocka_unit_test(update_callback_query),
		cmocka_unit_test(update_inline_and_others),
		cmocka_unit_test(callback_data_round_trip),
		cmocka_unit_test(render_table_message),
		cmocka_unit_test(render_other_kinds),
		cmocka_unit_test(render_limits),
		cmocka_unit_test(pacing),
		cmocka_unit_test(pacing_counts_arrival),
		cmocka_unit_test(pacing_counts_slowest_arrival),
		cmocka_unit_test(pacing_lines_and_overall),
		cmocka_unit_test(config_spellings),
		cmocka_unit_test(store_tables_of_a_user),
		cmocka_unit_test(choices_are_the_legal_actions),
		cmocka_unit_test_setup_teardown(deliver_queue_message_once, dfix_setup_unpaced, dfix_teardown),
		cmocka_unit_test_setup_teardown(deliver_table_posted_then_edited, dfix_setup_unpaced,
						dfix_teardown),
		cmocka_unit_test_setup_teardown(deliver_faults, dfix_setup_unpaced, dfix_teardown),
		cmocka_unit_test_setup_teardown(deliver_private_and_callbacks, dfix_setup_unpaced,
						dfix_teardown),
		cmocka_unit_test_setup_teardown(deliver_migrated_group, dfix_setup_unpaced, dfix_teardown),
		cmocka_unit_test_setup_teardown(deliver_within_the_deadline, dfix_setup_unpaced, dfix_teardown),
		cmocka_unit_test_setup_teardown(deliver_paced, dfix_setup_paced, dfix_teardown),
		cmocka_unit_test_setup_teardown(polling_commands_and_offset, pfix_setup, dfix_teardown),
		cmocka_unit_test_setup_teardown(polling_outage, pfix_setup, dfix_teardown),
		cmocka_unit_test_setup_teardown(polling_admin_rights, pfix_setup, dfix_teardown),
		cmocka_unit_test_setup_teardown(polling_migration_and_others, pfix_setup, dfix_teardown),
		cmocka_unit_test_setup_teardown(polling_inline_mode, pfix_setup, dfix_teardown),
		cmocka_unit_test_setup_teardown(polling_ludo_game_with_buttons, pfix_setup, dfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_press_answered_at_once, wfix_setup_paced,
						wfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_secret_malformed_repeat, wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(lease_outlasted_by_slow_calls_sent_once, wfix_setup_lease4,
						wfix_teardown),
		cmocka_unit_test_setup_teardown(send_answered_after_the_call_gave_up_not_repeated,
						wfix_setup_lease12, wfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_every_kind_delivered_again_run_once, wfix_setup,
						wfix_teardown),
		cmocka_unit_test_setup_teardown(polling_batch_delivered_again_run_once, pfix_setup,
						dfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_refused_before_its_body, wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_press_delivered_again_answered_once, wfix_setup,
						wfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_lookups_limited, wfix_setup_limited, wfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_press_over_limit_closed_in_answer, wfix_setup_limited,
						wfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_rights_failure_cached, wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_inline_answer_short_timeout, wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_store_failure, wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(webhook_callbreak_game, wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(outage_then_everything_in_order, wfix_setup, wfix_teardown),
		cmocka_unit_test_setup_teardown(sigkill_with_rows_pending, dfix_setup_unpaced, dfix_teardown),
		cmocka_unit_test_setup_teardown(leases_of_a_stopped_service_taken_back, dfix_setup_unpaced,
						dfix_teardown),
		cmocka_unit_test_setup_teardown(setup_webhook_and_commands, dfix_setup_unpaced, dfix_teardown),
		cmocka_unit_test_setup_teardown(setup_menus_are_the_command_table, dfix_setup_unpaced, dfix_teardown),
		cmocka_unit_test_setup_teardown(setup_polling_and_refusals, dfix_setup_unpaced, dfix_teardown),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (getenv("TEST_FILTER"))
		cmocka_set_test_filter(getenv("TEST_FILTER")); /* one test while debugging */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
