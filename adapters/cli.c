/*
 * cli.c - the gamebot command line: one subcommand per job, what
 * adapters/main.c runs. It sits above every layer (the composition root):
 * bot/ and store/ never include adapters/, only this file and the adapters
 * wire them together. A program that adds games of its own (bot/render/games.h)
 * registers them and then calls gamebot_main() the same way.
 *
 *   gamebot serve               the service: HTTP listener, scheduler, and
 *                               the console chat when no platform token is set
 *   gamebot console [--db PATH] [--admins a,b]   a local group chat on stdin
 *   gamebot script GAME [...]   the rules core driven line by line (JSON out)
 *   gamebot arena GAME --seats LEVEL,...   computer players measured
 *   gamebot verify SEED MOVELOG  a finished table replayed from its revealed seed
 *   gamebot audit [--db PATH]   the coins ledger checked against its rules
 *   gamebot requeue [--db PATH]  replies set aside queued again
 *   gamebot discord-register [--guild ID]  Discord's slash commands registered
 */
#include <curl/curl.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adapters/cli.h"
#include "adapters/console.h"
#include "adapters/discord.h"
#include "adapters/serve.h"
#include "adapters/telegram.h"
#include "bot/tools/arena.h"
#include "bot/tools/audit.h"
#include "bot/tools/requeue.h"
#include "bot/bot.h"
#include "bot/base/config.h"
#include "bot/lang/i18n.h"
#include "bot/base/log.h"
#include "bot/tools/script.h"
#include "bot/tools/verify.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: gamebot COMMAND [ARGS]\n"
		   "  serve                        run the service (console chat without platform tokens)\n"
		   "  console [--db PATH] [--admins a,b] [--lang en|ne] [--seed N]\n"
		   "                               a local group chat: lines like \"alice: /new ludo\"\n"
		   "  script GAME [options]        play one game line by line (JSON out)\n"
		   "  arena GAME --seats L,L[,..] [--games N] [--seed S] [--rule K=V] [--threads T]\n"
		   "                               computer players against each other, measured\n"
		   "  telegram-setup [--url https://HOST/telegram | --polling] [--drop-pending]\n"
		   "                               register the webhook (or polling) and the command menus\n"
		   "  verify SEED MOVELOG          check a finished table's dice and deals from its seed\n"
		   "  audit [--db PATH-or-URL]     check the coins ledger: exit 0 sound, 1 a breach (one line each)\n"
		   "  requeue [--db PATH-or-URL] [--platform NAME] [--within MINUTES]\n"
		   "                               replies set aside (last 60 minutes) queued again\n"
		   "  discord-register [--guild ID] register Discord's slash commands (one guild: at once)\n");
}

/* The store's warnings are log lines like any other. */
static void store_warning(const char *message)
{
	gb_log("%s", message);
}

static int parse_seed(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (*end || v == 0)
		return -1;
	*out = v;
	return 0;
}

static int open_bot(struct bot *b, const struct config *cfg)
{
	int rc;

	memset(b, 0, sizeof(*b));
	serve_bot_config(cfg, &b->cfg);
	rc = store_open(&b->store, cfg->db);
	if (rc)
		gb_log("cannot open the store '%s': %s", cfg->db, gb_strerror(rc));
	return rc;
}

