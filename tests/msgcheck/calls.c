/*
 * calls.c - calls of the message functions that `make check` compiles to
 * show that the compile-time check of their arguments (MSG_ARGS_OK,
 * bot/lang/i18n.h) refuses what it should (tests/msgcheck/run.sh).
 *
 * With CASE 0 every call is right and the file must compile, so a refusal
 * of the other cases is the check's and not a broken include. Each other
 * CASE holds one wrong call the compiler must refuse: cases 1 to 5 with a
 * -Wformat diagnostic, case 6 (a key it cannot see) with any error.
 */
#include <stdio.h>

#include "bot/internal.h"
#include "bot/render/render_text.h"

void msgcheck_calls(struct ctx *c, const struct render_ctx *rc, struct strbuf *sb, int key);

void msgcheck_calls(struct ctx *c, const struct render_ctx *rc, struct strbuf *sb, int key)
{
	char buf[64];

	(void)c;
	(void)rc;
	(void)sb;
	(void)buf;
	(void)key;
#if CASE == 0
	reply_public(c, M_JOINED, "alice", "1", "4");
	reply_alert(c, M_TABLE_FULL);
	render_tr(rc, sb, M_WINNER, "alice");
	sb_addmsg(sb, LANG_NE, M_CONSOLE_NAME, 24);
	msg_snprintf(buf, sizeof(buf), LANG_EN, M_BOT_NAME, "2");
	msg_fprintf(stdout, LANG_EN, M_LEFT, "alice");
	reply_alert(c, msg_any(key, "%s"), "alice");
	REPLY_EACH_LANG(c, reply_public(c, M_WINNER, "alice"));
#elif CASE == 1 /* an argument short */
	reply_public(c, M_JOINED, "alice", "1");
#elif CASE == 2 /* an argument too many */
	reply_alert(c, M_TABLE_FULL, "alice");
#elif CASE == 3 /* a number for a text */
	render_tr(rc, sb, M_WINNER, 1);
#elif CASE == 4 /* a text for a number */
	sb_addmsg(sb, LANG_NE, M_CONSOLE_NAME, "24");
#elif CASE == 5 /* a key chosen at run time, its arguments not those stated */
	reply_alert(c, msg_any(key, "%s %s"), "alice");
#elif CASE == 6 /* a key chosen at run time passed bare: nothing to check it by */
	reply_alert(c, key, "alice");
#endif
}
