/*
 * test_hidden_hands.c - a Call Break hand is seen by its holder alone.
 *
 * Whole games of four people are played through the real adapters against
 * the fake platforms (tests/fake_telegram.c, tests/fake_discord.c): every
 * way a move is made (the table's buttons, typed commands, Telegram's
 * inline mode and "Show my hand", Discord's ephemeral hand), and after each
 * one every message the whole chat can see - the table message, its
 * buttons (labels and callback data or custom ids), public lines, and on
 * Telegram a typed command's refusal - is checked against the four hands
 * at that moment: no card still held by anyone may appear. What each
 * player is shown privately is checked too: their own cards, the ones they
 * may play, in the order of the hand.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <sodium.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/adapter.h"
#include "adapters/discord.h"
#include "adapters/http.h"
#include "adapters/outbox.h"
#include "adapters/telegram.h"
#include "bot/base/config.h"
#include "bot/bot.h"
#include "bot/render/render.h"
#include "games/callbreak.h"
#include "games/strbuf.h"
#include "store/store.h"
#include "tests/fake_discord.h"
#include "tests/fake_telegram.h"
#include "tests/fixture.h"

/* ---- the hands at a moment ---- */

/* The chat's Call Break table as the store holds it now. */
struct seen {
	bool playing;
	int64_t table;
	int moves;
	struct callbreak st;
};

static void seen_get(struct store *s, const char *platform, const char *chat, struct seen *out)
{
	struct store_chat c = { 0 };
	struct store_table t = { 0 };
	json_error_t err;

	memset(out, 0, sizeof(*out));
	assert_int_equal(store_chat_get(s, platform, chat, "en", &c), GB_OK);
	if (store_table_open_get(s, c.id, &t) == GB_OK && t.state && t.status == STORE_PLAYING) {
		json_t *w = json_loads(t.state, 0, &err);

		assert_int_equal(callbreak_game.from_json(&out->st, json_object_get(w, "game")), GB_OK);
		json_decref(w);
		out->playing = true;
		out->table = t.id;
		assert_int_equal(store_move_count(s, t.id, &out->moves), GB_OK);
	}
	store_table_release(&t);
	store_chat_release(&c);
}

static int seen_turn(const struct seen *v)
{
	return v->playing ? callbreak_game.turn(&v->st) : -1;
}

static int seen_phase(const struct seen *v)
{
	struct callbreak_view cv;

	callbreak_view(&v->st, -1, &cv);
	return cv.phase;
}

/* A card as the chat shows it ("Q♠") and as a command names it ("play QS"). */
static void card_names(const struct callbreak *st, int card, char *sym, size_t ns, char *cmd, size_t nc)
{
	struct strbuf sb = { 0 };
	struct gb_action act = { .kind = GB_ACT_PLAY, .a = card };

	render_card(card, &sb);
	snprintf(sym, ns, "%s", sb_str(&sb));
	sb_release(&sb);
	callbreak_game.format(st, &act, cmd, nc);
}

/* Every card still held by anyone. */
struct held {
	char sym[CB_CARDS][8];
	char cmd[CB_CARDS][16];
	int n;
};

static void held_get(const struct seen *v, struct held *h)
{
	memset(h, 0, sizeof(*h));
	for (int seat = 0; v->playing && seat < CB_SEATS; seat++) {
		struct callbreak_view cv;

		callbreak_view(&v->st, seat, &cv);
		for (int card = 0; card < CB_CARDS; card++)
			if (cv.hand & CB_BIT(card)) {
				card_names(&v->st, card, h->sym[h->n], sizeof(h->sym[0]), h->cmd[h->n],
					   sizeof(h->cmd[0]));
				h->n++;
			}
	}
}

static int checked;  /* public texts and buttons checked, over the suite */

/* Fail when text (seen by the whole chat) shows a card still held. */
static void assert_hidden(const struct held *h, const char *where, const char *text)
{
	if (!text)
		return;
	for (int i = 0; i < h->n; i++)
		if (strstr(text, h->sym[i]) || strstr(text, h->cmd[i]))
			fail_msg("%s shows %s, a card still held: %s", where, h->sym[i], text);
	checked++;
}

/* The cards seat may play now, as commands, in the order its hand lists them. */
static int legal_in_hand_order(const struct seen *v, int seat, char out[][16])
{
	struct callbreak_view cv;
	int n = 0;

	callbreak_view(&v->st, seat, &cv);
	for (int suit = 0; suit < 4; suit++)
		for (int rank = CB_RANKS - 1; rank >= 0; rank--)
			if (cv.legal & CB_BIT(CB_CARD(suit, rank))) {
				char sym[8], cmd[15];

				card_names(&v->st, CB_CARD(suit, rank), sym, sizeof(sym), cmd, sizeof(cmd));
				snprintf(out[n++], 16, "/%s", cmd);
			}
	return n;
}

static size_t utf16_units(const char *s)
{
	size_t units = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		units += (*p & 0xC0) != 0x80 ? (*p >= 0xF0 ? 2 : 1) : 0;
	return units;
}

static size_t sink(char *p, size_t size, size_t n, void *arg)
{
	sb_addn(arg, p, size * n);
	return size * n;
}

/* ---- Telegram ---- */

#define TG_TOKEN "123456:hidden-hands"
#define GROUP "-1001"

struct tg {
	char dir[64], db[128];
	struct fake_tg *f;
	struct config cfg;
	struct adapter_env env;
	struct store *s;
	void *self;
	struct http_server *http;
	char url[96];
	long long id;          /* next update_id */
	int seen_calls;        /* fake calls already checked */
};

static int tg_setup(void **state)
{
	struct tg *x = calloc(1, sizeof(*x));

	assert_non_null(x);
	assert_int_equal(fixture_dir(x->dir, sizeof(x->dir), "hands-tg"), 0);
	snprintf(x->db, sizeof(x->db), "%s/h.db", x->dir);
	assert_int_equal(fake_tg_start(&x->f, TG_TOKEN, "gb_hands_bot"), 0);
	fixture_tg_env(&x->cfg, &x->env, x->f, TG_TOKEN, "webhook", false, x->db);
	x->env.bot.seed = 11;
	assert_int_equal(store_open(&x->s, x->db), GB_OK);
	assert_int_equal(telegram_adapter.start(&x->env, &x->self), GB_OK);
	assert_int_equal(fixture_listen(&telegram_adapter, x->self, &x->http, x->url, sizeof(x->url)), 0);
	x->id = 1;
	*state = x;
	return 0;
}

