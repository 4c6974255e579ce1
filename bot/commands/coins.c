/*
 * coins.c - wallets, grants and stakes: the seeds' games played for coins.
 *
 * Every member has a wallet in each chat ("user:ID" in the store's
 * ledger). The first time a member meets coins (/wallet, /join at a staked
 * table, a /grant to them) the chat's bank gives them the starting grant
 * (chat setting starting_coins, 1,000 unless an admin set another); admins
 * may /grant more. Nothing else makes or destroys coins, so every chat's
 * accounts, its bank included, always add up to 0 (store_coins_audit()).
 *
 * What a handler read may be stale by the time coins_commit() writes (it
 * reads outside the write transaction, and a forum group's topics share
 * the wallets): the store itself refuses a second starting grant and a
 * wallet taken below 0, the command comes back as GB_ECONFLICT, and the
 * router runs it again on what the store holds now (the second /wallet
 * shows the balance; the second stake is refused as short).
 *
 * A table may carry a stake per seat (/stake N in the lobby). A person who
 * cannot cover it is not seated; at /start each person's stake moves from
 * their wallet to the table's pot ("pot:TABLE"). When the table is over
 * the pot is settled in the same transaction as the move (or /stop) that
 * ended it:
 *   - a person wins: they take the whole pot; a seat the computer played
 *     for an idle owner is still that person's (CB-23: the seat and its
 *     stake stay theirs), so the owner takes it;
 *   - a draw, or a Call Break game tied at the top (CB-21), or a win by a
 *     computer seat (computers play free; a seat its owner left counts as
 *     one): every stake goes back to who staked it;
 *   - a game stopped, or closed when everyone left, before its end: every
 *     stake goes back.
 * Handlers only queue movements (ctx->coins); coins_commit(), called by
 * commit(), writes them with the rest of the command's transaction.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/internal.h"

#define START_COINS 1000     /* starting grant unless the chat set another */
#define MAX_AMOUNT 1000000   /* the largest stake or grant one command may name */

static void account_of(const char *user, char out[STORE_ACCOUNT_LEN])
{
	snprintf(out, STORE_ACCOUNT_LEN, "user:%s", user);
}

static void pot_of(const struct ctx *c, char out[STORE_ACCOUNT_LEN])
{
	snprintf(out, STORE_ACCOUNT_LEN, "pot:%lld", (long long)c->table.id);
}

/* Queue a movement of amount coins; written by coins_commit(). */
static void queue_move(struct ctx *c, const char *from, const char *from_name, const char *to,
		       const char *to_name, int64_t amount, const char *reason)
{
	struct store_coin_move *m;

	/* a command moves at most a grant and one movement per seat: a full queue is a bug */
	if (c->ncoins >= (int)(sizeof(c->coins) / sizeof(c->coins[0])) || amount <= 0)
		return;
	m = &c->coins[c->ncoins++];
	memset(m, 0, sizeof(*m));
	snprintf(m->from, sizeof(m->from), "%s", from);
	snprintf(m->from_name, sizeof(m->from_name), "%s", from_name);
	snprintf(m->to, sizeof(m->to), "%s", to);
	snprintf(m->to_name, sizeof(m->to_name), "%s", to_name);
	snprintf(m->reason, sizeof(m->reason), "%s", reason);
	m->amount = amount;
	m->table = c->has_table ? c->table.id : 0;
	m->at_ms = c->cmd->now_ms;
}

/*
 * The coins in user's wallet, counting what this command already queued;
 * a member without a wallet is given the starting grant first.
 */
static int wallet(struct ctx *c, const char *user, const char *name, int64_t *coins)
{
	char acct[STORE_ACCOUNT_LEN];
	int rows = 0, rc, start;
	bool queued = false;

	account_of(user, acct);
	rc = store_coins_balance(c->b->store, c->chat.id, acct, coins, &rows);
	if (rc)
		return rc;
	for (int i = 0; i < c->ncoins; i++) {
		if (strcmp(c->coins[i].to, acct) == 0)
			*coins += c->coins[i].amount;
		if (strcmp(c->coins[i].from, acct) == 0)
			*coins -= c->coins[i].amount;
		queued |= strcmp(c->coins[i].to, acct) == 0 || strcmp(c->coins[i].from, acct) == 0;
	}
	start = setting_int(c, "starting_coins", START_COINS);
	if (rows == 0 && !queued && start > 0) {
		/* "start": the ledger takes one per account (a unique index) */
		queue_move(c, "bank", "", acct, name, start, "start");
		*coins += start;
	}
	return GB_OK;
}

