/*
 * test_console.c - chat transcripts played through the real binary's console
 * chat (`gamebot console --db FILE --seed 1`), one cmocka test per file of
 * tests/data/console (or $GAMEBOT_TRANSCRIPTS, a glob).
 *
 * Transcript format:
 *     # the first comment names the test
 *     args: --admins alice            extra console options (optional, first)
 *     alice: /new ludo                a line typed in the chat
 *     << opened a table               the replies to the line above contain this
 *     !< Only chat admins             ... and do not contain this
 *     <<* wins!                       the whole output contains this somewhere
 *     :wait 50                        let 50 seconds pass (idle autoplay)
 *     nolatin: alice bob              from the next line on, the replies hold no Latin
 *                                     letters except in commands (/roll), card codes
 *                                     (QS, 10H), board points (c3) and these names
 * Replies to a line are everything the console prints after echoing it
 * ("> alice: /new ludo") and before the next echo; the last line's replies
 * run to the end (after computer turns have settled).
 */
#include <fcntl.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/render/render.h"
#include "games/utf8.h"
#include "tests/spawn.h"
#include "tests/fixture.h"

struct check {
	int input;     /* index of the input line it belongs to; -1 = whole output */
	int line;      /* transcript line */
	int negate;
	char *text;
};

struct transcript {
	int nolatin_from;    /* input index from which replies must be free of Latin letters, -1 */
	char nolatin_names[256];
	char *file;
	char name[200];
	char args[256];
	char *input;
	size_t input_len;
	int ninputs;
	struct check *checks;
	int nchecks;
};

static char *slurp(FILE *f)
{
	char *buf = NULL;
	size_t len = 0, got;
	char chunk[8192];

	rewind(f);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf = realloc(buf, len + got + 1);
		assert_non_null(buf);
		memcpy(buf + len, chunk, got);
		len += got;
	}
	if (!buf)
		buf = calloc(1, 1);
	else
		buf[len] = '\0';
	return buf;
}

/* Run the binary on the transcript; returns its stdout (caller frees). */
char *run_console(const char *args, const char *input, size_t input_len, const char *db);

char *run_console(const char *args, const char *input, size_t input_len, const char *db)
{
	const char *bin = getenv("GAMEBOT_BIN");
	char argbuf[256], *argv[32], *p, *save = NULL;
	int argc = 0, status;
	FILE *in = tmpfile(), *out = tmpfile();
	pid_t pid;
	char *res;

	assert_non_null(in);
	assert_non_null(out);
	if (!bin)
		bin = "bin/gamebot";
	argv[argc++] = (char *)bin;
	argv[argc++] = "console";
	argv[argc++] = "--db";
	argv[argc++] = (char *)db;
	argv[argc++] = "--seed";
	argv[argc++] = "1";
	snprintf(argbuf, sizeof(argbuf), "%s", args);
	for (p = strtok_r(argbuf, " ", &save); p && argc < 30; p = strtok_r(NULL, " ", &save))
		argv[argc++] = p;
	argv[argc] = NULL;
	fwrite(input, 1, input_len, in);
	fflush(in);
	rewind(in);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fileno(in), 0);
		dup2(fileno(out), 1);
		execv(bin, argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	res = slurp(out);
	fclose(in);
	fclose(out);
	return res;
}

