/*
 * cbdata.c - training data for the learned Call Break networks
 * (games/ai/callbreak_net.h): whole games of the current players, every
 * decision written with what the deciding seat could know and what it
 * chose, and every bid with the tricks the hand then took.
 *
 *   build/bench/cbdata GAMES SEED PREFIX [HARD=full|net|level|seer] [NET=FILE] [SEER=FILE]
 *
 * Writes PREFIX.play, PREFIX.q and PREFIX.bid (fixed-size little-endian
 * records, read by tests/bench/cbtrain.py) and prints how many of each
 * and how long it took. Deterministic from SEED.
 *
 * The tables, by game number g: g % 10 < 4, four hard seats (self-play);
 * 4..6, two hard seats (at random places) and two medium; 7..9, two hard
 * and two `ismcts` (1,000 iterations a decision). Each game has five
 * rounds. The hard seats play the hard level without its learned parts
 * (HARD=full, the default), with all of them (HARD=net: the next round of
 * data, from the player the last one trained: its cards searched with
 * the `own` network in the play-outs, its bids by the bid network), or as
 * the level plays (HARD=level: `own` in its play-outs, bids searched). The
 * networks are the compiled-in ones, or with NET=FILE those in FILE, as
 * tests/bench/cbtrain.py writes them beside its header.
 *
 * HARD=seer writes the data of a seer (callbreak_net.h, struct cbn_seer):
 * the hard seats play their cards as the level would if handed the true
 * deal (callbreak_ai_play_oracle(), CB_ORACLE_CARDS: each card played out
 * on that deal alone) and bid as the level bids; the tables without four
 * hard seats have two medium seats, never `ismcts`. Each hard card
 * decision is also written to PREFIX.seer with a seer's inputs (the seat's
 * own and every other hand). SEER=FILE (tests/bench/cbblob.h) puts the
 * seer in FILE into the hard seats' play-outs (net bits 16 and 32): the
 * next round of such data.
 *
 * A play record (1,204 bytes): kind 1, who decided (3 hard, 2 medium,
 * 5 ismcts), the card, the tricks the seat took from then to the end of
 * the round, the tricks it had taken in the round at the end, its bid, the
 * card medium would have played there plus one, a byte of zero, the legal
 * cards (u64), then the CBN_PLAY_IN inputs as
 * float32. Only positions with more than one legal card are written.
 *
 * A q record (208 bytes) for each play record, in the same order: with
 * HARD=level, what the hard search made of each card
 * (callbreak_ai_play_values()), 52 float32, NaN for the cards it did not
 * play out; NaN everywhere in the other players' records and without
 * HARD=level.
 *
 * A seer record (1,828 bytes): the play record's first 16 bytes (kind 3),
 * then the CBN_SEER_IN inputs as float32.
 *
 * A bid record (344 bytes): kind 2, who decided, the bid, the tricks the
 * hand took in the round, four bytes of zero, then the CBN_BID_IN inputs as
 * float32.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "games/ai/ai.h"
#include "games/ai/callbreak_ai.h"
#include "games/ai/callbreak_ismcts.h"
#include "games/ai/callbreak_oracle.h"
#include "games/callbreak.h"
#include "games/game.h"
#include "games/rng.h"
#include "cbblob.h"

enum { WHO_MEDIUM = 2, WHO_HARD = 3, WHO_ISMCTS = 5 };

#define PLAY_REC (16 + 4 * CBN_PLAY_IN)
#define BID_REC (8 + 4 * CBN_BID_IN)
#define SEER_REC (16 + 4 * CBN_SEER_IN)

struct pending {
	unsigned char rec[PLAY_REC];
	unsigned char srec[SEER_REC]; /* its first 16 bytes filled when written */
	float q[CB_CARDS];
	int seat, tricks_then;
	bool seer; /* a seer record too */
};

static void put_floats(unsigned char *out, const struct cbn_feat *f, int n)
{
	float x[CBN_SEER_IN];

	memset(x, 0, sizeof(x));
	for (int i = 0; i < f->n; i++)
		x[f->idx[i]] = f->val[i];
	memcpy(out, x, (size_t)n * sizeof(float));
}