static int tg_teardown(void **state)
{
	struct tg *x = *state;
	int rc;

	http_stop(x->http);
	telegram_adapter.stop(x->self);
	store_free(x->s);
	fake_tg_free(x->f);
	rc = fixture_rm(x->dir);
	free(x);
	return rc;
}

/* Deliver every queued reply now, in order, through the adapter. */
static void tg_drain(struct tg *x)
{
	assert_int_equal(fixture_deliver_all(x->s, &telegram_adapter, x->self, "telegram"), 0);
}

/* POST one update (printf format) to the webhook, then deliver what it queued. */
static void tg_update(struct tg *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tg_update(struct tg *x, const char *fmt, ...)
{
	struct strbuf body = { 0 };
	long code;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&body, fmt, ap);
	va_end(ap);
	code = fixture_post_json(x->url, "X-Telegram-Bot-Api-Secret-Token: s3cret", sb_str(&body));
	if (code != 200)
		fail_msg("update answered %ld: %s", code, sb_str(&body));
	sb_release(&body);
	x->id++;
	tg_drain(x);
}

static const char *const tg_names[] = { "Asha", "Bina", "Chandra", "Dipa" };

/* seat's user id ("1".."4"): seats are taken in the order people sit down */
static void tg_text(struct tg *x, int seat, const char *text)
{
	tg_update(x, "{\"update_id\":%lld,\"message\":{\"message_id\":%lld,\"from\":{\"id\":%d,"
		  "\"first_name\":\"%s\"},\"chat\":{\"id\":" GROUP ",\"type\":\"supergroup\"},\"text\":\"%s\"}}",
		  x->id, x->id, seat + 1, tg_names[seat], text);
}

static void tg_press(struct tg *x, int seat, const char *data)
{
	tg_update(x, "{\"update_id\":%lld,\"callback_query\":{\"id\":\"cq%lld\",\"from\":{\"id\":%d,"
		  "\"first_name\":\"%s\"},\"message\":{\"message_id\":100,\"chat\":{\"id\":" GROUP ","
		  "\"type\":\"supergroup\"}},\"chat_instance\":\"1\",\"data\":\"%s\"}}",
		  x->id, x->id, seat + 1, tg_names[seat], data);
}

/* Is this call seen by the whole group? (Hands go to a user's own chat, alerts and inline answers to one person.) */
static bool tg_public(const char *method, const json_t *body)
{
	return (!strcmp(method, "sendMessage") || !strcmp(method, "editMessageText")) &&
	       json_integer_value(json_object_get(body, "chat_id")) == -1001;
}

/* Check every group-visible call since the last check against the hands now. */
static void tg_check_public(struct tg *x)
{
	struct seen v;
	struct held h;
	int n = fake_tg_count(x->f, NULL);

	seen_get(x->s, "telegram", GROUP, &v);
	held_get(&v, &h);
	for (; x->seen_calls < n; x->seen_calls++) {
		char method[64];
		json_t *b = fake_tg_call(x->f, x->seen_calls, method, sizeof(method), NULL);
		const json_t *row, *btn;
		size_t i, k;

		if (tg_public(method, b)) {
			assert_hidden(&h, method, json_string_value(json_object_get(b, "text")));
			json_array_foreach(json_object_get(json_object_get(b, "reply_markup"), "inline_keyboard"), i,
					   row) {
				json_array_foreach(row, k, btn) {
					assert_hidden(&h, "a button's label", json_string_value(json_object_get(btn, "text")));
					assert_hidden(&h, "a button's callback_data",
						      json_string_value(json_object_get(btn, "callback_data")));
				}
			}
		}
		json_decref(b);
	}
}

/* The newest table message (a <pre> board in the group): a new reference. */
static json_t *tg_last_table(struct tg *x)
{
	for (int i = fake_tg_count(x->f, NULL) - 1; i >= 0; i--) {
		char method[64];
		json_t *b = fake_tg_call(x->f, i, method, sizeof(method), NULL);
		const char *text = json_string_value(json_object_get(b, "text"));

		if (tg_public(method, b) && text && !strncmp(text, "<pre>", 5))
			return b;
		json_decref(b);
	}
	return NULL;
}

/* The table's button whose callback_data ends with ":cmd" (or, cmd NULL, the inline one): a new reference. */
static json_t *tg_button(struct tg *x, const char *cmd)
{
	json_t *msg = tg_last_table(x), *found = NULL;
	const json_t *row, *btn;
	size_t i, k;

	assert_non_null(msg);
	json_array_foreach(json_object_get(json_object_get(msg, "reply_markup"), "inline_keyboard"), i, row) {
		json_array_foreach(row, k, btn) {
			const char *data = json_string_value(json_object_get(btn, "callback_data"));
			size_t dl = data ? strlen(data) : 0, cl = cmd ? strlen(cmd) : 0;

			if (!found && cmd && data && dl > cl && data[dl - cl - 1] == ':' && !strcmp(data + dl - cl, cmd))
				found = json_incref((json_t *)btn);
			else if (!found && !cmd && json_object_get(btn, "switch_inline_query_current_chat"))
				found = json_incref((json_t *)btn);
		}
	}
	json_decref(msg);
	return found;
}

/* "@bot" typed by seat: the answer's results (a new reference). */
static json_t *tg_inline(struct tg *x, int seat)
{
	int before = fake_tg_count(x->f, "answerInlineQuery");
	json_t *ans, *results;

	tg_update(x, "{\"update_id\":%lld,\"inline_query\":{\"id\":\"iq%lld\",\"from\":{\"id\":%d,"
		  "\"first_name\":\"%s\"},\"query\":\"\",\"offset\":\"\",\"chat_type\":\"supergroup\"}}",
		  x->id, x->id, seat + 1, tg_names[seat]);
	assert_int_equal(fake_tg_count(x->f, "answerInlineQuery"), before + 1);
	ans = fake_tg_nth(x->f, "answerInlineQuery", before);
	assert_true(json_is_true(json_object_get(ans, "is_personal")));
	results = json_incref(json_object_get(ans, "results"));
	json_decref(ans);
	return results;
}

