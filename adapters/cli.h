/*
 * cli.h - the gamebot command line as a function: `gamebot COMMAND ...`
 * (serve, console, script, arena, verify, audit, telegram-setup,
 * discord-register). adapters/main.c is nothing but a call to it; a
 * program built with games of its own registers them first
 * (bot_game_register(), bot/render/games.h) and then calls it.
 */
#ifndef GB_ADAPTERS_CLI_H
#define GB_ADAPTERS_CLI_H

/* Run the command argv[1..]; returns the process's exit status. */
int gamebot_main(int argc, char **argv);

#endif
