/*
 * test_http.c - the real HTTP listener on 127.0.0.1 (a free port), spoken
 * to with libcurl: /healthz, unknown routes, oversized bodies, a route
 * handler receiving the body and headers.
 */
#include <curl/curl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/http.h"

struct body {
	char buf[4096];
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

static long request(int port, const char *method, const char *path, const char *data, size_t len,
		    const char *header, struct body *out)
{
	CURL *c = curl_easy_init();
	char url[256];
	long code = 0;
	struct curl_slist *h = NULL;

	assert_non_null(c);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
	memset(out, 0, sizeof(*out));
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (data) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)len);
	}
	if (header) {
		h = curl_slist_append(h, header);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	}
	assert_int_equal(curl_easy_perform(c), CURLE_OK);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return code;
}

static void echo_route(void *arg, struct bot *b, const struct http_request *req,
		       struct http_response *resp)
{
	const char *sig = http_header(req, "X-Test");
	char *body = malloc(req->body_len + 64);

	(void)arg;
	(void)b;
	snprintf(body, req->body_len + 64, "%s|%s", sig ? sig : "-", req->body);
	resp->status = 200;
	resp->body = body;
	resp->content_type = "text/plain";
}

static char dir[64];
static char db[128];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gamebot-http-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(db, sizeof(db), "%s/http.db", dir);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return 0;
}

static int teardown(void **state)
{
	char cmd[200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	curl_global_cleanup();
	return system(cmd) == 0 ? 0 : -1;
}

static void test_healthz_and_routes(void **state)
{
	struct http_server *h;
	struct bot_config cfg;
	struct body b;
	int port;
	char *big;

	(void)state;
	bot_config_init(&cfg);
	assert_int_equal(http_start(&h, "127.0.0.1:0", db, &cfg), GB_OK);
	port = http_port(h);
	assert_true(port > 0);
	assert_int_equal(http_route(h, "POST", "/echo", echo_route, NULL), GB_OK);

	assert_int_equal(request(port, "GET", "/healthz", NULL, 0, NULL, &b), 200);
	assert_string_equal(b.buf, "ok\n");
	assert_int_equal(request(port, "GET", "/nowhere", NULL, 0, NULL, &b), 404);
	assert_int_equal(request(port, "GET", "/echo", NULL, 0, NULL, &b), 404);
	assert_int_equal(request(port, "POST", "/echo", "{\"a\":1}", 7, "X-Test: yes", &b), 200);
	assert_string_equal(b.buf, "yes|{\"a\":1}");
	/* a body over the limit is refused, and the listener keeps serving */
	big = malloc(HTTP_MAX_BODY + 10);
	memset(big, 'x', HTTP_MAX_BODY + 10);
	assert_int_equal(request(port, "POST", "/echo", big, HTTP_MAX_BODY + 10, NULL, &b), 413);
	free(big);
	assert_int_equal(request(port, "GET", "/healthz", NULL, 0, NULL, &b), 200);
	http_stop(h);
}

static void test_bad_addresses(void **state)
{
	struct http_server *h = NULL;
	struct bot_config cfg;

	(void)state;
	bot_config_init(&cfg);
	assert_int_equal(http_start(&h, "nonsense", db, &cfg), GB_ECONFIG);
	assert_null(h);
	assert_int_equal(http_start(&h, "127.0.0.1:99999", db, &cfg), GB_ECONFIG);
	assert_int_equal(http_start(&h, "localhost:80x", db, &cfg), GB_ECONFIG);
	http_stop(NULL);
}

static void test_port_in_use(void **state)
{
	struct http_server *a, *b = NULL;
	struct bot_config cfg;
	char addr[64];

	(void)state;
	bot_config_init(&cfg);
	assert_int_equal(http_start(&a, "127.0.0.1:0", db, &cfg), GB_OK);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", http_port(a));
	assert_int_equal(http_start(&b, addr, db, &cfg), GB_EIO);
	assert_null(b);
	http_stop(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthz_and_routes),
		cmocka_unit_test(test_bad_addresses),
		cmocka_unit_test(test_port_in_use),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
