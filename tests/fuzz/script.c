/*
 * script.c - fuzz target: `gamebot script` (bot/tools/script.c), options and input.
 *
 * The input's first line is the command line after "script", split at
 * spaces ("ludo --seed 3 --dice 6,6"); the rest is what the script reads
 * on standard input, one action a line, given through fmemopen(). The exit
 * status must be 0 (a game ran to the end of its input) or 2 (the options
 * were refused), and every line written must be one JSON object.
 *
 * The action "bot" thinks (a hard Bagh Chal move takes up to a second), so
 * inputs of more than 8 KB or more than 16 "bot" lines are skipped to keep
 * every run within libFuzzer's time limit.
 */
#include "fuzz.h"

#include <jansson.h>

#include "bot/tools/script.h"

#define MAX_ARGS 32
#define MAX_BOT_LINES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = NULL, *rest, *argv[MAX_ARGS + 2];
	char *outbuf = NULL, *errbuf = NULL;
	size_t outlen = 0, errlen = 0;
	FILE *in = NULL, *out = NULL, *err = NULL;
	int argc = 0, bots = 0, rc;

	if (size > 8192)
		return 0;
	text = fuzz_text(data, size);
	if (!text)
		return 0;
	for (const char *p = strstr(text, "bot"); p; p = strstr(p + 3, "bot"))
		bots++;
	if (bots > MAX_BOT_LINES)
		goto out;
	rest = strchr(text, '\n');
	if (rest)
		*rest++ = '\0';
	else
		rest = text + size;
	argv[argc++] = "script";
	for (char *p = text; *p && argc < MAX_ARGS;) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		argv[argc++] = p;
		while (*p && *p != ' ')
			p++;
	}
	argv[argc] = NULL;
	in = *rest ? fmemopen(rest, strlen(rest), "r") : fopen("/dev/null", "r");
	out = open_memstream(&outbuf, &outlen);
	err = open_memstream(&errbuf, &errlen);
	FUZZ_REQUIRE(in && out && err);
	rc = script_main(argc, argv, in, out, err);
	FUZZ_REQUIRE(rc == 0 || rc == 2);
	fclose(out);
	out = NULL;
	/* one JSON object a line */
	for (char *line = outbuf; line && *line;) {
		char *nl = strchr(line, '\n');
		json_t *j;

		FUZZ_REQUIRE(nl != NULL);
		j = json_loadb(line, (size_t)(nl - line), 0, NULL);
		FUZZ_REQUIRE(json_is_object(j));
		json_decref(j);
		line = nl + 1;
	}
out:
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	if (err)
		fclose(err);
	free(outbuf);
	free(errbuf);
	free(text);
	return 0;
}