/* "Show my hand" pressed by seat: the alert holds every card of that seat's hand, within Telegram's 200. */
static void tg_show_hand(struct tg *x, int seat)
{
	json_t *btn = tg_button(x, "hand"), *ans;
	int before = fake_tg_count(x->f, "answerCallbackQuery");
	struct callbreak_view cv;
	struct seen v;
	const char *text;

	assert_non_null(btn);
	assert_string_equal(json_string_value(json_object_get(btn, "text")), "Show my hand");
	tg_press(x, seat, json_string_value(json_object_get(btn, "callback_data")));
	json_decref(btn);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), before + 1);
	ans = fake_tg_nth(x->f, "answerCallbackQuery", before);
	assert_true(json_is_true(json_object_get(ans, "show_alert")));
	text = json_string_value(json_object_get(ans, "text"));
	assert_non_null(text);
	assert_true(utf16_units(text) <= 200);
	seen_get(x->s, "telegram", GROUP, &v);
	callbreak_view(&v.st, seat, &cv);
	for (int card = 0; card < CB_CARDS; card++)
		if (cv.hand & CB_BIT(card)) {
			char sym[8], cmd[16];

			card_names(&v.st, card, sym, sizeof(sym), cmd, sizeof(cmd));
			if (!strstr(text, sym))
				fail_msg("the hand alert lacks %s: %s", sym, text);
		}
	json_decref(ans);
}

/*
 * An inline result as it is picked: Telegram posts its input_message_content
 * in the group ("... via @bot") whether or not the move is then taken, so it
 * is checked as every group message is, against the hands now.
 */
static void tg_check_posted(struct tg *x, const json_t *result)
{
	struct seen v;
	struct held h;

	seen_get(x->s, "telegram", GROUP, &v);
	held_get(&v, &h);
	assert_hidden(&h, "an inline pick's posted text",
		      json_string_value(json_object_get(json_object_get(result, "input_message_content"),
						       "message_text")));
}

/*
 * A card through inline mode: the table offers "My cards" (inline mode in
 * this chat); the results are exactly the seat's legal cards in the hand's
 * order; someone else asking is told there is nothing to play now; the
 * k-th result is chosen.
 */
static void tg_inline_play(struct tg *x, int seat, int k)
{
	char want[CB_CARDS][16];
	json_t *btn = tg_button(x, NULL), *results, *none;
	struct seen v;
	char id[80];
	int n;

	assert_non_null(btn);
	assert_string_equal(json_string_value(json_object_get(btn, "text")), "My cards");
	assert_string_equal(json_string_value(json_object_get(btn, "switch_inline_query_current_chat")), "");
	json_decref(btn);
	seen_get(x->s, "telegram", GROUP, &v);
	n = legal_in_hand_order(&v, seat, want);
	results = tg_inline(x, seat);
	assert_int_equal((int)json_array_size(results), n);
	for (int i = 0; i < n; i++)
		assert_string_equal(json_string_value(json_object_get(json_array_get(results, i), "description")),
				    want[i]);
	snprintf(id, sizeof(id), "%s",
		 json_string_value(json_object_get(json_array_get(results, k % n), "id")));
	/* Telegram posts the pick's text in the group as it is chosen, before the bot has played it */
	tg_check_posted(x, json_array_get(results, k % n));
	json_decref(results);
	none = tg_inline(x, (seat + 1) % 4);
	assert_int_equal(json_array_size(none), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(none, 0), "title")),
			    "Nothing to play now");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(none, 0), "description")),
			       tg_names[seat]));
	json_decref(none);
	tg_update(x, "{\"update_id\":%lld,\"chosen_inline_result\":{\"result_id\":\"%s\",\"from\":{\"id\":%d,"
		  "\"first_name\":\"%s\"},\"query\":\"\"}}", x->id, id, seat + 1, tg_names[seat]);
}

static void tg_whole_game(void **state)
{
	struct tg *x = *state;
	int steps = 0, plays = 0, bids = 0, nexts = 0, before;
	struct seen v;

	fake_tg_member(x->f, GROUP, "1", "creator");
	tg_text(x, 0, "/settings callbreak rounds 3");
	tg_text(x, 0, "/new callbreak");
	for (int seat = 1; seat < 4; seat++)
		tg_text(x, seat, "/join");
	tg_text(x, 0, "/start");
	tg_check_public(x);
	for (seen_get(x->s, "telegram", GROUP, &v); v.playing && steps < 400; seen_get(x->s, "telegram", GROUP, &v)) {
		int turn = seen_turn(&v);
		char cmd[32];

		before = v.moves;
		if (turn < 0) {
			json_t *btn = tg_button(x, "next");

			assert_non_null(btn);
			tg_press(x, nexts % 4, json_string_value(json_object_get(btn, "callback_data")));
			json_decref(btn);
			nexts++;
		} else if (seen_phase(&v) == CB_PHASE_BID) {
			json_t *btn = tg_button(x, "bid 2");

			/* the bids are on the table for everyone: a bid hides nothing */
			assert_non_null(btn);
			if (bids % 2)
				tg_press(x, turn, json_string_value(json_object_get(btn, "callback_data")));
			else
				tg_text(x, turn, "/bid 2");
			json_decref(btn);
			bids++;
		} else if (plays % 3 == 0) {
			tg_inline_play(x, turn, plays);
			plays++;
		} else {
			char want[CB_CARDS][16];
			int n = legal_in_hand_order(&v, turn, want);

			if (plays % 3 == 1)
				tg_show_hand(x, turn);
			snprintf(cmd, sizeof(cmd), "%s", want[(plays * 7) % n]);
			tg_text(x, turn, cmd);
			plays++;
		}
		tg_check_public(x);
		seen_get(x->s, "telegram", GROUP, &v);
		if (v.playing && v.moves != before + 1)
			fail_msg("step %d did not move the table on (%d moves, then %d)", steps, before, v.moves);
		steps++;
	}
	assert_false(v.playing);
	assert_int_equal(plays, 3 * 52);
	assert_int_equal(bids, 3 * 4);
	assert_int_equal(nexts, 2);
	assert_true(checked > 300);
}

/* Someone not seated at any table asks inline mode: one article says so (an empty list looks like no answer). */
static void tg_inline_nobody(void **state)
{
	struct tg *x = *state;
	json_t *results;
	int calls;

	results = tg_inline(x, 3);
	assert_int_equal(json_array_size(results), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(results, 0), "type")), "article");
	assert_string_equal(json_string_value(json_object_get(json_array_get(results, 0), "title")),
			    "Nothing to play now");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(results, 0), "description")),
			       "no seat"));
	/* picked all the same, it plays nothing and says nothing in the group */
	calls = fake_tg_count(x->f, NULL);
	tg_update(x, "{\"update_id\":%lld,\"chosen_inline_result\":{\"result_id\":\"%s\",\"from\":{\"id\":4,"
		  "\"first_name\":\"Dipa\"},\"query\":\"\"}}", x->id,
		  json_string_value(json_object_get(json_array_get(results, 0), "id")));
	assert_int_equal(fake_tg_count(x->f, NULL), calls);
	json_decref(results);
}