static int is_latin(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* Is the word w (len bytes) allowed to hold Latin letters? */
static int latin_allowed(const char *w, size_t len, const char *names)
{
	char word[128];
	const char *p;

	if (w[0] == '/')
		return 1;
	if (len >= sizeof(word))
		return 0;
	memcpy(word, w, len);
	word[len] = '\0';
	/* strip punctuation around the word */
	while (len && strchr(".,:;!?)]}\"'", word[len - 1]))
		word[--len] = '\0';
	p = word;
	while (*p && strchr("([{\"'", *p))
		p++;
	/* cards with suit symbols: Q♠ 10♥ */
	if ((p[0] && strchr("JQKA", p[0]) && (strstr(p, "♠") || strstr(p, "♥") || strstr(p, "♦") ||
					       strstr(p, "♣"))) &&
	    !is_latin((unsigned char)p[1]))
		return 1;
	/* card codes: rank then suit letter */
	if ((strlen(p) == 2 && strchr("23456789TJQKA", p[0]) && strchr("SHDC", p[1])) ||
	    (strlen(p) == 3 && p[0] == '1' && p[1] == '0' && strchr("SHDC", p[2])))
		return 1;
	/* a table's seal or seed in hex (64 digits, or a line of 32 on the table): not a word */
	if ((strlen(p) == 32 || strlen(p) == 64) && strspn(p, "0123456789abcdef") == strlen(p))
		return 1;
	/* board points a1..e5 (digits ASCII or Devanagari), and moves b2→c3 */
	if (p[0] >= 'a' && p[0] <= 'e' && (p[1] == '\0' || !is_latin((unsigned char)p[1]))) {
		int ok = 1;

		for (const char *q = p + 1; *q; q++)
			if (is_latin((unsigned char)*q) && !(*q >= 'a' && *q <= 'e'))
				ok = 0;
		if (ok)
			return 1;
	}
	{
		static const char *const post[] = { "को", "ले", "मा", "लाई", "का", "बाट" };
		char key[140];
		size_t l = strlen(p);

		/* a name with its postposition joined, as Nepali writes it: "aliceले" */
		for (size_t i = 0; i < sizeof(post) / sizeof(post[0]); i++)
			if (l > strlen(post[i]) && strcmp(p + l - strlen(post[i]), post[i]) == 0) {
				l -= strlen(post[i]);
				break;
			}
		snprintf(key, sizeof(key), " %.*s ", (int)l, p);
		if (strstr(names, key))
			return 1;
	}
	return 0;
}

/* The first word of text holding a Latin letter that is not allowed, or NULL. */
static const char *latin_offender(const char *text, const char *names, char *out, size_t n)
{
	const char *p = text;
	int after_command = 0;

	while (*p) {
		const char *w;
		size_t len;
		int latin = 0, ascii = 1;

		while (*p == ' ' || *p == '\n' || *p == '\t') {
			if (*p == '\n')
				after_command = 0;
			p++;
		}
		w = p;
		while (*p && *p != ' ' && *p != '\n' && *p != '\t') {
			latin |= is_latin((unsigned char)*p);
			ascii &= (unsigned char)*p < 0x80;
			p++;
		}
		len = (size_t)(p - w);
		/* a command's arguments ("/new snakes") are part of the command */
		if (after_command && ascii) {
			after_command = w[len - 1] != ',' && w[len - 1] != '.';
			continue;
		}
		after_command = 0;
		after_command = w[0] == '/' && w[len - 1] != ',';
		if (latin && !latin_allowed(w, len, names)) {
			snprintf(out, n, "%.*s", (int)len, w);
			return out;
		}
	}
	return NULL;
}

static void play(void **state)
{
	struct transcript *t = *state;
	char dir[64], db[128];
	char *out, **groups;
	int ngroups = 0;

	assert_int_equal(fixture_dir(dir, sizeof(dir), "console"), 0);
	snprintf(db, sizeof(db), "%s/test.db", dir);
	out = run_console(t->args, t->input, t->input_len, db);
	for (int i = 0; i < t->nchecks; i++) {
		struct check *c = &t->checks[i];

		if (c->input < 0 && (strstr(out, c->text) != NULL) == c->negate)
			fail_msg("%s:%d: %s \"%s\" in the whole output", t->file, c->line,
				 c->negate ? "unexpected" : "missing", c->text);
	}
	/*
	 * every line of every table message (lobby, boards, sheets) fits a
	 * phone: 40 columns; and parts of it (board, log, status) stand one
	 * blank line apart, never two
	 */
	{
		bool in_table = false, blank = false;
		int lineno = 0;

		for (char *p = out; *p;) {
			char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);

			lineno++;
			if (len >= 6 && strncmp(p, "┌──", 6) == 0 && len == strlen("┌──"))
				in_table = true;
			else if (strncmp(p, "└──", strlen("└──")) == 0)
				in_table = false;
			else if (in_table && p[0] != '[' && render_widthn(p, len) > RENDER_MAX_COLS)
				fail_msg("%s: output line %d is %d columns wide:\n%.*s", t->file, lineno,
					 render_widthn(p, len), (int)len, p);
			if (in_table && blank && len == 0)
				fail_msg("%s: output line %d is a second blank line in a row", t->file, lineno);
			blank = len == 0;
			p += len + (nl ? 1 : 0);
		}
	}
	/* split the output into one group per echoed input line */
	groups = calloc((size_t)t->ninputs + 1, sizeof(char *));
	assert_non_null(groups);
	for (char *p = out; *p;) {
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);

		if (strncmp(p, "> ", 2) == 0 && ngroups < t->ninputs) {
			groups[ngroups++] = calloc(1, 1);
		} else if (ngroups > 0) {
			char *g = groups[ngroups - 1];
			size_t glen = strlen(g);

			g = realloc(g, glen + len + 1);
			assert_non_null(g);
			memcpy(g + glen, p, len);
			g[glen + len] = '\0';
			groups[ngroups - 1] = g;
		}
		p += len;
	}
	if (ngroups != t->ninputs)
		fail_msg("%s: %d echoed lines for %d inputs\n%s", t->file, ngroups, t->ninputs, out);
	for (int i = t->nolatin_from; i >= 0 && i < ngroups; i++) {
		char bad[128];

		if (latin_offender(groups[i], t->nolatin_names, bad, sizeof(bad)))
			fail_msg("%s: English word \"%s\" in the replies to input %d:\n%s", t->file, bad,
				 i + 1, groups[i]);
	}
	for (int i = 0; i < t->nchecks; i++) {
		struct check *c = &t->checks[i];
		const char *g;
		int found;

		if (c->input < 0)
			continue;
		g = groups[c->input];
		found = strstr(g, c->text) != NULL;

		if (found == c->negate)
			fail_msg("%s:%d: %s \"%s\" in the replies:\n%s", t->file, c->line,
				 c->negate ? "unexpected" : "missing", c->text, g);
	}
	for (int i = 0; i < ngroups; i++)
		free(groups[i]);
	free(groups);
	free(out);
	assert_int_equal(fixture_rm(dir), 0);
}

