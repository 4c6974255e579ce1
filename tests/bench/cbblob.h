/*
 * cbblob.h - learned Call Break weights read from the files
 * tests/bench/cbtrain.py writes beside its header (CB_TRAIN_BLOB, and
 * CB_TRAIN_SEER for a seer): the version and the checksum (u32 each), then
 * the floats of the struct in order. The whole set (struct callbreak_net)
 * is installed for every player of the run (cbdata NET=FILE); a seer
 * (struct cbn_seer) for the play-outs' net bits 16 and 32 (cbdata
 * SEER=FILE, cbparts CBPARTS_SEER=FILE). Header only.
 */
#ifndef GB_CBBLOB_H
#define GB_CBBLOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "games/ai/callbreak_net.h"

/*
 * Read `size` bytes of weights from file into net, the checksum the file
 * gives into *sum; nonzero (and said why on stderr) when the file is not
 * one such set of version CBN_VERSION.
 */
static inline int cb_blob_read(const char *file, void *net, size_t size, uint32_t *sum)
{
	uint32_t head[2];
	FILE *f = fopen(file, "rb");
	int bad = !f || fread(head, sizeof(head), 1, f) != 1 || fread(net, size, 1, f) != 1 || fgetc(f) != EOF ||
		  head[0] != CBN_VERSION;

	if (f)
		fclose(f);
	if (bad)
		fprintf(stderr, "%s is not a set of version %d weights of the size expected\n", file, CBN_VERSION);
	*sum = bad ? 0 : head[1];
	return bad;
}

/* rc, having said so when it is not 0: `file`'s weights did not match their checksum. */
static inline int cb_blob_checked(const char *file, int rc)
{
	if (rc)
		fprintf(stderr, "%s: the weights do not match their checksum\n", file);
	return rc;
}

/* The whole set in file installed for every player (callbreak_net_install()); nonzero when it is not. */
static inline int cb_blob_install(const char *file)
{
	static struct callbreak_net net;
	uint32_t sum;

	return cb_blob_read(file, &net, sizeof(net), &sum) || cb_blob_checked(file, callbreak_net_install(&net, sum));
}

/* The seer in file installed for the play-outs (callbreak_seer_install()); nonzero when it is not. */
static inline int cb_seer_load(const char *file)
{
	static struct cbn_seer net;
	uint32_t sum;

	return cb_blob_read(file, &net, sizeof(net), &sum) || cb_blob_checked(file, callbreak_seer_install(&net, sum));
}

#endif