/* A player not to move, in a Nepali group: the article says whose turn it is, in Nepali. */
static void tg_inline_in_chat_language(void **state)
{
	struct tg *x = *state;
	json_t *results;
	struct seen v;
	int turn;

	fake_tg_member(x->f, GROUP, "1", "creator");
	tg_text(x, 0, "/lang ne");
	tg_text(x, 0, "/new callbreak");
	for (int seat = 1; seat < 4; seat++)
		tg_text(x, seat, "/join");
	tg_text(x, 0, "/start");
	seen_get(x->s, "telegram", GROUP, &v);
	turn = seen_turn(&v);
	assert_true(turn >= 0);
	results = tg_inline(x, (turn + 2) % 4);
	assert_int_equal(json_array_size(results), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(results, 0), "title")),
			    "अहिले खेल्ने केही छैन");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(results, 0), "description")),
			       tg_names[turn]));
	json_decref(results);
	tg_check_public(x);
}

/* ---- refusals and picks, card by card ---- */

/* A card of seat's hand the seat may not play now (held, not legal), or -1. */
static int held_illegal(const struct seen *v, int seat)
{
	struct callbreak_view cv;

	callbreak_view(&v->st, seat, &cv);
	for (int card = 0; cv.legal && card < CB_CARDS; card++)
		if ((cv.hand & CB_BIT(card)) && !(cv.legal & CB_BIT(card)))
			return card;
	return -1;
}

/* A card another seat than seat holds now. */
static int held_by_other(const struct seen *v, int seat)
{
	for (int other = 1; other < CB_SEATS; other++) {
		struct callbreak_view cv;

		callbreak_view(&v->st, (seat + other) % CB_SEATS, &cv);
		for (int card = 0; card < CB_CARDS; card++)
			if (cv.hand & CB_BIT(card))
				return card;
	}
	fail_msg("nobody else holds a card");
	return -1;
}

/* A card of seat's own hand. */
static int held_by(const struct seen *v, int seat)
{
	struct callbreak_view cv;

	callbreak_view(&v->st, seat, &cv);
	for (int card = 0; card < CB_CARDS; card++)
		if (cv.hand & CB_BIT(card))
			return card;
	fail_msg("seat %d holds nothing", seat);
	return -1;
}

/* The refusals' words, per language: a card not held, and the line the group reads instead. */
struct words {
	const char *lang;
	const char *not_held;
	const char *cover;
	const char *picked;
};

static const struct words en_words = { NULL, "is not in your hand", "told you why privately",
				       "🂠 plays a card" };
static const struct words ne_words = { "ne", "तपाईंको हातमा छैन", "निजी रूपमा पठाएँ",
				       "🂠 एउटा पत्ती फाल्दै" };

/*
 * Four people at a Call Break table in the group (in w's language), the
 * bids made, play begun. On the way, a bid refused and a card named while
 * bidding: the group reads nothing of a hand.
 */
static void tg_to_play(struct tg *x, const struct words *w)
{
	char cmd[64], sym[8], code[16];
	struct seen v;

	fake_tg_member(x->f, GROUP, "1", "creator");
	if (w->lang) {
		snprintf(cmd, sizeof(cmd), "/lang %s", w->lang);
		tg_text(x, 0, cmd);
	}
	tg_text(x, 0, "/new callbreak");
	for (int seat = 1; seat < 4; seat++)
		tg_text(x, seat, "/join");
	tg_text(x, 0, "/start");
	tg_check_public(x);
	seen_get(x->s, "telegram", GROUP, &v);
	tg_text(x, seen_turn(&v), "/bid 9");
	tg_check_public(x);
	card_names(&v.st, held_by(&v, seen_turn(&v)), sym, sizeof(sym), code, sizeof(code));
	snprintf(cmd, sizeof(cmd), "/%s", code);
	tg_text(x, seen_turn(&v), cmd);
	tg_check_public(x);
	for (seen_get(x->s, "telegram", GROUP, &v); seen_phase(&v) == CB_PHASE_BID;
	     seen_get(x->s, "telegram", GROUP, &v))
		tg_text(x, seen_turn(&v), "/bid 2");
	assert_int_equal(seen_phase(&v), CB_PHASE_PLAY);
	tg_check_public(x);
}

/* The text of the one sendMessage to seat's private chat among the calls from `from` on (NULL: none; a copy, free it). */
static char *tg_private_text(struct tg *x, int from, int seat)
{
	char *text = NULL;

	for (int i = from; i < fake_tg_count(x->f, NULL); i++) {
		char method[64];
		json_t *b = fake_tg_call(x->f, i, method, sizeof(method), NULL);

		if (!strcmp(method, "sendMessage") && json_integer_value(json_object_get(b, "chat_id")) == seat + 1) {
			assert_null(text);
			text = strdup(json_string_value(json_object_get(b, "text")));
		}
		json_decref(b);
	}
	return text;
}

/* The texts of the group's messages among the calls from `from` on, one after another. */
static void tg_group_texts(struct tg *x, int from, struct strbuf *out)
{
	for (int i = from; i < fake_tg_count(x->f, NULL); i++) {
		char method[64];
		json_t *b = fake_tg_call(x->f, i, method, sizeof(method), NULL);

		if (tg_public(method, b)) {
			sb_add(out, json_string_value(json_object_get(b, "text")));
			sb_add(out, "\n");
		}
		json_decref(b);
	}
}

/*
 * seat types text, a card the table refuses: nothing moves; the group reads
 * no card still held, and that seat's answer went privately (the cover
 * line, with their name); the seat's private chat holds the reason, which
 * names the card (and says why: want, when not NULL).
 */
static void tg_refused_typed(struct tg *x, const struct words *w, int seat, const char *text, int card,
			     const char *want)
{
	int from = fake_tg_count(x->f, NULL);
	struct strbuf group = { 0 };
	char sym[8], code[16], *told;
	struct seen v;
	int moves;

	seen_get(x->s, "telegram", GROUP, &v);
	moves = v.moves;
	card_names(&v.st, card, sym, sizeof(sym), code, sizeof(code));
	tg_text(x, seat, text);
	tg_check_public(x);
	seen_get(x->s, "telegram", GROUP, &v);
	assert_int_equal(v.moves, moves);
	tg_group_texts(x, from, &group);
	if (!strstr(sb_str(&group), w->cover) || !strstr(sb_str(&group), tg_names[seat]))
		fail_msg("after \"%s\" the group was not told the answer went privately: %s", text, sb_str(&group));
	told = tg_private_text(x, from, seat);
	if (!told)
		fail_msg("after \"%s\" nothing was sent to %s privately", text, tg_names[seat]);
	if (!strstr(told, sym) || (want && !strstr(told, want)))
		fail_msg("the private answer to \"%s\" does not say why: %s", text, told);
	free(told);
	sb_release(&group);
}