/*
 * The test's name: "FILE: COMMENT", each cut (60 and 120 bytes at most)
 * between whole characters, so that cmocka prints valid UTF-8 however
 * long a Nepali comment runs.
 */
static void test_name(char *out, size_t n, const char *file, const char *comment)
{
	snprintf(out, n, "%.*s: %.*s", (int)utf8_cut(file, strlen(file), 60), file,
		 (int)utf8_cut(comment, strlen(comment), 120), comment);
}

static int load(const char *file, struct transcript *t)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0;

	if (!f)
		return -1;
	memset(t, 0, sizeof(*t));
	t->nolatin_from = -1;
	t->file = strdup(file);
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		if (line[0] == '#') {
			if (!t->name[0])
				test_name(t->name, sizeof(t->name), strrchr(file, '/') + 1,
					  line + 1 + (line[1] == ' '));
		} else if (strncmp(line, "nolatin:", 8) == 0) {
			t->nolatin_from = t->ninputs;
			snprintf(t->nolatin_names, sizeof(t->nolatin_names), " %s ", line + 8);
		} else if (strncmp(line, "args:", 5) == 0) {
			snprintf(t->args, sizeof(t->args), "%s", line + 5);
		} else if (strncmp(line, "<< ", 3) == 0 || strncmp(line, "!< ", 3) == 0 ||
			   strncmp(line, "<<* ", 4) == 0 || strncmp(line, "!<* ", 4) == 0) {
			struct check *c;
			int whole = line[2] == '*';

			if (!t->ninputs)
				return -1;
			t->checks = realloc(t->checks, sizeof(*c) * (size_t)(t->nchecks + 1));
			c = &t->checks[t->nchecks++];
			c->input = whole ? -1 : t->ninputs - 1;
			c->line = lineno;
			c->negate = line[0] == '!';
			c->text = strdup(line + 3 + whole);
		} else {
			t->input = realloc(t->input, t->input_len + (size_t)len + 2);
			memcpy(t->input + t->input_len, line, (size_t)len);
			t->input_len += (size_t)len;
			t->input[t->input_len++] = '\n';
			t->ninputs++;
		}
	}
	if (!t->name[0])
		snprintf(t->name, sizeof(t->name), "%s", strrchr(file, '/') + 1);
	free(line);
	fclose(f);
	return 0;
}

