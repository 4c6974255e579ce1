/*
 * discord.c - fuzz target: the Discord interaction reader (adapters/discord.c).
 *
 * The input is an interaction body as Discord would post it, after its
 * signature was checked (any bytes). The reader is static in the adapter,
 * so this target compiles the adapter's file itself (the library's copy
 * of it is then not linked). A body is read as the route handler reads
 * it: interaction_parse(), then for a slash command its name and options
 * become the verb and arguments, for a button or menu its custom_id (or
 * the chosen value) does. Everything read must be terminated within its
 * buffer, ids must be snowflakes, and a command must have a verb; the body
 * is given without a NUL after it, so a read past its end is caught.
 *
 * Built only where adapters/discord.c exists (see the Makefile).
 */
#include "fuzz.h"

#include "adapters/discord.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct interaction ia;
	struct command cmd;
	char *body = malloc(size ? size : 1);
	int rc;

	if (!body)
		return 0;
	memcpy(body, data, size);
	rc = interaction_parse(body, size, &ia);
	FUZZ_REQUIRE(rc == GB_OK || rc == GB_EPARSE);
	if (rc == GB_OK && ia.type != IT_PING) {
		FUZZ_REQUIRE(id_ok(ia.id) && id_ok(ia.channel) && id_ok(ia.user));
		FUZZ_REQUIRE(ia.token && ia.token[0] && !strchr(ia.token, ':'));
		FUZZ_TERMINATED(ia.user_name);
		memset(&cmd, 0, sizeof(cmd));
		if (ia.type == IT_COMMAND) {
			command_from_slash(ia.data, &cmd);
		} else if (ia.type == IT_COMPONENT) {
			command_from_component(ia.data, &cmd);
			FUZZ_REQUIRE(cmd.verb[0] != '\0');
		}
		FUZZ_TERMINATED(cmd.verb);
		FUZZ_TERMINATED(cmd.args);
	}
	interaction_release(&ia);
	free(body);
	return 0;
}