/*
 * Every way a card is refused, in a group (in w's language): one not held,
 * one held that may not be played, words not read that name a card, a card
 * named out of turn, a forged press of a card, and a refusal for someone
 * whose private chat with the bot is closed.
 */
static void tg_refusals(struct tg *x, const struct words *w)
{
	char cmd[64], sym[8], code[16], data[80];
	struct seen v;
	int turn, card, from, plays = 0;
	json_t *ans;

	tg_to_play(x, w);
	/* play on until the one to move holds a card they may not play (a suit was led) */
	for (seen_get(x->s, "telegram", GROUP, &v); held_illegal(&v, seen_turn(&v)) < 0;
	     seen_get(x->s, "telegram", GROUP, &v)) {
		char want[CB_CARDS][16];

		assert_true(plays++ < 40);
		legal_in_hand_order(&v, seen_turn(&v), want);
		tg_text(x, seen_turn(&v), want[0]);
		tg_check_public(x);
	}
	turn = seen_turn(&v);

	card = held_by_other(&v, turn);
	card_names(&v.st, card, sym, sizeof(sym), code, sizeof(code));
	snprintf(cmd, sizeof(cmd), "/%s", code);
	tg_refused_typed(x, w, turn, cmd, card, w->not_held);
	/* as the table shows the card */
	snprintf(cmd, sizeof(cmd), "/play %s", sym);
	tg_refused_typed(x, w, turn, cmd, card, w->not_held);

	card = held_illegal(&v, turn);
	card_names(&v.st, card, sym, sizeof(sym), code, sizeof(code));
	snprintf(cmd, sizeof(cmd), "/%s", code);
	tg_refused_typed(x, w, turn, cmd, card, NULL);

	/* words that are no card, naming one: echoed to the typist alone */
	card = held_by_other(&v, turn);
	card_names(&v.st, card, sym, sizeof(sym), code, sizeof(code));
	snprintf(cmd, sizeof(cmd), "/play %s please", sym);
	tg_refused_typed(x, w, turn, cmd, card, NULL);

	/* out of turn, a card of one's own: "not your turn", no card */
	card = held_by(&v, (turn + 1) % 4);
	card_names(&v.st, card, sym, sizeof(sym), code, sizeof(code));
	snprintf(cmd, sizeof(cmd), "/%s", code);
	tg_text(x, (turn + 1) % 4, cmd);
	tg_check_public(x);

	/* a press of a card not held (forged: the table has no card buttons): the presser's alert alone */
	card = held_by_other(&v, turn);
	card_names(&v.st, card, sym, sizeof(sym), code, sizeof(code));
	snprintf(cmd, sizeof(cmd), "/%s", code);
	assert_int_equal(tg_callback_encode(v.table, v.moves, cmd, data, sizeof(data)), GB_OK);
	from = fake_tg_count(x->f, "answerCallbackQuery");
	tg_press(x, turn, data);
	tg_check_public(x);
	assert_int_equal(fake_tg_count(x->f, "answerCallbackQuery"), from + 1);
	ans = fake_tg_nth(x->f, "answerCallbackQuery", from);
	assert_true(json_is_true(json_object_get(ans, "show_alert")));
	assert_non_null(strstr(json_string_value(json_object_get(ans, "text")), w->not_held));
	json_decref(ans);

	/* their private chat closed (they never pressed Start): the group's card-free line only */
	card = held_illegal(&v, turn);
	card_names(&v.st, card, sym, sizeof(sym), code, sizeof(code));
	snprintf(cmd, sizeof(cmd), "/%s", code);
	from = fake_tg_count(x->f, NULL);
	/* the reason is queued first: the first message sent is the private one */
	fake_tg_fault(x->f, "sendMessage", 0, 1, FAKE_TG_403, 0);
	tg_text(x, turn, cmd);
	tg_check_public(x);
	assert_int_equal(fake_tg_count_status(x->f, "sendMessage", 403), 1);
	{
		struct strbuf group = { 0 };

		tg_group_texts(x, from, &group);
		assert_non_null(strstr(sb_str(&group), w->cover));
		sb_release(&group);
	}
	seen_get(x->s, "telegram", GROUP, &v);
	assert_int_equal(seen_turn(&v), turn);
}

static void tg_refusals_en(void **state)
{
	tg_refusals(*state, &en_words);
}

static void tg_refusals_ne(void **state)
{
	tg_refusals(*state, &ne_words);
}

/*
 * Inline picks: each result's posted text names no card (in the chat's
 * language); a pick for an earlier turn - its card still held, another
 * card played since - is posted by Telegram all the same, and says nothing
 * of it, while the bot says nothing in the group.
 */
static void tg_inline_picks(struct tg *x, const struct words *w)
{
	char want[CB_CARDS][16], id[80];
	json_t *results;
	struct seen v;
	int turn, n, calls;

	tg_to_play(x, w);
	seen_get(x->s, "telegram", GROUP, &v);
	turn = seen_turn(&v);
	n = legal_in_hand_order(&v, turn, want);
	assert_true(n > 1);
	results = tg_inline(x, turn);
	assert_int_equal((int)json_array_size(results), n);
	for (int i = 0; i < n; i++) {
		const json_t *r = json_array_get(results, i);

		tg_check_posted(x, r);
		assert_string_equal(json_string_value(json_object_get(json_object_get(r, "input_message_content"),
								      "message_text")),
				    w->picked);
	}
	/* the first is picked, too late: the second was typed meanwhile */
	snprintf(id, sizeof(id), "%s", json_string_value(json_object_get(json_array_get(results, 0), "id")));
	tg_text(x, turn, want[1]);
	tg_check_public(x);
	calls = fake_tg_count(x->f, NULL);
	tg_check_posted(x, json_array_get(results, 0));
	tg_update(x, "{\"update_id\":%lld,\"chosen_inline_result\":{\"result_id\":\"%s\",\"from\":{\"id\":%d,"
		  "\"first_name\":\"%s\"},\"query\":\"\"}}", x->id, id, turn + 1, tg_names[turn]);
	assert_int_equal(fake_tg_count(x->f, NULL), calls);
	seen_get(x->s, "telegram", GROUP, &v);
	assert_int_not_equal(seen_turn(&v), turn);
	json_decref(results);
}

static void tg_inline_picks_en(void **state)
{
	tg_inline_picks(*state, &en_words);
}

static void tg_inline_picks_ne(void **state)
{
	tg_inline_picks(*state, &ne_words);
}

/* ---- Discord ---- */

#define APP "1000"
#define DC_TOKEN "bot-token-hands"
#define CHANNEL "4000"
#define GUILD "5000"

