/*
 * cbseer.h - a seer (games/ai/callbreak_net.h, struct cbn_seer) read from
 * the file tests/bench/cbtrain.py writes with CB_TRAIN_SEER (the version
 * and the checksum, u32 each, then the floats of struct cbn_seer in
 * order) and installed for the play-outs (p->net bit 16). Shared by
 * cbdata (SEER=FILE) and cbparts (CBPARTS_SEER=FILE). Header only.
 */
#ifndef GB_CBSEER_H
#define GB_CBSEER_H

#include <stdint.h>
#include <stdio.h>

#include "games/ai/callbreak_net.h"

/* 0, or nonzero (and said why on stderr) when `file` is not such a seer. */
static inline int cb_seer_load(const char *file)
{
	static struct cbn_seer net;
	uint32_t head[2];
	FILE *f = fopen(file, "rb");
	int bad = !f || fread(head, sizeof(head), 1, f) != 1 || fread(&net, sizeof(net), 1, f) != 1 ||
		  fgetc(f) != EOF || head[0] != CBN_VERSION || callbreak_seer_install(&net, head[1]);

	if (f)
		fclose(f);
	if (bad)
		fprintf(stderr, "%s is not a seer of version %d with a matching checksum\n", file, CBN_VERSION);
	return bad;
}

#endif
