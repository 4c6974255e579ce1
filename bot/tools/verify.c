/*
 * verify.c - replaying a finished table from its revealed seed and its
 * move log, for /verify in the chat and `gamebot verify` offline (see
 * verify.h). Both go through the same text: the chat writes the table's
 * move log from the store and checks it exactly as the offline verifier
 * checks a file, so what a player checks at home is what the chat checked.
 */
#include <errno.h>
#include <jansson.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#include "games/game.h"
#include "verify.h"

#define MOVES_PAGE 256

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

bool verify_seed_ok(const char *seed)
{
	size_t i;

	for (i = 0; seed && seed[i]; i++)
		if (hexval(seed[i]) < 0)
			return false;
	return seed && i == 64;
}

uint64_t verify_game_seed(const char *seed)
{
	uint64_t v = 0;

	for (int i = 0; i < 16 && seed[i]; i++)
		v = v << 4 | (uint64_t)hexval(seed[i]);
	return v;
}

void verify_seal(const char *seed, char out[65])
{
	unsigned char bytes[32], hash[crypto_hash_sha256_BYTES];

	bool ok = verify_seed_ok(seed); /* once: the seed is read 32 times below */

	memset(bytes, 0, sizeof(bytes));
	for (int i = 0; i < 32 && ok; i++)
		bytes[i] = (unsigned char)(hexval(seed[2 * i]) << 4 | hexval(seed[2 * i + 1]));
	crypto_hash_sha256(hash, bytes, sizeof(bytes));
	sodium_bin2hex(out, 65, hash, sizeof(hash));
}

/* The "did" strings of events JSON [[type, seat, a, b, c], ...] (caller owns). */
static json_t *did_of_events(const struct gb_game *g, const char *events)
{
	json_error_t err;
	json_t *ev = json_loads(events ? events : "[]", 0, &err), *did = json_array(), *e;
	size_t i;

	json_array_foreach(ev, i, e) {
		struct gb_event x = { (int)json_integer_value(json_array_get(e, 0)),
				      (int)json_integer_value(json_array_get(e, 1)),
				      (int)json_integer_value(json_array_get(e, 2)),
				      (int)json_integer_value(json_array_get(e, 3)),
				      (int)json_integer_value(json_array_get(e, 4)) };
		char text[GB_EVENT_TEXT];

		g->format_event(&x, text, sizeof(text));
		json_array_append_new(did, json_string(text));
	}
	json_decref(ev);
	return did;
}

/* Append one JSON object as a line of the log. */
static void add_line(struct strbuf *out, json_t *j)
{
	char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (text) {
		sb_add(out, text);
		sb_add(out, "\n");
	}
	free(text);
	json_decref(j);
}

int verify_movelog(struct store *s, int64_t table, const char *seal, struct strbuf *out)
{
	struct store_table t = { 0 };
	struct store_seat seats[GB_MAX_SEATS];
	struct store_move moves[MOVES_PAGE];
	const struct gb_game *g;
	json_error_t err;
	json_t *head;
	int nseats = 0, n = 0, after = 0, rc;

	rc = store_table_get(s, table, &t);
	if (rc)
		goto out;
	g = gb_game_find(t.game);
	if (!g) {
		rc = GB_EGAME;
		goto out;
	}
	rc = store_seats_get(s, table, seats, GB_MAX_SEATS, &nseats);
	if (rc)
		goto out;
	head = json_object();
	json_object_set_new(head, "movelog", json_integer(1));
	json_object_set_new(head, "table", json_integer(table));
	json_object_set_new(head, "game", json_string(g->name));
	json_object_set_new(head, "players", json_integer(nseats));
	json_object_set_new(head, "rules", json_loads(t.rules ? t.rules : "{}", 0, &err));
	json_object_set_new(head, "seal", json_string(seal ? seal : ""));
	add_line(out, head);
	do {
		rc = store_moves_get(s, table, after, moves, MOVES_PAGE, &n);
		for (int i = 0; !rc && i < n; i++) {
			json_t *m = json_object();
			char *end;
			long seat = strtol(moves[i].actor, &end, 10);

			json_object_set_new(m, "seq", json_integer(moves[i].seq));
			json_object_set_new(m, "seat", json_integer(*end ? -1 : seat));
			json_object_set_new(m, "action", json_string(moves[i].action));
			json_object_set_new(m, "did", did_of_events(g, moves[i].events));
			add_line(out, m);
			after = moves[i].seq;
		}
		for (int i = 0; i < n; i++)
			store_move_release(&moves[i]);
	} while (!rc && n == MOVES_PAGE);
	if (!rc && out->failed)
		rc = GB_ENOMEM;
out:
	store_table_release(&t);
	return rc;
}

