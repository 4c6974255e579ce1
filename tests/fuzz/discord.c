/*
 * discord.c - fuzz target: the Discord interaction reader
 * (adapters/discord/parse.c).
 *
 * The input is an interaction body as Discord would post it, after its
 * signature was checked (any bytes). The reader is the adapter folder's
 * own (adapters/discord/internal.h), linked from the library. A body is read as the route handler reads
 * it: dc_interaction_parse(), then for a slash command its name and options
 * become the verb and arguments, for a button or menu its custom_id (or
 * the chosen value) does. Everything read must be terminated within its
 * buffer, ids must be snowflakes, and a command must have a verb; the body
 * is given without a NUL after it, so a read past its end is caught.
 */
#include "fuzz.h"

#include "adapters/discord/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct interaction ia;
	struct command cmd;
	char *body = malloc(size ? size : 1);
	int rc;

	if (!body)
		return 0;
	memcpy(body, data, size);
	rc = dc_interaction_parse(body, size, &ia);
	FUZZ_REQUIRE(rc == GB_OK || rc == GB_EPARSE);
	if (rc == GB_OK && ia.type != IT_PING) {
		FUZZ_REQUIRE(dc_id_ok(ia.id) && dc_id_ok(ia.channel) && dc_id_ok(ia.user));
		FUZZ_REQUIRE(ia.token && ia.token[0] && !strchr(ia.token, ':'));
		FUZZ_TERMINATED(ia.user_name);
		memset(&cmd, 0, sizeof(cmd));
		if (ia.type == IT_COMMAND) {
			dc_command_from_slash(ia.data, &cmd);
		} else if (ia.type == IT_COMPONENT) {
			dc_command_from_component(ia.data, &cmd);
			FUZZ_REQUIRE(cmd.verb[0] != '\0');
		}
		FUZZ_TERMINATED(cmd.verb);
		FUZZ_TERMINATED(cmd.args);
	}
	dc_interaction_release(&ia);
	free(body);
	return 0;
}