static const char *const dc_users[] = { "111", "222", "333", "444" };

struct dc {
	char dir[64], db[128];
	struct config cfg;
	struct fake_dc *fake;
	unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
	struct adapter_env env;
	struct outbox *outbox;
	void *self;
	struct http_server *http;
	char url[64];
	struct store *s;
	uint64_t seq;
	long long posts;
	char table_msg[32];     /* the table message's id, as Discord would show it */
	json_t *table;          /* the newest public table message (data or body) */
	int seen_calls;
};

static void dc_wake(void *arg)
{
	outbox_wake(arg);
}

static int dc_setup(void **state)
{
	struct dc *w = calloc(1, sizeof(*w));
	struct outbox_opts oo;
	char hex[2 * crypto_sign_PUBLICKEYBYTES + 1];

	if (!w || sodium_init() < 0)
		return -1;
	if (fixture_dir(w->dir, sizeof(w->dir), "hands-dc"))
		return -1;
	snprintf(w->db, sizeof(w->db), "%s/dc.db", w->dir);
	if (store_open(&w->s, w->db))
		return -1;
	crypto_sign_keypair(w->pk, w->sk);
	sodium_bin2hex(hex, sizeof(hex), w->pk, sizeof(w->pk));
	if (fake_dc_start(&w->fake, DC_TOKEN))
		return -1;
	config_init(&w->cfg);
	snprintf(w->cfg.db, sizeof(w->cfg.db), "%s", w->db);
	snprintf(w->cfg.discord_public_key, sizeof(w->cfg.discord_public_key), "%s", hex);
	snprintf(w->cfg.discord_app_id, sizeof(w->cfg.discord_app_id), APP);
	snprintf(w->cfg.discord_token, sizeof(w->cfg.discord_token), DC_TOKEN);
	snprintf(w->cfg.discord_api, sizeof(w->cfg.discord_api), "%s", fake_dc_url(w->fake));
	bot_config_init(&w->env.bot);
	w->env.bot.seed = 5;
	w->env.cfg = &w->cfg;
	w->env.db = w->db;
	outbox_opts_init(&oo);
	oo.poll_ms = 5;
	oo.backoff_ms = 20;
	oo.workers = 1;
	if (outbox_new(&w->outbox, &discord_adapter, w->db, &oo))
		return -1;
	w->env.wake = dc_wake;
	w->env.wake_arg = w->outbox;
	if (discord_adapter.start(&w->env, &w->self) || outbox_run(w->outbox, w->self))
		return -1;
	if (fixture_listen(&discord_adapter, w->self, &w->http, w->url, sizeof(w->url)))
		return -1;
	w->posts = 700000000000000001LL;
	*state = w;
	return 0;
}

static int dc_teardown(void **state)
{
	struct dc *w = *state;
	int rc;

	http_stop(w->http);
	outbox_stop(w->outbox);
	discord_adapter.stop(w->self);
	store_free(w->s);
	fake_dc_free(w->fake);
	json_decref(w->table);
	rc = fixture_rm(w->dir);
	free(w);
	return rc;
}

/* POST a JSON interaction (consumed), signed as Discord signs; the parsed answer. */
static json_t *dc_send(struct dc *w, json_t *ia)
{
	char *body = json_dumps(ia, JSON_COMPACT);
	char ts[32], sig[2 * crypto_sign_BYTES + 1], hs[200], hts[64];
	unsigned char raw[crypto_sign_BYTES];
	struct strbuf msg = { 0 }, in = { 0 };
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	CURL *c = curl_easy_init();
	json_error_t jerr;
	json_t *answer;
	long status = 0;

	json_decref(ia);
	snprintf(ts, sizeof(ts), "%lld", (long long)(bot_now_ms() / 1000));
	sb_add(&msg, ts);
	sb_add(&msg, body);
	crypto_sign_detached(raw, NULL, (const unsigned char *)sb_str(&msg), msg.len, w->sk);
	sodium_bin2hex(sig, sizeof(sig), raw, sizeof(raw));
	snprintf(hs, sizeof(hs), "X-Signature-Ed25519: %s", sig);
	snprintf(hts, sizeof(hts), "X-Signature-Timestamp: %s", ts);
	h = curl_slist_append(h, hs);
	h = curl_slist_append(h, hts);
	curl_easy_setopt(c, CURLOPT_URL, w->url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &in);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	assert_int_equal(status, 200);
	answer = json_loadb(sb_str(&in), in.len, 0, &jerr);
	assert_non_null(answer);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	sb_release(&msg);
	sb_release(&in);
	free(body);
	return answer;
}

static json_t *dc_interaction(struct dc *w, int type, int seat, json_t *data)
{
	char id[32], tok[64];
	uint64_t ms = (uint64_t)(bot_now_ms() - 1420070400000LL);

	snprintf(id, sizeof(id), "%llu", (unsigned long long)((ms << 22) | (++w->seq & 0x3fffff)));
	snprintf(tok, sizeof(tok), "tok-%s", id);
	return json_pack("{sisssssssssss{s{ssss}ss}so}", "type", type, "id", id, "application_id", APP,
			 "token", tok, "channel_id", CHANNEL, "guild_id", GUILD, "member", "user", "id",
			 dc_users[seat], "username", dc_users[seat], "permissions", seat ? "0" : "8", "data",
			 data);
}

/* A slash command with options "k=v" (tricks is an integer). */
static json_t *dc_slash(struct dc *w, int seat, const char *name, const char *const *opts)
{
	json_t *options = json_array();

	for (int i = 0; opts && opts[i]; i++) {
		const char *eq = strchr(opts[i], '=');
		char key[32];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - opts[i]), opts[i]);
		if (strcmp(key, "tricks") == 0)
			json_array_append_new(options, json_pack("{sssisI}", "name", key, "type", 4, "value",
								 (json_int_t)strtoll(eq + 1, NULL, 10)));
		else
			json_array_append_new(options, json_pack("{sssiss}", "name", key, "type", 3, "value", eq + 1));
	}
	return dc_send(w, dc_interaction(w, 2, seat, json_pack("{sssssiso}", "id", "1", "name", name, "type", 1,
								  "options", options)));
}

/* A button press on message msg_id (ephemeral with its content, or the table). */
static json_t *dc_press(struct dc *w, int seat, const char *custom_id, const char *msg_id, bool ephemeral,
			const char *content)
{
	json_t *ia = dc_interaction(w, 3, seat, json_pack("{sssi}", "custom_id", custom_id, "component_type", 2));

	json_object_set_new(ia, "message", json_pack("{sssiss}", "id", msg_id, "flags", ephemeral ? 64 : 0,
						     "content", content ? content : ""));
	return dc_send(w, ia);
}