/* How often needle occurs in hay. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Play input on a fresh database; returns the output (caller frees). */
static char *play_text(const char *args, const char *input)
{
	char dir[64], db[128];
	char *out;

	assert_int_equal(fixture_dir(dir, sizeof(dir), "console"), 0);
	snprintf(db, sizeof(db), "%s/test.db", dir);
	out = run_console(args, input, strlen(input), db);
	assert_int_equal(fixture_rm(dir), 0);
	return out;
}

/*
 * Defect: the virtual clock fired one idle turn per :wait whatever its
 * length. Every timer due within the wait fires: a 100 s wait with 10 s
 * autoplay plays about ten away turns, exactly as ten waits of 10 s do.
 */
static void test_wait_fires_every_due_timer(void **state)
{
	static const char *const head = "alice: /settings autoplay_after 10s\n"
					 "alice: /new snakes\nbob: /join\nalice: /start\n";
	char one[512], ten[1024];
	char *a, *b;
	int na, nb;

	(void)state;
	snprintf(one, sizeof(one), "%s:wait 100\n", head);
	snprintf(ten, sizeof(ten), "%s", head);
	for (int i = 0; i < 10; i++)
		snprintf(ten + strlen(ten), sizeof(ten) - strlen(ten), ":wait 10\n");
	a = play_text("", one);
	b = play_text("", ten);
	na = count_of(a, "was away");
	nb = count_of(b, "was away");
	if (na < 10 || na != nb)
		fail_msg("one wait of 100 s: %d away turns; ten of 10 s: %d", na, nb);
	free(a);
	free(b);
}

/* Control characters and ANSI escapes typed in a name are removed, not shown or sent on. */
static void test_escapes_removed_from_names(void **state)
{
	char *out;

	(void)state;
	out = play_text("", "\x1b[31mbob\x1b[0m\x07: /new ludo\n");
	assert_non_null(strstr(out, "bob opened a table of Ludo"));
	assert_null(strchr(out, '\x1b'));
	assert_null(strchr(out, '\x07'));
	free(out);
}

/* At a table in play, /lang answers first, then shows the board in its language. */
static void test_lang_confirmation_first(void **state)
{
	char *out = play_text("", "alice: /new ludo\nbob: /join\nalice: /start\nalice: /lang ne\nalice: /lang en\n");
	const char *ne = strstr(out, "> alice: /lang ne\n"), *en = strstr(out, "> alice: /lang en\n");

	(void)state;
	assert_non_null(ne);
	assert_non_null(en);
	if (strncmp(ne + strlen("> alice: /lang ne\n"), "अबदेखि", strlen("अबदेखि")) != 0 ||
	    strncmp(en + strlen("> alice: /lang en\n"), "I will speak English", 20) != 0)
		fail_msg("the board came before the confirmation:\n%s", ne);
	free(out);
}