/* Numbers for coins in the chat's digits (stakes and balances stay within int). */
static const char *coins_num(struct ctx *c, int64_t v, char buf[24])
{
	return ctx_num(c, (int)(v > MAX_AMOUNT * 1000LL ? MAX_AMOUNT * 1000LL : v), buf);
}

/*
 * Is this a private chat whose coins are the person's online wallet? A
 * private chat has no wallets of its own to speak of: what a person
 * stakes from there is their online wallet, so /wallet and /top show that.
 */
static bool private_online(const struct ctx *c)
{
	return c->cmd->private_chat && !c->online && c->b->cfg.online;
}

int cmd_wallet(struct ctx *c)
{
	int64_t coins = 0;
	char num[24], key[STORE_ID_LEN];
	int rc;

	if (private_online(c)) {
		online_key(c->cmd->platform, c->cmd->user, key, sizeof(key));
		rc = online_coins(c, key, &coins);
		if (!rc)
			reply_public(c, M_WALLET_ONLINE, coins_num(c, coins, num));
		return rc;
	}
	rc = wallet(c, c->cmd->user, c->cmd->user_name, &coins);
	if (rc)
		return rc;
	reply_public(c, M_WALLET, c->cmd->user_name, coins_num(c, coins, num));
	return GB_OK;
}

int cmd_top(struct ctx *c)
{
	struct store_balance rows[10];
	struct strbuf sb = { 0 };
	char word[16] = "";
	const char *rest = arg_word(c->cmd->args, word, sizeof(word));
	int n = 0, rc;

	if (!strcmp(word, "online"))
		return online_top(c, rest);
	if (word[0]) {
		reply_usage(c, "/top  or  /top online %s");
		return GB_OK;
	}

	if (private_online(c))
		rc = online_wallets(c, rows, 10, &n);
	else
		rc = store_coins_top(c->b->store, c->chat.id, "user:", rows, 10, &n);
	if (rc)
		return rc;
	if (n == 0) {
		if (private_online(c))
			reply_public(c, M_TOP_COINS_ONLINE_EMPTY);
		else
			reply_public(c, M_TOP_EMPTY);
		return GB_OK;
	}
	sb_add(&sb, tr(c->lang, private_online(c) ? M_TOP_COINS_ONLINE_HEAD : M_TOP_HEAD));
	for (int i = 0; i < n; i++) {
		char rank[24], num[24];

		sb_add(&sb, "\n");
		sb_addmsg(&sb, c->lang, M_TOP_ROW, ctx_num(c, i + 1, rank), rows[i].name,
			 coins_num(c, rows[i].balance, num));
	}
	reply_push(c, "public", NULL, sb_str(&sb));
	sb_release(&sb);
	return GB_OK;
}

/* An amount typed as a command argument: 1..MAX_AMOUNT (0 too when zero_ok). */
static bool amount_arg(const char *word, bool zero_ok, int *out)
{
	return gb_parse_uint(word, MAX_AMOUNT, out) == GB_OK && (zero_ok || *out > 0);
}

/*
 * The member "@name" (or "name", or a user id) names in this chat: a seat
 * at the open table, else a wallet. *found false when nobody matches.
 */
static int find_member(struct ctx *c, const char *who, char user[STORE_ID_LEN],
		       char name[STORE_NAME_LEN], bool *found)
{
	struct store_balance rows[200];
	int n = 0, rc;

	*found = false;
	if (*who == '@')
		who++;
	for (int i = 0; i < c->nseats && !*found; i++) {
		if (!c->seats[i].user[0])
			continue;
		if (strcmp(c->seats[i].user, who) == 0 || strcasecmp(c->seats[i].name, who) == 0) {
			snprintf(user, STORE_ID_LEN, "%s", c->seats[i].user);
			snprintf(name, STORE_NAME_LEN, "%s", c->seats[i].name);
			*found = true;
		}
	}
	if (*found)
		return GB_OK;
	rc = store_coins_top(c->b->store, c->chat.id, "user:", rows, 200, &n);
	for (int i = 0; !rc && i < n && !*found; i++) {
		const char *id = rows[i].account + strlen("user:");

		if (strcmp(id, who) == 0 || strcasecmp(rows[i].name, who) == 0) {
			snprintf(user, STORE_ID_LEN, "%s", id);
			snprintf(name, STORE_NAME_LEN, "%s", rows[i].name[0] ? rows[i].name : id);
			*found = true;
		}
	}
	return rc;
}