static bool dc_ephemeral(const json_t *data)
{
	return (json_integer_value(json_object_get(data, "flags")) & 64) != 0;
}

/* Wait until the outbox has nothing pending; fails after 10 s. */
static void dc_drain(struct dc *w)
{
	for (int i = 0; i < 2000; i++) {
		int pending = 0;

		assert_int_equal(store_out_count(w->s, "discord", &pending, NULL, NULL), GB_OK);
		if (!pending)
			return;
		usleep(5000);
	}
	fail_msg("replies still pending after 10 s");
}

/* Check one message body the whole channel sees; a table (a code block with buttons) becomes w->table. */
static void dc_check_message(struct dc *w, const struct held *h, const char *where, const json_t *data)
{
	const char *content = json_string_value(json_object_get(data, "content"));
	const json_t *row, *c;
	size_t i, k;

	assert_hidden(h, where, content);
	json_array_foreach(json_object_get(data, "components"), i, row) {
		json_array_foreach(json_object_get(row, "components"), k, c) {
			const json_t *opt;
			size_t o;

			assert_hidden(h, "a button's label", json_string_value(json_object_get(c, "label")));
			assert_hidden(h, "a custom_id", json_string_value(json_object_get(c, "custom_id")));
			json_array_foreach(json_object_get(c, "options"), o, opt) {
				assert_hidden(h, "a menu option", json_string_value(json_object_get(opt, "label")));
				assert_hidden(h, "a menu option", json_string_value(json_object_get(opt, "value")));
			}
		}
	}
	if (content && !strncmp(content, "```", 3) && json_array_size(json_object_get(data, "components"))) {
		json_decref(w->table);
		w->table = json_deep_copy(data);
	}
}

/*
 * After an interaction (its answer a): wait for the follow-ups, then check
 * the answer when the channel sees it (not ephemeral, and not an update of
 * an ephemeral message: on_private) and every channel-visible call since
 * the last check, against the hands now.
 */
static void dc_check_public(struct dc *w, const json_t *a, bool on_private)
{
	struct seen v;
	struct held h;
	const json_t *data = json_object_get(a, "data");
	int n;

	dc_drain(w);
	seen_get(w->s, "discord", CHANNEL, &v);
	held_get(&v, &h);
	if (data && !dc_ephemeral(data) && !on_private)
		dc_check_message(w, &h, "an interaction's answer", data);
	n = fake_dc_count(w->fake, NULL, NULL);
	for (; w->seen_calls < n; w->seen_calls++) {
		char method[16], path[512];
		json_t *b = fake_dc_call(w->fake, w->seen_calls, method, sizeof(method), path, sizeof(path), NULL,
					 0, NULL);

		/* a follow-up flagged ephemeral is the interaction's user's alone */
		if (!strncmp(path, "/channels/", 10) || (!strncmp(path, "/webhooks/", 10) && !dc_ephemeral(b)))
			dc_check_message(w, &h, path, b);
		json_decref(b);
	}
}

/* The custom_id of the newest table's button for cmd ("hand", "next", "bid 2"), into buf. */
static bool dc_button(struct dc *w, const char *cmd, char *buf, size_t n)
{
	const json_t *row, *c;
	size_t i, k;

	json_array_foreach(json_object_get(w->table, "components"), i, row) {
		json_array_foreach(json_object_get(row, "components"), k, c) {
			const char *id = json_string_value(json_object_get(c, "custom_id"));
			const char *p = id ? strchr(id, ':') : NULL;

			p = p ? strchr(p + 1, ':') : NULL;
			if (p && !strcmp(p + 1, cmd)) {
				snprintf(buf, n, "%s", id);
				return true;
			}
		}
	}
	return false;
}

/* Press a button on the table message; the answer updates it in place. */
static void dc_table_press(struct dc *w, int seat, const char *cmd)
{
	char custom[128];
	json_t *a;

	if (!dc_button(w, cmd, custom, sizeof(custom)))
		fail_msg("the table has no button for /%s", cmd);
	a = dc_press(w, seat, custom, w->table_msg, false, NULL);
	dc_check_public(w, a, false);
	json_decref(a);
}

/*
 * "My cards" on the table: the presser's hand, ephemeral, with a button for
 * exactly each card they may play, in the hand's order; the k-th pressed.
 */
static void dc_hand_play(struct dc *w, int seat, int k)
{
	char want[CB_CARDS][16], custom[128];
	const json_t *row, *c;
	json_t *a, *played;
	struct seen v;
	size_t i, j;
	int n, nb = 0;

	seen_get(w->s, "discord", CHANNEL, &v);
	n = legal_in_hand_order(&v, seat, want);
	assert_true(dc_button(w, "hand", custom, sizeof(custom)));
	a = dc_press(w, seat, custom, w->table_msg, false, NULL);
	assert_int_equal(json_integer_value(json_object_get(a, "type")), 4);
	assert_true(dc_ephemeral(json_object_get(a, "data")));
	json_array_foreach(json_object_get(json_object_get(a, "data"), "components"), i, row) {
		json_array_foreach(json_object_get(row, "components"), j, c) {
			const char *id = json_string_value(json_object_get(c, "custom_id"));
			const char *p = strchr(strchr(id, ':') + 1, ':');

			assert_true(nb < n);
			if (strcmp(p + 1, want[nb] + 1))
				fail_msg("hand button %d is /%s, the hand's order has %s", nb, p + 1, want[nb]);
			if (nb == k % n)
				snprintf(custom, sizeof(custom), "%s", id);
			nb++;
		}
	}
	assert_int_equal(nb, n);
	dc_check_public(w, a, false);
	played = dc_press(w, seat, custom, "777", true,
			  json_string_value(json_object_get(json_object_get(a, "data"), "content")));
	assert_int_equal(json_integer_value(json_object_get(played, "type")), 7);
	dc_check_public(w, played, true);
	json_decref(played);
	json_decref(a);
}

