/*
 * test_fuzz_found.c - every input the fuzzers (tests/fuzz/) found that
 * broke a promise, kept as a regular test with the input byte for byte, so
 * the fix stays fixed without running a fuzzer.
 *
 * Each test names the target that found it and the promise it broke.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bot/bot.h"
#include "games/error.h"

/*
 * command: a line longer than the arguments' buffer, cut inside a run of
 * blanks, kept blanks at the end of the arguments ("the rest of the line,
 * trimmed").
 */
static void command_cut_in_blanks(void **state)
{
	static const char line[] =
		"y \360\231\330\330\330\330\330\330\330\330\330\330\330\330\330\330"
		"\330\330\330\330\330\330\330\330\330\330\330\330\330\330\330\330\330"
		"\330\330\330\330\330\330\330\330\330\330\330\330\330\330\330\330\330"
		"`\330\330\330\330\330\330\330\330\330\330\330\330\330\330\330\330"
		"\303\330\330\330\330\330\330\226\245/e\316\251y \360\231\226\245/e"
		"\316\251o2\360\231\226\245e\316\251el\316\256\256\256\256\256\256"
		"\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256"
		"\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256"
		"\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256"
		"\256\256\256\256\256\256\2562\256\256\256\256\256\256\256\256\256"
		"\256\256\256\256\256\256\256\256\256\256\256\256\256\256\256\251oe"
		"\316\251o2\360\231\226                                              "
		"     \360\231\226\245eo"
		;
	struct command cmd;
	size_t n;

	(void)state;
	memset(&cmd, 0, sizeof(cmd));
	assert_int_equal(command_parse_text(&cmd, line), GB_OK);
	assert_string_equal(cmd.verb, "y");
	n = strlen(cmd.args);
	assert_true(n > 0 && n < sizeof(cmd.args));
	assert_true(cmd.args[n - 1] != ' ' && cmd.args[n - 1] != '\t');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(command_cut_in_blanks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