int cmd_grant(struct ctx *c)
{
	char who[STORE_NAME_LEN + 2] = "", amount[32] = "", user[STORE_ID_LEN], name[STORE_NAME_LEN];
	char a[24], b[24];
	const char *p = arg_word(c->cmd->args, who, sizeof(who));
	int64_t coins = 0;
	bool found = false;
	int n = 0, rc;

	if (p)
		arg_word(p, amount, sizeof(amount));
	if (!amount_arg(amount, false, &n)) {
		reply_alert(c, M_GRANT_BAD, amount);
		return GB_OK;
	}
	/* arg_word() lowercases: look the name up as it was typed */
	snprintf(who, sizeof(who), "%.*s", (int)strcspn(c->cmd->args + strspn(c->cmd->args, " \t"), " \t"),
		 c->cmd->args + strspn(c->cmd->args, " \t"));
	rc = find_member(c, who, user, name, &found);
	if (rc)
		return rc;
	if (!found) {
		reply_alert(c, M_GRANT_WHO, who);
		return GB_OK;
	}
	rc = wallet(c, user, name, &coins);
	if (rc)
		return rc;
	{
		char acct[STORE_ACCOUNT_LEN];

		account_of(user, acct);
		queue_move(c, "bank", "", acct, name, n, "grant");
	}
	reply_public(c, M_GRANTED, c->cmd->user_name, ctx_num(c, n, a), name, coins_num(c, coins + n, b));
	return GB_OK;
}

/* The first seated person who cannot cover stake (their seat, and *coins), or -1. */
static int first_short(struct ctx *c, int64_t stake, int64_t *coins, int *rc)
{
	*rc = GB_OK;
	for (int i = 0; i < c->nseats; i++) {
		if (!seat_is_person(c, i))
			continue;
		*rc = wallet(c, c->seats[i].user, c->seats[i].name, coins);
		if (*rc)
			return -1;
		if (*coins < stake)
			return i;
	}
	return -1;
}

int cmd_stake(struct ctx *c)
{
	char word[32] = "", a[24], b[24];
	int n = 0, rc, short_seat;
	int64_t coins = 0;

	if (c->table.status != STORE_LOBBY) {
		reply_alert(c, M_STAKE_LOBBY);
		return GB_OK;
	}
	if (!c->cmd->is_admin && strcmp(c->owner, c->cmd->user) != 0) {
		reply_alert(c, M_STAKE_WHO);
		return GB_OK;
	}
	arg_word(c->cmd->args, word, sizeof(word));
	if (!amount_arg(word, true, &n)) {
		reply_alert(c, M_STAKE_BAD, word);
		return GB_OK;
	}
	rc = ctx_terms(c);
	if (rc)
		return rc;
	short_seat = first_short(c, n, &coins, &rc);
	if (rc)
		return rc;
	if (short_seat >= 0) {
		reply_alert(c, M_STAKE_SHORT, c->seats[short_seat].name, ctx_num(c, n, a), coins_num(c, coins, b));
		return GB_OK;
	}
	c->terms.stake = n;
	c->terms_changed = true;
	if (n)
		reply_public(c, M_STAKE_SET, c->cmd->user_name, ctx_num(c, n, a));
	else
		reply_public(c, M_STAKE_NONE, c->cmd->user_name);
	c->show_table = true;
	return GB_OK;
}

bool coins_join_refused(struct ctx *c, int *rc)
{
	int64_t coins = 0;
	char a[24], b[24];

	*rc = ctx_terms(c);
	if (*rc || c->terms.stake <= 0)
		return *rc != GB_OK;
	*rc = wallet(c, c->cmd->user, c->cmd->user_name, &coins);
	if (*rc)
		return true;
	if (coins >= c->terms.stake)
		return false;
	reply_alert(c, M_STAKE_SHORT, c->cmd->user_name, coins_num(c, c->terms.stake, a),
		    coins_num(c, coins, b));
	return true;
}