/* "a; b; c" of a did array, into buf. */
static void did_text(const json_t *did, char *buf, size_t n)
{
	size_t i, len = 0;
	json_t *e;

	buf[0] = '\0';
	json_array_foreach(did, i, e) {
		int w = snprintf(buf + len, n - len, "%s%s", i ? "; " : "", json_string_value(e) ? json_string_value(e) : "?");

		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
	}
}

/* Replay the moves (after the header) on st; fills the verdict. */
static void replay(const struct gb_game *g, void *st, json_t *const *lines, int nlines,
		   struct verify_result *res)
{
	for (int i = 0; i < nlines; i++) {
		const json_t *m = lines[i];
		struct gb_events ev = { 0 };
		struct gb_action act;
		json_t *did;
		int seq = (int)json_integer_value(json_object_get(m, "seq"));
		const char *action = json_string_value(json_object_get(m, "action"));
		bool same;

		res->seq = seq;
		snprintf(res->action, sizeof(res->action), "%s", action ? action : "");
		if (seq != res->moves + 1) {
			res->verdict = VERIFY_SEQ;
			res->seq = res->moves + 1;
			return;
		}
		if (!action || g->parse(st, action, &act)) {
			res->verdict = VERIFY_REFUSED;
			return;
		}
		/* anyone at the table may deal Call Break's next round; every other move is its seat's */
		if (act.kind != GB_ACT_NEXT && (!json_is_integer(json_object_get(m, "seat")) ||
						json_integer_value(json_object_get(m, "seat")) != g->turn(st))) {
			res->verdict = VERIFY_SEAT;
			return;
		}
		act.die = 0; /* the dice come from the seed, never from the log */
		if (g->apply(st, &act, &ev)) {
			res->verdict = VERIFY_REFUSED;
			return;
		}
		did = json_array();
		for (int k = 0; k < ev.n; k++) {
			char text[GB_EVENT_TEXT];

			g->format_event(&ev.ev[k], text, sizeof(text));
			json_array_append_new(did, json_string(text));
		}
		same = json_equal(did, json_object_get(m, "did"));
		if (!same) {
			did_text(json_object_get(m, "did"), res->logged, sizeof(res->logged));
			did_text(did, res->replayed, sizeof(res->replayed));
			res->verdict = VERIFY_MISMATCH;
		}
		json_decref(did);
		if (!same)
			return;
		res->moves++;
	}
	res->verdict = VERIFY_OK;
}

int verify_run(const char *seed, const char *movelog, struct verify_result *res)
{
	json_t *head = NULL, **lines = NULL;
	const struct gb_game *g = NULL;
	struct gb_setup su;
	struct gb_outcome oc;
	void *st = NULL;
	const char *p = movelog;
	int nlines = 0, cap = 0, lineno = 0, rc = GB_OK;

	memset(res, 0, sizeof(*res));
	if (!verify_seed_ok(seed)) {
		res->verdict = VERIFY_BAD_SEED;
		goto out;
	}
	verify_seal(seed, res->seal_of_seed);
	while (p && *p) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *q = p;
		json_error_t err;
		json_t *j;

		lineno++;
		while (q < p + len && (*q == ' ' || *q == '\t' || *q == '\r'))
			q++;
		if (q < p + len && *q == '{') {
			j = json_loadb(q, len - (size_t)(q - p), 0, &err);
			if (!json_is_object(j) || (!head && !json_object_get(j, "movelog")) ||
			    (head && !json_is_integer(json_object_get(j, "seq")))) {
				json_decref(j);
				res->verdict = VERIFY_BAD_LOG;
				res->seq = lineno;
				goto out;
			}
			if (!head) {
				head = j;
			} else {
				if (nlines == cap) {
					json_t **grown = realloc(lines, sizeof(*lines) * (size_t)(cap ? cap * 2 : 256));

					if (!grown) {
						json_decref(j);
						rc = GB_ENOMEM;
						goto out;
					}
					lines = grown;
					cap = cap ? cap * 2 : 256;
				}
				lines[nlines++] = j;
			}
		}
		p = end ? end + 1 : NULL;
	}
	g = head ? gb_game_find(json_string_value(json_object_get(head, "game"))) : NULL;
	if (!g) {
		res->verdict = VERIFY_BAD_LOG;
		res->seq = lineno;
		goto out;
	}
	snprintf(res->game, sizeof(res->game), "%s", g->name);
	res->table = json_integer_value(json_object_get(head, "table"));
	snprintf(res->seal, sizeof(res->seal), "%s",
		 json_is_string(json_object_get(head, "seal")) ? json_string_value(json_object_get(head, "seal")) : "");
	if (strcmp(res->seal, res->seal_of_seed) != 0) {
		res->verdict = VERIFY_SEAL;
		goto out;
	}
	gb_setup_init(&su, g);
	su.players = (int)json_integer_value(json_object_get(head, "players"));
	su.seed = verify_game_seed(seed);
	/* the bot's convention (table_start_game): the first dealer is the seed mod 4 */
	su.dealer = (int)(su.seed % 4);
	st = calloc(1, g->state_size);
	if (!st) {
		rc = GB_ENOMEM;
		goto out;
	}
	if (gb_rules_from_json(g, &su.rules, json_object_get(head, "rules")) || g->init(st, &su)) {
		res->verdict = VERIFY_BAD_LOG;
		res->seq = 1;
		goto out;
	}
	replay(g, st, lines, nlines, res);
	g->outcome(st, &oc);
	res->over = oc.over;
