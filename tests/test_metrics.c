/*
 * test_metrics.c - the Prometheus exposition (HELP and TYPE lines,
 * cumulative histogram buckets, label escaping, unknown names refused) and
 * the router's counting: commands by verb and result, latency and
 * transaction histograms, timers fired.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/base/metrics.h"
#include "bot/bot.h"
#include "games/strbuf.h"
#include "tests/fixture.h"

static void test_exposition_format(void **state)
{
	struct strbuf sb = { 0 };
	char esc[64];

	(void)state;
	metrics_reset();
	metrics_inc("gamebot_deliveries_total", "platform=\"telegram\",result=\"ok\"", 2);
	metrics_inc("gamebot_deliveries_total", "platform=\"telegram\",result=\"ok\"", 3);
	metrics_inc("gamebot_no_such_series", NULL, 1);
	metrics_observe("gamebot_command_latency_ms", NULL, 0.3);
	metrics_observe("gamebot_command_latency_ms", NULL, 7);
	metrics_observe("gamebot_command_latency_ms", NULL, 9000);
	metrics_set("gamebot_open_tables", "game=\"ludo\"", 4);
	metrics_render(&sb);
	assert_non_null(strstr(sb_str(&sb), "# HELP gamebot_deliveries_total "));
	assert_non_null(strstr(sb_str(&sb), "# TYPE gamebot_deliveries_total counter\n"));
	assert_non_null(strstr(sb_str(&sb), "gamebot_deliveries_total{platform=\"telegram\",result=\"ok\"} 5\n"));
	assert_null(strstr(sb_str(&sb), "gamebot_no_such_series"));
	assert_non_null(strstr(sb_str(&sb), "# TYPE gamebot_command_latency_ms histogram\n"));
	/* buckets are cumulative: 0.3 in le=0.5; 0.3 and 7 in le=10; the 9 s one only in +Inf */
	assert_non_null(strstr(sb_str(&sb), "gamebot_command_latency_ms_bucket{le=\"0.5\"} 1\n"));
	assert_non_null(strstr(sb_str(&sb), "gamebot_command_latency_ms_bucket{le=\"5\"} 1\n"));
	assert_non_null(strstr(sb_str(&sb), "gamebot_command_latency_ms_bucket{le=\"10\"} 2\n"));
	assert_non_null(strstr(sb_str(&sb), "gamebot_command_latency_ms_bucket{le=\"5000\"} 2\n"));
	assert_non_null(strstr(sb_str(&sb), "gamebot_command_latency_ms_bucket{le=\"+Inf\"} 3\n"));
	assert_non_null(strstr(sb_str(&sb), "gamebot_command_latency_ms_count 3\n"));
	assert_non_null(strstr(sb_str(&sb), "gamebot_command_latency_ms_sum 9007.3\n"));
	assert_non_null(strstr(sb_str(&sb), "gamebot_open_tables{game=\"ludo\"} 4\n"));
	sb_release(&sb);
	assert_string_equal(metrics_label("a\"b\\c\nd", esc, sizeof(esc)), "a\\\"b\\\\c\\nd");
}

static void test_router_counts_commands_and_timers(void **state)
{
	char dir[64], db[128];
	struct bot b;
	struct command c;
	struct store_timer tm;

	(void)state;
	metrics_reset();
	assert_int_equal(fixture_dir(dir, sizeof(dir), "metrics"), 0);
	snprintf(db, sizeof(db), "%s/m.db", dir);
	memset(&b, 0, sizeof(b));
	bot_config_init(&b.cfg);
	b.cfg.seed = 3;
	assert_int_equal(store_open(&b.store, db), GB_OK);
	memset(&c, 0, sizeof(c));
	snprintf(c.platform, sizeof(c.platform), "test");
	snprintf(c.chat, sizeof(c.chat), "m");
	snprintf(c.user, sizeof(c.user), "u");
	c.now_ms = 1000;
	assert_int_equal(command_parse_text(&c, "/watch ludo"), GB_OK);
	assert_int_equal(bot_handle(&b, &c), GB_OK);
	assert_int_equal(command_parse_text(&c, "/nonsense"), GB_OK);
	assert_int_equal(bot_handle(&b, &c), GB_OK);
	snprintf(c.update_id, sizeof(c.update_id), "u1");
	assert_int_equal(command_parse_text(&c, "/help"), GB_OK);
	assert_int_equal(bot_handle(&b, &c), GB_OK);
	assert_int_equal(bot_handle(&b, &c), GB_EDUP);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"watch\",result=\"ok\"") == 1);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"unknown\",result=\"ok\"") == 1);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"help\",result=\"ok\"") == 1);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"help\",result=\"duplicate\"") == 1);
	assert_true(metrics_value("gamebot_command_latency_ms", NULL) == 4);
	assert_true(metrics_value("gamebot_store_transaction_ms", NULL) == 4);
	/* a computer turn, two seconds late */
	assert_int_equal(store_timer_next(b.store, &tm), GB_OK);
	assert_int_equal(bot_run_timers(&b, tm.due_ms + 2000, BOT_TIMER_ALL), 1);
	assert_true(metrics_value("gamebot_timers_fired_total", "kind=\"bot\"") == 1);
	assert_true(metrics_value("gamebot_timers_late_total", "kind=\"bot\"") == 1);
	assert_true(metrics_value("gamebot_commands_total", "verb=\"timer\",result=\"ok\"") == 1);
	store_free(b.store);
	assert_int_equal(fixture_rm(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exposition_format),
		cmocka_unit_test(test_router_counts_commands_and_timers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