/*
 * A blank line (or blanks alone), a name alone and a :wait with nothing due
 * are silent on purpose (docs/playing.md, "The console chat"): they are not echoed
 * or, when echoed, get nothing after the echo, and the next line is
 * answered as usual.
 */
static void test_silent_lines(void **state)
{
	static const char silent[] = "\n> alice:\n> :wait 0\n> bob: /join\n";
	char *out = play_text("", "alice: /new ludo\n\n   \nalice:\n:wait 0\nbob: /join\n");
	char *plain = play_text("", "alice: /new ludo\nalice:\n:wait 0\nbob: /join\n");
	const char *at = strstr(out, silent);

	(void)state;
	/* the blank lines leave no trace: the output is the one without them */
	assert_string_equal(out, plain);
	if (!at)
		fail_msg("a name alone or \":wait 0\" got an answer:\n%s", out);
	assert_non_null(strstr(at, "bob sits down in seat 2"));
	free(out);
	free(plain);
}

/*
 * Run `gamebot serve` without a platform on lines, given on a pipe
 * (printf ... | make run) or in a file (make run < lines). Returns its
 * output (caller frees); *ended is set when it stopped by itself with
 * status 0 within 60 s.
 */
static char *serve_lines(const char *lines, bool on_pipe, bool *ended)
{
	const char *bin = getenv("GAMEBOT_BIN");
	char dir[64], path[128], log[128], e_db[160], e_listen[64];
	const char *env[] = { e_db, e_listen, "GAMEBOT_CONFIG=/dev/null", "GAMEBOT_TELEGRAM_TOKEN", "TELEGRAM_TOKEN",
			      "GAMEBOT_DISCORD_PUBLIC_KEY", "DISCORD_PUBLIC_KEY", NULL };
	int in, fds[2] = { -1, -1 }, status = 0;
	pid_t pid, done = 0;
	FILE *f;
	char *out;

	if (!bin)
		bin = "bin/gamebot";
	assert_int_equal(fixture_dir(dir, sizeof(dir), "serve-in"), 0);
	snprintf(e_db, sizeof(e_db), "GAMEBOT_DB=%s/g.db", dir);
	snprintf(e_listen, sizeof(e_listen), "GAMEBOT_LISTEN=127.0.0.1:%d", free_port());
	snprintf(log, sizeof(log), "%s/out", dir);
	if (on_pipe) {
		assert_int_equal(pipe(fds), 0);
		fcntl(fds[0], F_SETFD, FD_CLOEXEC);
		fcntl(fds[1], F_SETFD, FD_CLOEXEC);
		in = fds[0];
	} else {
		snprintf(path, sizeof(path), "%s/lines.txt", dir);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(lines, f);
		fclose(f);
		in = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(in >= 0);
	}
	pid = spawn_in(bin, (char *const[]){ (char *)bin, "serve", NULL }, env, in, log, false);
	assert_true(pid > 0);
	close(in);
	if (on_pipe) {
		assert_int_equal(write(fds[1], lines, strlen(lines)), (ssize_t)strlen(lines));
		close(fds[1]);
	}
	/* the end of its input ends it: wait for that, 60 s at most */
	for (int i = 0; i < 1200 && done == 0; i++) {
		struct timespec ts = { 0, 50 * 1000000L };

		done = waitpid(pid, &status, WNOHANG);
		if (done == 0)
			nanosleep(&ts, NULL);
	}
	if (done == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	*ended = done != 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
	f = fopen(log, "r");
	assert_non_null(f);
	out = slurp(f);
	fclose(f);
	assert_int_equal(fixture_rm(dir), 0);
	return out;
}

/*
 * `gamebot serve` without a platform plays the lines on its standard input
 * when that is a pipe (printf ... | make run) or a file (make run < lines):
 * it answers them and stops at their end with status 0, rather than
 * printing nothing and serving until killed. On_pipe picks which.
 */
static void serve_reads_input(bool on_pipe)
{
	bool ended;
	char *out = serve_lines("alice: /new ludo\nalice: /lang ne\n", on_pipe, &ended);

	if (!ended || !strstr(out, "alice opened a table of Ludo") || !strstr(out, "नेपालीमा"))
		fail_msg("serve with its input on a %s: %s, output:\n%s", on_pipe ? "pipe" : "file",
			 ended ? "ended" : "still running after the end of its input", out);
	free(out);
}

/* A file of the source tree (README.md, docs/operators.md), read whole (caller frees). */
static char *source_text(const char *name)
{
	const char *src = getenv("GAMEBOT_SRC");
	char path[1024];
	FILE *f;
	char *text;

	snprintf(path, sizeof(path), "%s/%s", src ? src : ".", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot read %s", path);
	text = slurp(f);
	fclose(f);
	return text;
}

/* The README, read whole (caller frees). */
static char *readme(void)
{
	return source_text("README.md");
}

/* Check what serve printed for the lines of a README example (named by what). */
static void check_example(const char *what, const char *lines, const char *out, bool ended)
{
	int inputs = 0, echoes = count_of(out, "\n> ") + (strncmp(out, "> ", 2) == 0);

	for (const char *p = lines; *p; p++)
		inputs += *p == '\n';
	/* piped, serve is the console: every line echoed and answered, nobody waiting on a computer */
	if (!ended || echoes != inputs || strstr(out, "Not your turn") || strstr(out, "not a command") ||
	    strstr(out, "type lines like"))
		fail_msg("the README's %s, piped to serve (%s, %d of %d lines echoed):\n%s\noutput:\n%s",
			 what, ended ? "ended" : "did not end", echoes, inputs, lines, out);
}

/* Whether the first player of a dice game rolled only sixes (and so still has the turn). */
static bool turn_kept(const char *out)
{
	int rolls = count_of(out, "alice rolled ");

	return rolls > 0 && rolls == count_of(out, "alice rolled 6");
}

/*
 * The README's examples play as written: the lines of "Two commands"
 * (typed at `make run`) and every `printf '...' | make run`, each piped
 * into `gamebot serve` as `make run` does.
 */
static void test_readme_examples_play(void **state)
{
	char *text = readme(), *block, *end, *out;
	int printfs = 0;
	bool ended;

	(void)state;
	/* the block of lines after "`make run` starts" */
	block = strstr(text, "`make run` starts");
	assert_non_null(block);
	block = strstr(block, "\n```\n");
	assert_non_null(block);
	block += 5;
	end = strstr(block, "```");
	assert_non_null(end);
	{
		char *lines = strndup(block, (size_t)(end - block));

		out = serve_lines(lines, true, &ended);
		check_example("first lines", lines, out, ended);
		free(out);
		free(lines);
	}
	/* printf 'LINES' | make run: the lines, with \n as printf reads it */
	for (char *p = strstr(text, "printf '"); p; p = strstr(p + 1, "printf '")) {
		char *q = p + 8, *close = strchr(q, '\''), *lines, *w;

		assert_non_null(close);
		if (strncmp(close, "' | make run", 12) != 0)
			continue;
		lines = calloc(1, (size_t)(close - q) + 1);
		assert_non_null(lines);
		w = lines;
		for (; q < close; q++) {
			if (q[0] == '\\' && q[1] == 'n') {
				*w++ = '\n';
				q++;
			} else {
				*w++ = *q;
			}
		}
		/*
		 * The dice are the table's own: a first player who rolls only
		 * sixes keeps the turn, so the computer has not moved yet. That
		 * example is played again (1 in 36 each time) until her turn
		 * has passed, and then the computer must have rolled.
		 */
		for (int tries = 0;; tries++) {
			out = serve_lines(lines, true, &ended);
			check_example("printf example", lines, out, ended);
			if (!strstr(lines, "/addbot") || !strstr(lines, "/start") || !turn_kept(out) || tries == 5)
				break;
			free(out);
		}
		if (strstr(lines, ":wait") && !strstr(out, "> :wait"))
			fail_msg("the :wait of the README's example was not played:\n%s", out);
		if (strstr(lines, "/addbot") && strstr(lines, "/start") && !strstr(out, "Bot 2 rolled"))
			fail_msg("the computer never moved in the README's example:\n%s", out);
		free(out);
		free(lines);
		printfs++;
	}
	/* the README shows a game against a computer, piped */
	assert_true(printfs >= 1);
	free(text);
}

static void test_serve_console_on_pipe(void **state)
{
	(void)state;
	serve_reads_input(true);
}

static void test_serve_console_on_file(void **state)
{
	(void)state;
	serve_reads_input(false);
}

/* The pages that name settings: each spells a platform key one way only. */
static const char *const setting_pages[] = {
	"README.md", "docs/operators.md", "docs/telegram.md", "docs/discord.md", "docs/security.md",
	"docs/scaling.md", "docs/playing.md",
};

/*
 * The operator's guide's Configuration table (docs/operators.md) has a
 * row for every key of config/gamebot.conf.example, and the README and
 * the docs name each setting one way only (the platform keys without the
 * GAMEBOT_ prefix, as every page writes them).
 */
static void test_readme_settings_table(void **state)
{
	const char *src = getenv("GAMEBOT_SRC");
	char path[1024], line[512];
	char *text = source_text("docs/operators.md");
	FILE *f;
	int keys = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/config/gamebot.conf.example", src ? src : ".");
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char row[300];
		size_t n = strspn(line, "abcdefghijklmnopqrstuvwxyz_");

		if (!n || line[0] == '#' || strncmp(line + n, " =", 2) != 0)
			continue;
		snprintf(row, sizeof(row), "| `%.*s` | `", (int)n, line);
		if (!strstr(text, row))
			fail_msg("the Configuration table of docs/operators.md has no row for %.*s", (int)n, line);
		keys++;
	}
	fclose(f);
	assert_true(keys >= 30);
	free(text);
	for (size_t i = 0; i < sizeof(setting_pages) / sizeof(setting_pages[0]); i++) {
		text = source_text(setting_pages[i]);
		if (strstr(text, "GAMEBOT_TELEGRAM_") || strstr(text, "GAMEBOT_DISCORD_"))
			fail_msg("%s spells a platform key with the GAMEBOT_ prefix as well as without",
				 setting_pages[i]);
		free(text);
	}
}

/* The transcripts loaded, for the test of their names. */
static struct transcript *loaded;
static size_t nloaded;

/*
 * Every transcript's test name is valid UTF-8, its comment cut between
 * whole characters (a Devanagari conjunct with its vowel signs stays
 * whole): cmocka prints these names as they are.
 */
static void test_transcript_names_whole(void **state)
{
	(void)state;
	assert_true(nloaded > 0);
	for (size_t i = 0; i < nloaded; i++) {
		const char *name = loaded[i].name, *colon = strstr(name, ": ");
		FILE *f = fopen(loaded[i].file, "r");
		char first[1024] = "";

		assert_non_null(f);
		if (!fgets(first, sizeof(first), f))
			first[0] = '\0';
		fclose(f);
		first[strcspn(first, "\n")] = '\0';
		if (!utf8_valid(name))
			fail_msg("%s: the test's name is not valid UTF-8: %s", loaded[i].file, name);
		if (colon && first[0] == '#') {
			const char *comment = first + 1 + (first[1] == ' ');
			size_t kept = strlen(colon + 2);

			if (strncmp(comment, colon + 2, kept) != 0 ||
			    utf8_cut(comment, strlen(comment), kept) != kept)
				fail_msg("%s: the test's name is cut inside a character: %s", loaded[i].file, name);
		}
	}
}

/* Run the binary with args (NULL-terminated); *err gets its stderr (caller frees). Returns the exit status. */
static int run_args(char **err, const char *const *args)
{
	const char *bin = getenv("GAMEBOT_BIN");
	char *argv[16];
	int argc = 0, status;
	FILE *e = tmpfile(), *o = tmpfile();
	pid_t pid;

	argv[argc++] = (char *)(bin ? bin : "bin/gamebot");
	for (int i = 0; args[i] && argc < 15; i++)
		argv[argc++] = (char *)args[i];
	argv[argc] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);

		dup2(in, 0);
		dup2(fileno(o), 1);
		dup2(fileno(e), 2);
		execv(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	*err = slurp(e);
	fclose(e);
	fclose(o);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Every verb answers --help; an unknown option is named as such, not as one missing a value. */
static void test_help_and_unknown_options(void **state)
{
	static const char *const verbs[] = { "serve", "console", "script", "arena" };
	char *err;

	(void)state;
	for (size_t i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		const char *args[] = { verbs[i], "--help", NULL };

		if (run_args(&err, args) != 0)
			fail_msg("gamebot %s --help: %s", verbs[i], err);
		free(err);
	}
	{
		const char *args[] = { "console", "--bogus", NULL };

		assert_int_equal(run_args(&err, args), 2);
		assert_non_null(strstr(err, "unknown option '--bogus'"));
		free(err);
	}
	{
		const char *args[] = { "console", "--db", NULL };

		assert_int_equal(run_args(&err, args), 2);
		assert_non_null(strstr(err, "option '--db' needs a value"));
		free(err);
	}
}

int main(void)
{
	const char *src = getenv("GAMEBOT_SRC");
	const char *pat = getenv("GAMEBOT_TRANSCRIPTS");
	char pattern[1024];
	glob_t g;
	/* static: the loaded transcripts live as long as the program (LeakSanitizer sees them) */
	static struct transcript *ts;
	static struct CMUnitTest *tests;
	int rc;

	if (pat)
		snprintf(pattern, sizeof(pattern), "%s", pat);
	else
		snprintf(pattern, sizeof(pattern), "%s/tests/data/console/*.txt", src ? src : ".");
	if (glob(pattern, 0, NULL, &g) != 0) {
		fprintf(stderr, "no transcripts match %s\n", pattern);
		return 1;
	}
	ts = calloc(g.gl_pathc, sizeof(*ts));
	tests = calloc(g.gl_pathc, sizeof(*tests));
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (load(g.gl_pathv[i], &ts[i])) {
			fprintf(stderr, "cannot read transcript %s\n", g.gl_pathv[i]);
			return 1;
		}
		tests[i].name = ts[i].name;
		tests[i].test_func = play;
		tests[i].initial_state = &ts[i];
	}
	loaded = ts;
	nloaded = g.gl_pathc;
	rc = _cmocka_run_group_tests("console transcripts", tests, g.gl_pathc, NULL, NULL);
	{
		const struct CMUnitTest more[] = {
			cmocka_unit_test(test_wait_fires_every_due_timer),
			cmocka_unit_test(test_escapes_removed_from_names),
			cmocka_unit_test(test_help_and_unknown_options),
			cmocka_unit_test(test_silent_lines),
			cmocka_unit_test(test_serve_console_on_pipe),
			cmocka_unit_test(test_serve_console_on_file),
			cmocka_unit_test(test_readme_examples_play),
			cmocka_unit_test(test_transcript_names_whole),
			cmocka_unit_test(test_lang_confirmation_first),
			cmocka_unit_test(test_readme_settings_table),
		};

		rc |= cmocka_run_group_tests_name("console", more, NULL, NULL);
	}
	globfree(&g);
	return rc;
}
