/*
 * telegram.c - fuzz target: tg_update_parse(), the Telegram Update reader.
 *
 * The input is the webhook body as Telegram would post it (any bytes). The
 * body is handed over in a buffer of exactly its length, with no NUL after
 * it, so a read past the end is caught by ASan. On GB_OK every text field
 * of the result must be terminated within its buffer and the kind one the
 * adapter knows; a command's verb must parse back the same way.
 */
#include "fuzz.h"

#include "adapters/telegram.h"
#include "games/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tg_update u;
	char *body = malloc(size ? size : 1);
	int rc;

	if (!body)
		return 0;
	memcpy(body, data, size);
	rc = tg_update_parse(body, size, "GameBot", 1234, &u);
	FUZZ_REQUIRE(rc == GB_OK || rc == GB_EPARSE);
	if (rc == GB_OK) {
		FUZZ_REQUIRE(u.kind >= TG_IGNORE && u.kind <= TG_ELSEWHERE_PRESS);
		FUZZ_TERMINATED(u.cmd.platform);
		FUZZ_TERMINATED(u.cmd.chat);
		FUZZ_TERMINATED(u.cmd.user);
		FUZZ_TERMINATED(u.cmd.user_name);
		FUZZ_TERMINATED(u.cmd.verb);
		FUZZ_TERMINATED(u.cmd.args);
		FUZZ_TERMINATED(u.cmd.update_id);
		FUZZ_TERMINATED(u.chat_type);
		FUZZ_TERMINATED(u.reply);
		FUZZ_TERMINATED(u.query_id);
		FUZZ_TERMINATED(u.query);
		FUZZ_TERMINATED(u.member_status);
		FUZZ_TERMINATED(u.migrate_to);
		FUZZ_TERMINATED(u.lang);
		if (u.kind == TG_COMMAND || u.kind == TG_CHOSEN)
			FUZZ_REQUIRE(u.cmd.verb[0] != '\0');
	}
	free(body);
	return 0;
}
