/*
 * render_text.c - the text helpers every board shares: numbers in the
 * chat's digits, display widths, lines padded and wrapped, names cut to
 * fit, catalogue texts.
 */
#include "render_text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bot/lang/i18n.h"
#include "games/utf8.h"
#include "width.h"

/* ---- numbers ---- */

const char *render_num(const struct render_ctx *rc, int v, char *buf, size_t n)
{
	static const char *const deva[10] = { "०", "१", "२", "३", "४", "५", "६", "७", "८", "९" };
	char ascii[16], *d = ascii + sizeof(ascii);
	unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
	size_t len = 0;

	if (!n)
		return buf;
	/* the digits of v, as "%d" writes them */
	*--d = '\0';
	do
		*--d = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		*--d = '-';
	if (!rc->devanagari) {
		len = (size_t)(ascii + sizeof(ascii) - 1 - d);
		if (len >= n)
			len = n - 1;
		memcpy(buf, d, len);
		buf[len] = '\0';
		return buf;
	}
	buf[0] = '\0';
	for (const char *p = d; *p; p++) {
		/* every Devanagari digit and the minus sign are three bytes */
		const char *piece = *p >= '0' && *p <= '9' ? deva[*p - '0'] : "−";

		if (len + 3 + 1 > n)
			break;
		memcpy(buf + len, piece, 3);
		len += 3;
		buf[len] = '\0';
	}
	return buf;
}

void render_int(const struct render_ctx *rc, int v, struct strbuf *out)
{
	char buf[48];

	sb_add(out, render_num(rc, v, buf, sizeof(buf)));
}

void render_tenths(const struct render_ctx *rc, int tenths, struct strbuf *out)
{
	int a = tenths < 0 ? -tenths : tenths;

	if (tenths < 0)
		sb_add(out, rc->devanagari ? "−" : "-");
	render_int(rc, a / 10, out);
	sb_add(out, ".");
	render_int(rc, a % 10, out);
}

/* n blanks, appended at once. */
static void add_blanks(struct strbuf *out, int n)
{
	static const char blanks[] = "                                        "; /* RENDER_MAX_COLS */

	while (n > 0) {
		int k = n < (int)sizeof(blanks) - 1 ? n : (int)sizeof(blanks) - 1;

		sb_addn(out, blanks, (size_t)k);
		n -= k;
	}
}

/* ---- display width ---- */

int render_widthn(const char *s, size_t n)
{
	size_t i = 0;
	int w = 0;

	while (i < n && s[i]) {
		unsigned char b = (unsigned char)s[i];
		uint32_t c;

		if (b < 0x80) {
			/* ASCII: a control draws nothing, the rest one column */
			w += b >= 0x20 && b != 0x7f;
			i++;
			continue;
		}
		i += utf8_decode(s + i, &c);
		w += width_of(c);
	}
	return w;
}

int render_width(const char *s)
{
	return render_widthn(s, strlen(s));
}

/*
 * Append the cluster of g bytes at s, a control shown as a blank, the
 * zero-width marks past RENDER_MAX_MARKS in a row left out.
 */
static void add_cluster(struct strbuf *out, const char *s, size_t g)
{
	size_t i = 0, run = 0; /* s[run..i) is kept as it is, appended at once */
	int marks = 0;

	while (i < g) {
		uint32_t c;
		size_t k = utf8_decode(s + i, &c);
		int cw = width_of(c);

		if (c < 0x20 || c == 0x7f) {
			sb_addn(out, s + run, i - run);
			sb_add(out, " ");
			run = i + k;
			marks = 0;
		} else if (cw > 0) {
			marks = 0;
		} else if (++marks > RENDER_MAX_MARKS) {
			/* a few marks per letter are writing; hundreds are a prank on the byte limit */
			sb_addn(out, s + run, i - run);
			run = i + k;
		}
		i += k;
	}
	sb_addn(out, s + run, i - run);
}

