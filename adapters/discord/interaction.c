/*
 * interaction.c - what the adapter remembers of an interaction after it
 * came in: its reply handle ("INTERACTION_ID:USER_ID:TOKEN") and whether
 * its token is still fresh, its gate while the route handler answers it
 * (the workers leave its rows alone until a moment after the answer went),
 * and its webhook once Discord said it is gone.
 */
#include "adapters/discord/internal.h"

static void hook_hash(const char *token, size_t len, unsigned char out[16])
{
	crypto_generichash(out, 16, (const unsigned char *)token, len, NULL, 0);
}

/* Discord said the webhook of this interaction token (len bytes) is gone. */
void dc_hook_bury(struct discord *d, const char *token, size_t len)
{
	unsigned char h[16];

	hook_hash(token, len, h);
	pthread_mutex_lock(&d->lock);
	memcpy(d->dead[d->dead_next], h, sizeof(h));
	d->dead_next = (d->dead_next + 1) % DC_DEAD_HOOKS;
	pthread_mutex_unlock(&d->lock);
}

/* Is the webhook of this interaction token known to be gone? */
bool dc_hook_dead(struct discord *d, const char *token)
{
	unsigned char h[16];
	bool dead = false;

	if (!token)
		return true;
	hook_hash(token, strlen(token), h);
	pthread_mutex_lock(&d->lock);
	for (int i = 0; i < DC_DEAD_HOOKS && !dead; i++)
		dead = sodium_memcmp(d->dead[i], h, sizeof(h)) == 0;
	pthread_mutex_unlock(&d->lock);
	return dead;
}

void dc_gate_enter(struct discord *d, const char *iid)
{
	int64_t now = bot_now_ms();
	struct gate *slot = NULL;

	pthread_mutex_lock(&d->lock);
	for (int i = 0; i < DC_GATE_SLOTS; i++) {
		struct gate *g = &d->gates[i];

		if (!g->iid[0] || (g->until_ms && g->until_ms <= now)) {
			slot = g;
			break;
		}
		/*
		 * None free yet: the answered one whose wait ends first. Its rows
		 * may go a moment early; those of one being answered never do
		 * (the slots outnumber the threads that answer).
		 */
		if (g->until_ms && (!slot || g->until_ms < slot->until_ms))
			slot = g;
	}
	if (slot) {
		snprintf(slot->iid, sizeof(slot->iid), "%s", iid);
		slot->until_ms = 0;
	}
	pthread_mutex_unlock(&d->lock);
}

void dc_gate_leave(struct discord *d, const char *iid)
{
	pthread_mutex_lock(&d->lock);
	for (int i = 0; i < DC_GATE_SLOTS; i++)
		if (strcmp(d->gates[i].iid, iid) == 0 && !d->gates[i].until_ms)
			d->gates[i].until_ms = bot_now_ms() + DC_GATE_GRACE_MS;
	pthread_mutex_unlock(&d->lock);
}

/* Milliseconds the rows of iid must wait, 0 when they may go. */
int64_t dc_gate_wait(struct discord *d, const char *iid)
{
	int64_t now = bot_now_ms(), wait = 0;

	pthread_mutex_lock(&d->lock);
	for (int i = 0; i < DC_GATE_SLOTS; i++) {
		struct gate *g = &d->gates[i];

		if (strcmp(g->iid, iid) == 0 && (!g->until_ms || g->until_ms > now))
			wait = g->until_ms ? g->until_ms - now : 100;
	}
	pthread_mutex_unlock(&d->lock);
	return wait;
}

/* ---- reply handles ---- */

void dc_handle_make(const struct interaction *ia, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%s:%s", ia->id, ia->user, ia->token);
}

bool dc_handle_parse(const char *text, struct handle *h)
{
	const char *a = text ? strchr(text, ':') : NULL, *b = a ? strchr(a + 1, ':') : NULL;

	memset(h, 0, sizeof(*h));
	if (!b || (size_t)(a - text) >= sizeof(h->iid) || (size_t)(b - a - 1) >= sizeof(h->user) || !b[1])
		return false;
	memcpy(h->iid, text, (size_t)(a - text));
	memcpy(h->user, a + 1, (size_t)(b - a - 1));
	h->token = b + 1;
	return dc_id_ok(h->iid);
}

/* Is the interaction's token still good for a while (a margin for the call itself)? */
bool dc_fresh(const char *iid, int64_t now_ms)
{
	int64_t made = dc_snowflake_ms(iid);

	return made && now_ms - made < DC_TOKEN_TTL_MS - 10000;
}
