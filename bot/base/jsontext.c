/*
 * jsontext.c - see jsontext.h.
 */
#include "jsontext.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "games/game.h"
#include "games/strbuf.h"

#define MAX_DEPTH 64

/*
 * The length of the UTF-8 character at p (left bytes there) when p starts
 * a valid multi-byte one, else 0: no overlong forms, no surrogates,
 * nothing past U+10FFFF (what the library accepts).
 */
static int utf8_len(const unsigned char *p, size_t left)
{
	unsigned c = p[0], v;
	int n;

	if (c < 0xC2 || c > 0xF4)
		return 0;
	n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	if ((size_t)n > left)
		return 0;
	v = c & (0x7Fu >> n);
	for (int i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3Fu);
	}
	if (n == 3 && (v < 0x800 || (v >= 0xD800 && v <= 0xDFFF)))
		return 0;
	if (n == 4 && (v < 0x10000 || v > 0x10FFFF))
		return 0;
	return n;
}

/* The escape of an ASCII character that needs one, as the library writes it. */
static void add_escape(struct strbuf *sb, unsigned c)
{
	static const char hex[] = "0123456789ABCDEF";
	char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

	switch (c) {
	case '\\': sb_addn(sb, "\\\\", 2); break;
	case '"': sb_addn(sb, "\\\"", 2); break;
	case '\b': sb_addn(sb, "\\b", 2); break;
	case '\f': sb_addn(sb, "\\f", 2); break;
	case '\n': sb_addn(sb, "\\n", 2); break;
	case '\r': sb_addn(sb, "\\r", 2); break;
	case '\t': sb_addn(sb, "\\t", 2); break;
	default: sb_addn(sb, u, sizeof(u)); break;
	}
}

/* s (len bytes) as a JSON string; false when it is not UTF-8. */
static bool add_string(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len, *run = p;

	sb_addn(sb, "\"", 1);
	while (p < end) {
		unsigned c = *p;
		int n;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			p++;
			continue;
		}
		if (c >= 0x80) {
			n = utf8_len(p, (size_t)(end - p));
			if (!n)
				return false;
			p += n;
			continue;
		}
		sb_addn(sb, (const char *)run, (size_t)(p - run));
		add_escape(sb, c);
		run = ++p;
	}
	sb_addn(sb, (const char *)run, (size_t)(p - run));
	sb_addn(sb, "\"", 1);
	return true;
}

static void add_integer(struct strbuf *sb, json_int_t v)
{
	gb_text_int(sb, v);
}

static bool add_value(struct strbuf *sb, const json_t *j, int depth);

static bool add_object(struct strbuf *sb, const json_t *j, int depth)
{
	void *it = json_object_iter((json_t *)j);

	sb_addn(sb, "{", 1);
	while (it) {
		if (!add_string(sb, json_object_iter_key(it), json_object_iter_key_len(it)))
			return false;
		sb_addn(sb, ":", 1);
		if (!add_value(sb, json_object_iter_value(it), depth + 1))
			return false;
		it = json_object_iter_next((json_t *)j, it);
		if (it)
			sb_addn(sb, ",", 1);
	}
	sb_addn(sb, "}", 1);
	return true;
}

static bool add_value(struct strbuf *sb, const json_t *j, int depth)
{
	size_t n;

	if (!j || depth > MAX_DEPTH)
		return false;
	switch (json_typeof(j)) {
	case JSON_NULL: sb_addn(sb, "null", 4); return true;
	case JSON_TRUE: sb_addn(sb, "true", 4); return true;
	case JSON_FALSE: sb_addn(sb, "false", 5); return true;
	case JSON_INTEGER: add_integer(sb, json_integer_value(j)); return true;
	case JSON_STRING: return add_string(sb, json_string_value(j), json_string_length(j));
	case JSON_OBJECT: return add_object(sb, j, depth);
	case JSON_ARRAY:
		n = json_array_size(j);
		sb_addn(sb, "[", 1);
		for (size_t i = 0; i < n; i++) {
			if (i)
				sb_addn(sb, ",", 1);
			if (!add_value(sb, json_array_get(j, i), depth + 1))
				return false;
		}
		sb_addn(sb, "]", 1);
		return true;
	default:
		/* a real: the library's own digits */
		return false;
	}
}

char *json_compact(const json_t *j)
{
	struct strbuf sb = { 0 };

	if ((json_is_object(j) || json_is_array(j)) && add_value(&sb, j, 0) && !sb.failed)
		return sb_detach(&sb);
	sb_release(&sb);
	return json_dumps(j, JSON_COMPACT);
}