/* Columns of the cluster of g bytes at s: a control shows as a blank. */
static int cluster_width(const char *s, size_t g)
{
	int w = 0;

	for (size_t i = 0; i < g;) {
		uint32_t c;

		i += utf8_decode(s + i, &c);
		w += c < 0x20 || c == 0x7f ? 1 : width_of(c);
	}
	return w;
}

int render_add_fit(struct strbuf *out, const char *s, int cols, bool pad)
{
	int total, w = 0;
	size_t i = 0, len;

	if (!s)
		s = "";
	len = strlen(s);
	total = render_width(s);
	/* whole grapheme clusters: an emoji sequence, a flag or a conjunct is kept or left out whole */
	while (s[i]) {
		size_t g = utf8_grapheme_len(s + i, len - i);
		int cw = cluster_width(s + i, g);

		/* when cut, keep one column for the ellipsis */
		if (w + cw > (total > cols ? cols - 1 : cols))
			break;
		add_cluster(out, s + i, g);
		w += cw;
		i += g;
	}
	if (s[i] && cols > 0) {
		sb_add(out, "…");
		w++;
	}
	if (pad && w < cols) {
		add_blanks(out, cols - w);
		w = cols;
	}
	return w;
}

void render_add_right(struct strbuf *out, const char *s, int cols)
{
	add_blanks(out, cols - render_width(s));
	sb_add(out, s);
}

int render_line_cols(const struct strbuf *out)
{
	const char *s = sb_str(out);
	size_t start = out->len;

	/* from the end back to the last newline: only the last line is read */
	while (start > 0 && s[start - 1] != '\n')
		start--;
	return render_widthn(s + start, out->len - start);
}

void render_pad_to(struct strbuf *out, int col)
{
	add_blanks(out, col - render_line_cols(out));
}

void render_newline(struct strbuf *out)
{
	while (out->len > 0 && out->buf[out->len - 1] == ' ')
		out->buf[--out->len] = '\0';
	sb_add(out, "\n");
}

void render_add_wrapped(struct strbuf *out, const char *prefix, const char *const *items, int n)
{
	int indent = render_width(prefix), col = indent;

	sb_add(out, prefix);
	for (int i = 0; i < n; i++) {
		int w = render_width(items[i]);

		if (col > indent && col + 1 + w > RENDER_MAX_COLS) {
			render_newline(out);
			add_blanks(out, indent);
			col = indent;
		}
		if (col > 0) {
			sb_add(out, " ");
			col++;
		}
		sb_add(out, items[i]);
		col += w;
	}
	render_newline(out);
}

/* ---- names and catalogue texts ---- */

static const int seat_marks[GB_MAX_SEATS] = { M_MARK_1, M_MARK_2, M_MARK_3, M_MARK_4 };

void render_name(const struct render_ctx *rc, int seat, int cols, struct strbuf *out)
{
	const char *name = NULL;

	if (seat >= 0 && seat < rc->nseats && seat < GB_MAX_SEATS)
		name = rc->names[seat];
	if (!name || !name[0])
		name = seat >= 0 && seat < GB_MAX_SEATS ? tr(rc->lang, seat_marks[seat]) : "?";
	render_add_fit(out, name, cols, false);
}

const char *render_name_buf(const struct render_ctx *rc, int seat, int cols, char *buf, size_t n)
{
	struct strbuf sb = { 0 };

	if (!n)
		return buf;
	render_name(rc, seat, cols, &sb);
	/* never end inside a UTF-8 sequence */
	utf8_copy(buf, n, sb_str(&sb), sb.len);
	sb_release(&sb);
	return buf;
}

/* (name in parentheses: the function, not the checking macro of render_text.h) */
void (render_tr)(const struct render_ctx *rc, struct strbuf *out, int key, ...)
{
	va_list ap;

	va_start(ap, key);
	sb_vaddf(out, tr(rc->lang, key), ap);
	va_end(ap);
}