int main(int argc, char **argv)
{
	long games = argc > 3 ? strtol(argv[1], NULL, 10) : 0, nplay = 0, nbid = 0;
	uint64_t seed = argc > 3 ? strtoull(argv[2], NULL, 10) : 0;
	struct callbreak_ai_params hard = *callbreak_ai_defaults(GB_LEVEL_HARD);
	static struct pending pend[CB_CARDS];
	unsigned char bidrec[CB_SEATS][BID_REC];
	char path[4096];
	FILE *fp = NULL, *fb = NULL, *fq = NULL, *fs = NULL;
	struct timespec t0, t1;
	int status = 0;

	bool learned = false, level = false, seer = false, seer_net = false;

	for (int i = 4; i < argc && games > 0; i++) {
		if (strcmp(argv[i], "HARD=net") == 0)
			learned = true;
		else if (strcmp(argv[i], "HARD=level") == 0)
			level = true;
		else if (strcmp(argv[i], "HARD=seer") == 0)
			seer = level = true;
		else if (strncmp(argv[i], "SEER=", 5) == 0) {
			if (cb_seer_load(argv[i] + 5))
				return 2;
			seer_net = true;
		} else if (strncmp(argv[i], "NET=", 4) == 0) {
			if (cb_blob_install(argv[i] + 4))
				return 2;
		} else if (strcmp(argv[i], "HARD=full") != 0) {
			games = 0;
		}
	}
	if (games <= 0) {
		fprintf(stderr, "usage: cbdata GAMES SEED PREFIX [HARD=full|net|level|seer] [NET=FILE] [SEER=FILE]\n");
		return 2;
	}
	if (!level) {
		hard.net = 0; /* HARD=full: the hard level without its learned parts */
		hard.net_bid = 0;
	}
	if (learned || level) {
		hard.net = seer_net ? 1 | 16 | 32 : 1;
		hard.net_bid = learned;
		if (!callbreak_net_builtin()) {
			fprintf(stderr, "cbdata: HARD=net without valid weights\n");
			return 2;
		}
	}
	snprintf(path, sizeof(path), "%s.play", argv[3]);
	fp = fopen(path, "wb");
	snprintf(path, sizeof(path), "%s.bid", argv[3]);
	fb = fopen(path, "wb");
	snprintf(path, sizeof(path), "%s.q", argv[3]);
	fq = fopen(path, "wb");
	snprintf(path, sizeof(path), "%s.seer", argv[3]);
	fs = seer ? fopen(path, "wb") : NULL;
	if (!fp || !fb || !fq || (seer && !fs)) {
		perror("cbdata");
		status = 1;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long g = 0; g < games; g++) {
		uint64_t gseed = gb_seed_derive(seed, (uint64_t)g);
		int who[CB_SEATS], mode = (int)(g % 10), np = 0;
		struct gb_setup su;
		struct callbreak st;
		struct gb_rng r;

		gb_rng_seed(&r, gseed ^ 0xda7a);
		for (int q = 0; q < CB_SEATS; q++)
			who[q] = mode < 4 ? WHO_HARD : mode < 7 || seer ? WHO_MEDIUM : WHO_ISMCTS;
		if (mode >= 4) {
			int a = (int)gb_rng_below(&r, CB_SEATS), b = (a + 1 + (int)gb_rng_below(&r, 3)) % CB_SEATS;

			who[a] = who[b] = WHO_HARD;
		}
		gb_setup_init(&su, &callbreak_game);
		su.seed = gseed;
		su.dealer = (int)(gseed % CB_SEATS);
		callbreak_game.init(&st, &su);
		for (long k = 0;; k++) {
			struct gb_action a;
			struct callbreak_view v;
			struct cbn_feat f;
			int turn = callbreak_game.turn(&st), phase = st.phase;
			uint64_t s = gb_seed_derive(gseed ^ 0x5eed, (uint64_t)k);
			struct gb_outcome oc;
			float qv[CB_CARDS];

			callbreak_game.outcome(&st, &oc);
			if (oc.over)
				break;
			if (turn < 0) {
				a = (struct gb_action){ GB_ACT_NEXT, 0, 0, 0 };
			} else {
				callbreak_view(&st, turn, &v);
				for (int c = 0; c < CB_CARDS; c++)
					qv[c] = NAN;
				/* the search's values only as the level plays (HARD=level) */
				if (who[turn] == WHO_HARD && seer)
					callbreak_ai_play_oracle(&v, &hard, CB_ORACLE_CARDS, st.hand, s, 0, &a);
				else if (who[turn] == WHO_HARD && level)
					callbreak_ai_play_values(&v, &hard, s, 0, &a, qv);
				else if (who[turn] == WHO_HARD)
					callbreak_ai_play(&v, &hard, s, 0, &a);
				else if (who[turn] == WHO_ISMCTS)
					callbreak_ismcts_choose(&v, CB_ISMCTS_BUDGET, s, &a);
				else
					callbreak_ai_choose(&v, GB_LEVEL_MEDIUM, s, 0, &a);
				if (phase == CB_PHASE_PLAY && __builtin_popcountll(v.legal) > 1 && np < CB_CARDS) {
					struct pending *pd = &pend[np++];

					memset(pd->rec, 0, sizeof(pd->rec));
					pd->rec[0] = 1;
					pd->rec[1] = (unsigned char)who[turn];
					pd->rec[2] = (unsigned char)a.a;
					pd->rec[5] = (unsigned char)v.bid[turn];
					{
						struct gb_action m;

						callbreak_ai_choose(&v, GB_LEVEL_MEDIUM, s, 0, &m);
						pd->rec[6] = (unsigned char)(m.a + 1);
					}
					memcpy(pd->rec + 8, &v.legal, 8);
					callbreak_ai_features(&v, &f);
					put_floats(pd->rec + 16, &f, CBN_PLAY_IN);
					pd->seat = turn;
					pd->tricks_then = v.tricks[turn];
					memcpy(pd->q, qv, sizeof(qv));
					pd->seer = seer && who[turn] == WHO_HARD;
					if (pd->seer) {
						callbreak_ai_seer_features(&v, st.hand, &f);
						put_floats(pd->srec + 16, &f, CBN_SEER_IN);
					}
				} else if (phase == CB_PHASE_BID) {
					memset(bidrec[turn], 0, BID_REC);
					bidrec[turn][0] = 2;
					bidrec[turn][1] = (unsigned char)who[turn];
					bidrec[turn][2] = (unsigned char)a.a;
					callbreak_ai_bid_features(&v, &f);
					put_floats(bidrec[turn] + 8, &f, CBN_BID_IN);
				}
			}
			if (callbreak_game.apply(&st, &a, NULL)) {
				fprintf(stderr, "cbdata: an illegal action in game %ld\n", g);
				status = 1;
				goto out;
			}
			if (phase == CB_PHASE_PLAY && st.phase != CB_PHASE_PLAY) {
				const struct cb_line *line = st.hist[st.nhist - 1];

				for (int i = 0; i < np; i++) {
					pend[i].rec[3] = (unsigned char)(line[pend[i].seat].tricks - pend[i].tricks_then);
					pend[i].rec[4] = (unsigned char)line[pend[i].seat].tricks;
					if (fwrite(pend[i].rec, PLAY_REC, 1, fp) != 1 ||
					    fwrite(pend[i].q, sizeof(pend[i].q), 1, fq) != 1)
						status = 1;
					if (!pend[i].seer)
						continue;
					memcpy(pend[i].srec, pend[i].rec, 16);
					pend[i].srec[0] = 3;
					if (fwrite(pend[i].srec, SEER_REC, 1, fs) != 1)
						status = 1;
				}
				nplay += np;
				np = 0;
				for (int q = 0; q < CB_SEATS; q++) {
					bidrec[q][3] = (unsigned char)line[q].tricks;
					if (fwrite(bidrec[q], BID_REC, 1, fb) != 1)
						status = 1;
				}
				nbid += CB_SEATS;
			}
		}
		if (status) {
			fprintf(stderr, "cbdata: cannot write\n");
			goto out;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("cbdata: %ld games, %ld play and %ld bid records in %.0f s\n", games, nplay, nbid,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
out:
	if (fp && fclose(fp))
		status = 1;
	if (fb && fclose(fb))
		status = 1;
	if (fq && fclose(fq))
		status = 1;
	if (fs && fclose(fs))
		status = 1;
	return status;
}