static int cmd_console(int argc, char **argv, struct config *cfg)
{
	struct console_opts o = { .chat = "console", .interactive = isatty(0) };
	struct bot b;
	uint64_t seed = 0;
	int rc;

	o.admins = cfg->console_admins[0] ? cfg->console_admins : NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--db") && strcmp(argv[i], "--admins") && strcmp(argv[i], "--seed") &&
		    strcmp(argv[i], "--lang")) {
			fprintf(stderr, "unknown option '%s'\n", argv[i]);
			return 2;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "option '%s' needs a value\n", argv[i]);
			return 2;
		}
		if (strcmp(argv[i], "--db") == 0)
			snprintf(cfg->db, sizeof(cfg->db), "%s", argv[++i]);
		else if (strcmp(argv[i], "--admins") == 0)
			o.admins = argv[++i];
		else if (strcmp(argv[i], "--seed") == 0 && parse_seed(argv[i + 1], &seed) == 0)
			i++;
		else if (strcmp(argv[i], "--lang") == 0 && lang_parse(argv[i + 1]) >= 0)
			snprintf(cfg->lang, sizeof(cfg->lang), "%s", argv[++i]);
		else {
			fprintf(stderr, "option '%s' does not take '%s'\n", argv[i], argv[i + 1]);
			return 2;
		}
	}
	if (open_bot(&b, cfg))
		return 1;
	b.cfg.seed = seed;
	/* one person types for everyone at a local table: no flood limits */
	b.cfg.rate_user_per_min = 0;
	b.cfg.rate_chat_per_min = 0;
	rc = console_run(&b, &o, stdin, stdout);
	store_free(b.store);
	return rc;
}

int gamebot_main(int argc, char **argv)
{
	struct config cfg;
	char err[512];
	int rc;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (sodium_init() < 0) {
		fprintf(stderr, "gamebot: libsodium failed to initialise\n");
		return 1;
	}
	/* here, before any thread: curl's global set-up is not thread-safe */
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		fprintf(stderr, "gamebot: libcurl failed to initialise\n");
		return 1;
	}
	/* every verb answers --help with its own usage */
	if (argc == 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) &&
	    (!strcmp(argv[1], "serve") || !strcmp(argv[1], "console") || !strcmp(argv[1], "script") ||
	     !strcmp(argv[1], "arena") || !strcmp(argv[1], "telegram-setup") || !strcmp(argv[1], "audit") ||
	     !strcmp(argv[1], "requeue") ||
	     !strcmp(argv[1], "discord-register"))) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "serve") == 0 && argc > 2) {
		fprintf(stderr, "unknown option '%s' (serve takes none: see config/gamebot.conf.example)\n", argv[2]);
		return 2;
	}
	if (strcmp(argv[1], "script") == 0)
		return script_main(argc - 1, argv + 1, stdin, stdout, stderr);
	if (strcmp(argv[1], "arena") == 0)
		return arena_main(argc - 1, argv + 1, stdout, stderr);
	if (strcmp(argv[1], "verify") == 0)
		return verify_main(argc - 1, argv + 1, stdout, stderr);
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "serve") && strcmp(argv[1], "console") && strcmp(argv[1], "telegram-setup") &&
	    strcmp(argv[1], "discord-register") && strcmp(argv[1], "audit") && strcmp(argv[1], "requeue")) {
		fprintf(stderr, "unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	rc = config_load(&cfg, NULL, err, sizeof(err));
	/* before any line is written: even a refused file's secrets stay hidden */
	config_hide_secrets(&cfg);
	store_set_warn(store_warning);
	if (rc) {
		gb_log("%s", err);
		return 2;
	}
	/* serve on piped lines plays them as the console does: one clock, computers at once */
	if (strcmp(argv[1], "console") == 0 || (strcmp(argv[1], "serve") == 0 && console_piped(&cfg)))
		return cmd_console(argc - 1, argv + 1, &cfg);
	if (strcmp(argv[1], "audit") == 0)
		return audit_main(argc - 1, argv + 1, cfg.db, stdout, stderr);
	if (strcmp(argv[1], "requeue") == 0)
		return requeue_main(argc - 1, argv + 1, cfg.db, stdout, stderr);
	if (strcmp(argv[1], "telegram-setup") == 0)
		return telegram_setup_main(argc - 1, argv + 1, &cfg, stdout, stderr);
	if (strcmp(argv[1], "discord-register") == 0)
		return discord_register_main(argc - 1, argv + 1, &cfg, stdout, stderr);
	return serve_main(&cfg);
}
