/*
 * netsum.h - the checksum that guards the compiled-in weights of the
 * learned evaluations (ludo_net.h, callbreak_net.h): FNV-1a over the bytes
 * of the weights, started from the format version, so that weights of
 * another format or a changed weight are refused. The trainers
 * (tests/bench/ludotrain.c, tests/bench/cbtrain.py) write the same sum.
 */
#ifndef GB_NETSUM_H
#define GB_NETSUM_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t gb_netsum(const void *weights, size_t n, uint32_t version)
{
	const unsigned char *p = weights;
	uint32_t h = 2166136261u ^ version;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

#endif
