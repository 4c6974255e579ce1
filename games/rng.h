/*
 * rng.h - the one random number generator of the rules core.
 *
 * xoshiro256** seeded through splitmix64. The generator state lives inside
 * each game state (it is plain data, copied with the state and saved in its
 * JSON), so a game replays byte for byte from its seed and its actions on
 * every machine. Nothing here touches global state.
 */
#ifndef GB_RNG_H
#define GB_RNG_H

#include <stddef.h>
#include <stdint.h>

struct gb_rng {
	uint64_t s[4];
};

/* Seed the generator; every seed, 0 included, gives a valid state. */
void gb_rng_seed(struct gb_rng *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t gb_rng_next(struct gb_rng *r);

/* Uniform integer in 0..n-1 without modulo bias; n must be at least 1. */
uint32_t gb_rng_below(struct gb_rng *r, uint32_t n);

/* A fair six-sided die: 1..6. */
int gb_rng_die(struct gb_rng *r);

/* Shuffle n ints in place (Fisher-Yates). */
void gb_rng_shuffle(struct gb_rng *r, int *v, size_t n);

/* Derive an independent seed from (seed, k): the k-th game of a run, etc. */
uint64_t gb_seed_derive(uint64_t seed, uint64_t k);

/* Save as 64 lowercase hex digits into out (65 bytes with the NUL). */
void gb_rng_to_hex(const struct gb_rng *r, char out[65]);

/* Restore from gb_rng_to_hex() output. Returns GB_OK or GB_ESTATE. */
int gb_rng_from_hex(struct gb_rng *r, const char *hex);

#endif