out:
	for (int i = 0; i < nlines; i++)
		json_decref(lines[i]);
	free(lines);
	json_decref(head);
	free(st);
	return rc;
}

void verify_describe(const struct verify_result *r, struct strbuf *out)
{
	switch (r->verdict) {
	case VERIFY_OK:
		sb_addf(out, "verified: table %lld (%s), %d moves replay from this seed, whose SHA-256 is the seal %s; "
			"every die and deal matches what was played%s", (long long)r->table, r->game, r->moves,
			r->seal, r->over ? "" : " (the log stops before the game's end)");
		break;
	case VERIFY_BAD_SEED:
		sb_add(out, "not verified: the seed must be 64 hex digits");
		break;
	case VERIFY_BAD_LOG:
		sb_addf(out, "not verified: the move log is unreadable at line %d", r->seq);
		break;
	case VERIFY_SEAL:
		sb_addf(out, "not verified: the seed's SHA-256 is %s, but the table was sealed with %s",
			r->seal_of_seed, r->seal[0] ? r->seal : "nothing");
		break;
	case VERIFY_SEQ:
		sb_addf(out, "not verified: move %d is missing or out of order", r->seq);
		break;
	case VERIFY_SEAT:
		sb_addf(out, "not verified: move %d (%s) is logged for a seat whose turn it was not", r->seq, r->action);
		break;
	case VERIFY_REFUSED:
		sb_addf(out, "not verified: move %d (%s) is not possible in the game this seed deals", r->seq,
			r->action);
		break;
	default:
		sb_addf(out, "not verified: move %d (%s): the log says \"%s\", the seed gives \"%s\"", r->seq,
			r->action, r->logged, r->replayed);
		break;
	}
}

/* Read all of f (caller frees), or NULL. */
static char *slurp(FILE *f)
{
	struct strbuf sb = { 0 };
	char chunk[8192];
	size_t got;

	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sb_addn(&sb, chunk, got);
	if (ferror(f) || sb.failed) {
		sb_release(&sb);
		return NULL;
	}
	return sb.buf ? sb_detach(&sb) : calloc(1, 1);
}

int verify_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct verify_result res;
	struct strbuf line = { 0 };
	FILE *f = NULL;
	char *text = NULL;
	int status = 2;

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fprintf(out, "usage: gamebot verify SEED MOVELOG\n"
			     "  SEED     the 64 hex digits a table reveals when its game ends\n"
			     "  MOVELOG  the table's move log (/verify log in the chat), a file or - for stdin\n"
			     "replays the game from the seed and checks every die and deal; exit 0 when it matches\n");
		return 0;
	}
	if (argc != 3) {
		fprintf(err, "usage: gamebot verify SEED MOVELOG\n");
		goto out;
	}
	if (!verify_seed_ok(argv[1])) {
		fprintf(err, "gamebot verify: the seed must be 64 hex digits, not '%s'\n", argv[1]);
		goto out;
	}
	f = strcmp(argv[2], "-") == 0 ? stdin : fopen(argv[2], "r");
	if (!f) {
		fprintf(err, "gamebot verify: cannot read '%s': %s\n", argv[2], strerror(errno));
		goto out;
	}
	text = slurp(f);
	if (!text || verify_run(argv[1], text, &res)) {
		fprintf(err, "gamebot verify: cannot read '%s'\n", argv[2]);
		goto out;
	}
	verify_describe(&res, &line);
	fprintf(out, "%s\n", sb_str(&line));
	status = res.verdict == VERIFY_OK ? 0 : 1;
out:
	if (f && f != stdin)
		fclose(f);
	free(text);
	sb_release(&line);
	return status;
}