bool coins_start_refused(struct ctx *c, int *rc)
{
	int64_t coins = 0, pot = 0;
	char a[24], b[24], acct[STORE_ACCOUNT_LEN], potname[STORE_ACCOUNT_LEN];
	int short_seat;

	*rc = ctx_terms(c);
	if (*rc || c->terms.stake <= 0)
		return *rc != GB_OK;
	short_seat = first_short(c, c->terms.stake, &coins, rc);
	if (*rc)
		return true;
	if (short_seat >= 0) {
		/* a wallet can shrink after joining: another table's stake was held first */
		reply_alert(c, M_STAKE_SHORT, c->seats[short_seat].name, coins_num(c, c->terms.stake, a),
			    coins_num(c, coins, b));
		return true;
	}
	pot_of(c, potname);
	for (int i = 0; i < c->nseats; i++) {
		if (!seat_is_person(c, i))
			continue;
		account_of(c->seats[i].user, acct);
		queue_move(c, acct, c->seats[i].name, potname, "", c->terms.stake, "stake");
		pot += c->terms.stake;
	}
	reply_public(c, M_STAKES_HELD, coins_num(c, pot, a));
	return false;
}

/* Is the finished game of points (Call Break) tied at the top (CB-21)? */
static bool tied_at_top(const struct ctx *c)
{
	int best = 0, at_best = 0;

	if (!(c->game->flags & GB_POINTS))
		return false;
	for (int i = 0; i < c->nseats; i++) {
		if (i == 0 || c->final.score[i] > best) {
			best = c->final.score[i];
			at_best = 1;
		} else if (c->final.score[i] == best) {
			at_best++;
		}
	}
	return at_best > 1;
}

/* Settle the pot of a table that is over: see the top of the file. */
static int settle(struct ctx *c)
{
	char potname[STORE_ACCOUNT_LEN], acct[STORE_ACCOUNT_LEN], num[24];
	int64_t pot = 0;
	int rc, winner = -1, why;

	pot_of(c, potname);
	rc = store_coins_balance(c->ws, c->chat.id, potname, &pot, NULL);
	if (rc || pot <= 0)
		return rc;
	if (!c->record_stats)
		why = M_POT_STOPPED;
	else if (c->final.draw || c->final.winner < 0)
		why = M_POT_DRAW;
	else if (tied_at_top(c))
		why = M_POT_TIE;
	else if (!seat_is_person(c, c->final.winner))
		why = M_POT_COMPUTER;
	else
		why = M_POT_WON, winner = c->final.winner;
	if (winner >= 0) {
		account_of(c->seats[winner].user, acct);
		queue_move(c, potname, "", acct, c->seats[winner].name, pot, "win");
		reply_public(c, M_POT_WON, c->seats[winner].name, coins_num(c, pot, num));
		return GB_OK;
	}
	/* every stake back to who staked it: each seat a person took at the start */
	for (int i = 0; i < c->nseats && pot > 0; i++) {
		int64_t back = c->terms.stake < pot ? c->terms.stake : pot;

		if (!c->seats[i].user[0])
			continue;
		account_of(c->seats[i].user, acct);
		queue_move(c, potname, "", acct, c->seats[i].name, back, "refund");
		pot -= back;
	}
	if (why == M_POT_COMPUTER) {
		char name[STORE_NAME_LEN];

		REPLY_EACH_LANG(c, reply_public(c, M_POT_COMPUTER, seat_name(c, c->final.winner, name, sizeof(name))));
	} else {
		reply_public(c, msg_any(why, ""));
	}
	return GB_OK;
}

int coins_commit(struct ctx *c)
{
	int rc = GB_OK;

	if (c->has_table && c->terms_changed) {
		rc = store_terms_set(c->ws, c->table.id, &c->terms);
		if (rc)
			goto out;
	}
	if (c->has_table && c->table.status == STORE_OVER && !c->broken) {
		rc = ctx_terms(c);
		if (!rc && c->terms.stake > 0)
			rc = settle(c);
		if (rc)
			goto out;
	}
	for (int i = 0; i < c->ncoins; i++) {
		if (!c->coins[i].table && c->has_table) {
			char pot[STORE_ACCOUNT_LEN];

			/* a table opened and started by one command (online): its pot's id is known only now */
			c->coins[i].table = c->table.id;
			pot_of(c, pot);
			if (!strcmp(c->coins[i].to, "pot:0"))
				snprintf(c->coins[i].to, sizeof(c->coins[i].to), "%s", pot);
			if (!strcmp(c->coins[i].from, "pot:0"))
				snprintf(c->coins[i].from, sizeof(c->coins[i].from), "%s", pot);
		}
		rc = store_coins_move(c->ws, c->chat.id, &c->coins[i]);
		if (rc)
			goto out;
	}
out:
	return rc;
}
