/*
 * fuzz.h - what the libFuzzer targets in tests/fuzz/ share.
 *
 * Each target is one file tests/fuzz/NAME.c defining
 * LLVMFuzzerTestOneInput(); its seed corpus is the folder tests/fuzz/NAME/
 * (small readable files, one input each). `make fuzz` and `make
 * fuzz-smoke` build them with clang under libFuzzer, ASan and UBSan into
 * build/fuzz/ and run each for a bounded time (see the Makefile).
 *
 * A target checks what the code promises, not only that it does not crash:
 * FUZZ_REQUIRE() aborts with the broken promise, which libFuzzer reports as
 * a crash with the input that caused it.
 */
#ifndef GB_FUZZ_H
#define GB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_REQUIRE(cond)                                                              \
	do {                                                                            \
		if (!(cond)) {                                                          \
			fprintf(stderr, "%s:%d: broken promise: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                        \
		}                                                                       \
	} while (0)

/* Is the char array field NUL-terminated within its size? */
#define FUZZ_TERMINATED(field) FUZZ_REQUIRE(strnlen((field), sizeof(field)) < sizeof(field))

/*
 * A NUL-terminated copy of data (caller frees), or NULL when the input
 * holds a NUL itself (text APIs cannot see past it, so such an input
 * teaches nothing) or memory ran out.
 */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s;

	if (memchr(data, '\0', size))
		return NULL;
	s = malloc(size + 1);
	if (!s)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
