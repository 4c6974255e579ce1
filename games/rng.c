/*
 * rng.c - xoshiro256** (Blackman and Vigna, public domain algorithm) with
 * splitmix64 seeding. See rng.h for the contract.
 */
#include "rng.h"

#include "error.h"

#include <string.h>

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void gb_rng_seed(struct gb_rng *r, uint64_t seed)
{
	uint64_t x = seed;

	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

uint64_t gb_rng_next(struct gb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint32_t gb_rng_below(struct gb_rng *r, uint32_t n)
{
	/* Lemire's multiply-and-reject: unbiased for every n. */
	uint64_t m = (gb_rng_next(r) >> 32) * (uint64_t)n;
	uint32_t low = (uint32_t)m;

	if (low < n) {
		uint32_t threshold = (uint32_t)(-n) % n;

		while (low < threshold) {
			m = (gb_rng_next(r) >> 32) * (uint64_t)n;
			low = (uint32_t)m;
		}
	}
	return (uint32_t)(m >> 32);
}

int gb_rng_die(struct gb_rng *r)
{
	return 1 + (int)gb_rng_below(r, 6);
}

void gb_rng_shuffle(struct gb_rng *r, int *v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = gb_rng_below(r, (uint32_t)i);
		int t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

uint64_t gb_seed_derive(uint64_t seed, uint64_t k)
{
	uint64_t x = seed ^ (k * 0xd1b54a32d192ed03ULL);

	splitmix64(&x);
	return splitmix64(&x);
}

void gb_rng_to_hex(const struct gb_rng *r, char out[65])
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 16; j++)
			out[i * 16 + j] = digits[(r->s[i] >> (60 - 4 * j)) & 15];
	out[64] = '\0';
}

int gb_rng_from_hex(struct gb_rng *r, const char *hex)
{
	struct gb_rng t;

	if (!hex || strlen(hex) != 64)
		return GB_ESTATE;
	for (int i = 0; i < 4; i++) {
		uint64_t v = 0;

		for (int j = 0; j < 16; j++) {
			char c = hex[i * 16 + j];
			int d;

			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else
				return GB_ESTATE;
			v = (v << 4) | (uint64_t)d;
		}
		t.s[i] = v;
	}
	if (!(t.s[0] | t.s[1] | t.s[2] | t.s[3]))
		return GB_ESTATE; /* the all-zero state is a fixed point */
	*r = t;
	return GB_OK;
}
