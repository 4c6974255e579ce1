/*
 * command.c - fuzz target: command_parse_text(), the chat line reader.
 *
 * The input is one chat line (any bytes but NUL). On GB_OK the verb must
 * be a non-empty run of lowercase ASCII letters, the arguments terminated
 * within their buffer, without blanks at either end and never cut inside a
 * UTF-8 character that the line held whole; reading the line twice must
 * give the same command.
 */
#include "fuzz.h"

#include "bot/bot.h"
#include "games/error.h"
#include "games/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct command a, b;
	char *text = fuzz_text(data, size);
	int rc;

	if (!text)
		return 0;
	memset(&a, 0, sizeof(a));
	memset(&b, 0xff, sizeof(b));
	rc = command_parse_text(&a, text);
	FUZZ_REQUIRE(rc == GB_OK || rc == GB_EPARSE);
	if (rc == GB_OK) {
		size_t n;

		FUZZ_TERMINATED(a.verb);
		FUZZ_TERMINATED(a.args);
		FUZZ_REQUIRE(a.verb[0] != '\0');
		for (const char *p = a.verb; *p; p++)
			FUZZ_REQUIRE(*p >= 'a' && *p <= 'z');
		n = strlen(a.args);
		if (n) {
			FUZZ_REQUIRE(a.args[0] != ' ' && a.args[0] != '\t');
			FUZZ_REQUIRE(a.args[n - 1] != ' ' && a.args[n - 1] != '\t' &&
				     a.args[n - 1] != '\n' && a.args[n - 1] != '\r');
		}
		if (utf8_valid(text))
			FUZZ_REQUIRE(utf8_valid(a.args));
		FUZZ_REQUIRE(command_parse_text(&b, text) == GB_OK);
		FUZZ_REQUIRE(strcmp(a.verb, b.verb) == 0 && strcmp(a.args, b.args) == 0);
	}
	free(text);
	return 0;
}