static void dc_whole_game(void **state)
{
	struct dc *w = *state;
	int steps = 0, plays = 0, bids = 0, nexts = 0;
	struct seen v;
	json_t *a;

	a = dc_slash(w, 0, "settings", (const char *const[]){ "game=callbreak", "key=rounds", "value=3", NULL });
	dc_check_public(w, a, false);
	json_decref(a);
	a = dc_slash(w, 0, "new", (const char *const[]){ "game=callbreak", NULL });
	assert_int_equal(json_integer_value(json_object_get(a, "type")), 4);
	dc_check_public(w, a, false);
	json_decref(a);
	snprintf(w->table_msg, sizeof(w->table_msg), "%lld", w->posts++);
	for (int seat = 1; seat < 4; seat++)
		dc_table_press(w, seat, "join");
	dc_table_press(w, 0, "start");
	for (seen_get(w->s, "discord", CHANNEL, &v); v.playing && steps < 400; seen_get(w->s, "discord", CHANNEL, &v)) {
		int turn = seen_turn(&v), before = v.moves;

		if (turn < 0) {
			dc_table_press(w, nexts % 4, "next");
			nexts++;
		} else if (seen_phase(&v) == CB_PHASE_BID) {
			if (bids % 2) {
				dc_table_press(w, turn, "bid 2");
			} else {
				a = dc_slash(w, turn, "bid", (const char *const[]){ "tricks=2", NULL });
				dc_check_public(w, a, false);
				json_decref(a);
			}
			bids++;
		} else if (plays % 2 == 0) {
			dc_hand_play(w, turn, plays);
			plays++;
		} else {
			char want[CB_CARDS][16], opt[32];
			int n = legal_in_hand_order(&v, turn, want);

			/* typed: "/play QS" */
			snprintf(opt, sizeof(opt), "card=%s", want[(plays * 5) % n] + 6);
			a = dc_slash(w, turn, "play", (const char *const[]){ opt, NULL });
			dc_check_public(w, a, false);
			json_decref(a);
			plays++;
		}
		/* the channel's table never carries a card to play */
		{
			char *text = json_dumps(json_object_get(w->table, "components"), 0);

			assert_null(strstr(text, ":play "));
			free(text);
		}
		seen_get(w->s, "discord", CHANNEL, &v);
		if (v.playing && v.moves != before + 1)
			fail_msg("step %d did not move the table on (%d moves, then %d)", steps, before, v.moves);
		steps++;
	}
	assert_false(v.playing);
	assert_int_equal(plays, 3 * 52);
	assert_int_equal(bids, 3 * 4);
	assert_int_equal(nexts, 2);
}

/*
 * A slash /play of card by seat that the table refuses: the answer is
 * ephemeral (the presser's alone) and names the card (and says why: want,
 * when not NULL); the channel reads no card still held; nothing moves.
 */
static void dc_refused(struct dc *w, int seat, int card, const char *want)
{
	char sym[8], code[16], opt[32];
	const char *content;
	struct seen v;
	json_t *a;
	int moves;

	seen_get(w->s, "discord", CHANNEL, &v);
	moves = v.moves;
	card_names(&v.st, card, sym, sizeof(sym), code, sizeof(code));
	snprintf(opt, sizeof(opt), "card=%.8s", code + 5);
	a = dc_slash(w, seat, "play", (const char *const[]){ opt, NULL });
	assert_int_equal(json_integer_value(json_object_get(a, "type")), 4);
	assert_true(dc_ephemeral(json_object_get(a, "data")));
	content = json_string_value(json_object_get(json_object_get(a, "data"), "content"));
	if (!content || (seat == seen_turn(&v) && !strstr(content, sym)) || (want && !strstr(content, want)))
		fail_msg("the answer to /play %s does not say why: %s", code + 5, content ? content : "(none)");
	dc_check_public(w, a, false);
	json_decref(a);
	seen_get(w->s, "discord", CHANNEL, &v);
	assert_int_equal(v.moves, moves);
}

/* Refused cards on Discord, in w's language: not held, held but not to be played, out of turn. */
static void dc_refusals(struct dc *w, const struct words *words)
{
	struct seen v;
	json_t *a;
	int turn, plays = 0;

	if (words->lang) {
		char opt[32];

		snprintf(opt, sizeof(opt), "language=%s", words->lang);
		a = dc_slash(w, 0, "lang", (const char *const[]){ opt, NULL });
		dc_check_public(w, a, false);
		json_decref(a);
	}
	a = dc_slash(w, 0, "new", (const char *const[]){ "game=callbreak", NULL });
	dc_check_public(w, a, false);
	json_decref(a);
	snprintf(w->table_msg, sizeof(w->table_msg), "%lld", w->posts++);
	for (int seat = 1; seat < 4; seat++)
		dc_table_press(w, seat, "join");
	dc_table_press(w, 0, "start");
	for (seen_get(w->s, "discord", CHANNEL, &v); seen_phase(&v) == CB_PHASE_BID;
	     seen_get(w->s, "discord", CHANNEL, &v)) {
		a = dc_slash(w, seen_turn(&v), "bid", (const char *const[]){ "tricks=2", NULL });
		dc_check_public(w, a, false);
		json_decref(a);
	}
	for (; held_illegal(&v, seen_turn(&v)) < 0; seen_get(w->s, "discord", CHANNEL, &v)) {
		char want[CB_CARDS][16], opt[32];

		assert_true(plays++ < 40);
		legal_in_hand_order(&v, seen_turn(&v), want);
		snprintf(opt, sizeof(opt), "card=%.8s", want[0] + 6);
		a = dc_slash(w, seen_turn(&v), "play", (const char *const[]){ opt, NULL });
		dc_check_public(w, a, false);
		json_decref(a);
	}
	turn = seen_turn(&v);
	dc_refused(w, turn, held_by_other(&v, turn), words->not_held);
	dc_refused(w, turn, held_illegal(&v, turn), NULL);
	dc_refused(w, (turn + 1) % 4, held_by(&v, (turn + 1) % 4), NULL);
}

static void dc_refusals_en(void **state)
{
	dc_refusals(*state, &en_words);
}

static void dc_refusals_ne(void **state)
{
	dc_refusals(*state, &ne_words);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(tg_whole_game, tg_setup, tg_teardown),
		cmocka_unit_test_setup_teardown(tg_inline_nobody, tg_setup, tg_teardown),
		cmocka_unit_test_setup_teardown(tg_inline_in_chat_language, tg_setup, tg_teardown),
		cmocka_unit_test_setup_teardown(tg_refusals_en, tg_setup, tg_teardown),
		cmocka_unit_test_setup_teardown(tg_refusals_ne, tg_setup, tg_teardown),
		cmocka_unit_test_setup_teardown(tg_inline_picks_en, tg_setup, tg_teardown),
		cmocka_unit_test_setup_teardown(tg_inline_picks_ne, tg_setup, tg_teardown),
		cmocka_unit_test_setup_teardown(dc_whole_game, dc_setup, dc_teardown),
		cmocka_unit_test_setup_teardown(dc_refusals_en, dc_setup, dc_teardown),
		cmocka_unit_test_setup_teardown(dc_refusals_ne, dc_setup, dc_teardown),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests_name("hidden hands", tests, NULL, NULL);
}
