/*
 * test_script.c - plays the text fixtures of the .txt files of tests/data/script through
 * the real binary (`gamebot script`, path in $GAMEBOT_BIN) and checks every
 * answer. One cmocka test per run.
 *
 * Fixture format (one file may hold many runs):
 *     # comment; the first comment line before `args:` names the run
 *     args: snakes --dice 6,3 --rule entry=any     start a run ("..." quotes)
 *     status: 2                                    expected exit status (default 0)
 *     > roll                                       one input line
 *     = did ["roll 6","enter"]                     a path of the last answer equals JSON
 *     = state.positions.0 1                        paths: keys and array indexes
 * Every `=` line refers to the answer to the most recent `>` line.
 * GAMEBOT_FIXTURES=PATTERN plays only the files matching PATTERN.
 */
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "games/utf8.h"

#define MAX_LINES 4096

struct expect {
	int action;          /* index of the answer it checks */
	int line;            /* fixture line, for messages */
	char *path;
	char *value;
};

struct run {
	char *file;
	int line;
	char name[200];
	char *args;
	int status;
	char *input;         /* the `>` lines joined with newlines */
	size_t input_len;
	int nactions;
	struct expect *ex;
	int nex;
};

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	return d;
}

/* Split args on blanks, honouring "double quotes". */
static int split_args(char *s, char **argv, int max)
{
	int n = 0;

	while (*s && n < max - 1) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		if (*s == '"') {
			argv[n++] = ++s;
			while (*s && *s != '"')
				s++;
		} else {
			argv[n++] = s;
			while (*s && *s != ' ')
				s++;
		}
		if (*s)
			*s++ = '\0';
	}
	argv[n] = NULL;
	return n;
}

static json_t *follow(json_t *j, const char *path)
{
	char buf[256], *save = NULL, *seg;

	snprintf(buf, sizeof(buf), "%s", path);
	for (seg = strtok_r(buf, ".", &save); seg && j; seg = strtok_r(NULL, ".", &save)) {
		if (json_is_array(j)) {
			char *end;
			long idx = strtol(seg, &end, 10);

			j = (*end || idx < 0) ? NULL : json_array_get(j, (size_t)idx);
		} else {
			j = json_object_get(j, seg);
		}
	}
	return j;
}

static char *slurp(FILE *f)
{
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	char chunk[4096];

	rewind(f);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (len + got + 1 > cap) {
			cap = (len + got + 1) * 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		memcpy(buf + len, chunk, got);
		len += got;
	}
	if (!buf)
		buf = xstrdup("");
	else
		buf[len] = '\0';
	return buf;
}

static void play_run(void **state)
{
	struct run *r = *state;
	const char *bin = getenv("GAMEBOT_BIN");
	char *argv[64], *args = xstrdup(r->args), *outtext, *save = NULL, *l;
	char **answers = calloc((size_t)r->nactions + 1, sizeof(char *));
	FILE *in = tmpfile(), *out = tmpfile(), *err = tmpfile();
	int argc, wstatus, nans = 0;
	pid_t pid;

	assert_non_null(answers);
	assert_non_null(in);
	assert_non_null(out);
	assert_non_null(err);
	if (!bin)
		bin = "bin/gamebot";
	argv[0] = (char *)bin;
	argv[1] = "script";
	argc = 2 + split_args(args, argv + 2, 60);
	(void)argc;
	if (r->input_len)
		fwrite(r->input, 1, r->input_len, in);
	fflush(in);
	rewind(in);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fileno(in), 0);
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		execv(bin, argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFEXITED(wstatus));
	if (WEXITSTATUS(wstatus) != r->status) {
		char *e = slurp(err);

		fail_msg("%s:%d: exit status %d, expected %d; stderr: %s", r->file, r->line,
			 WEXITSTATUS(wstatus), r->status, e);
	}
	if (r->status != 0) {
		char *e = slurp(err);

		if (!*e)
			fail_msg("%s:%d: exit %d without a message on stderr", r->file, r->line, r->status);
		free(e);
	}
	outtext = slurp(out);
	for (l = strtok_r(outtext, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (nans < r->nactions)
			answers[nans++] = l;
		else
			fail_msg("%s:%d: more answers than actions", r->file, r->line);
	if (nans != r->nactions)
		fail_msg("%s:%d: %d answers for %d actions", r->file, r->line, nans, r->nactions);
	for (int i = 0; i < r->nex; i++) {
		struct expect *e = &r->ex[i];
		json_error_t jerr;
		json_t *ans = json_loads(answers[e->action], 0, &jerr);
		json_t *want = json_loads(e->value, JSON_DECODE_ANY, &jerr);
		json_t *got;

		if (!ans)
			fail_msg("%s:%d: answer is not JSON: %s", r->file, e->line, answers[e->action]);
		if (!want)
			fail_msg("%s:%d: expected value is not JSON: %s", r->file, e->line, e->value);
		got = follow(ans, e->path);
		if (!got || !json_equal(got, want)) {
			char *g = got ? json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

			fail_msg("%s:%d: %s is %s, expected %s\n  answer: %s", r->file, e->line,
				 e->path, g ? g : "(missing)", e->value, answers[e->action]);
		}
		json_decref(ans);
		json_decref(want);
	}
	free(outtext);
	free(answers);
	free(args);
	fclose(in);
	fclose(out);
	fclose(err);
}

static void add_input(struct run *r, const char *text)
{
	size_t len = strlen(text);

	r->input = realloc(r->input, r->input_len + len + 2);
	assert_non_null(r->input);
	memcpy(r->input + r->input_len, text, len);
	r->input_len += len;
	r->input[r->input_len++] = '\n';
	r->input[r->input_len] = '\0';
	r->nactions++;
}

static int load_file(const char *file, struct run **runs, int *nruns)
{
	FILE *f = fopen(file, "r");
	char *line = NULL, comment[160] = "";
	const char *base;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0;
	struct run *cur = NULL;

	if (!f)
		return -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (line[0] == '#') {
			if (!comment[0])
				snprintf(comment, sizeof(comment), "%s", line + 1 + (line[1] == ' '));
		} else if (strncmp(line, "args:", 5) == 0) {
			*runs = realloc(*runs, sizeof(**runs) * (size_t)(*nruns + 1));
			cur = &(*runs)[(*nruns)++];
			memset(cur, 0, sizeof(*cur));
			cur->file = xstrdup(file);
			cur->line = lineno;
			cur->args = xstrdup(line + 5);
			/* each part cut between whole characters: cmocka prints the name as it is */
			base = strrchr(file, '/') + 1;
			snprintf(cur->name, sizeof(cur->name), "%.*s:%d %.*s",
				 (int)utf8_cut(base, strlen(base), 60), base, lineno,
				 (int)utf8_cut(comment, strlen(comment), 90), comment);
			comment[0] = '\0';
		} else if (!cur) {
			continue;
		} else if (strncmp(line, "status:", 7) == 0) {
			cur->status = (int)strtol(line + 7, NULL, 10);
		} else if (strncmp(line, "> ", 2) == 0 || strcmp(line, ">") == 0) {
			add_input(cur, line[1] ? line + 2 : "");
		} else if (strncmp(line, "= ", 2) == 0) {
			char *path = line + 2, *sp = strchr(path, ' ');
			struct expect *e;

			if (!sp || cur->nactions == 0) {
				fprintf(stderr, "%s:%d: bad expectation\n", file, lineno);
				fclose(f);
				free(line);
				return -1;
			}
			*sp = '\0';
			cur->ex = realloc(cur->ex, sizeof(*cur->ex) * (size_t)(cur->nex + 1));
			e = &cur->ex[cur->nex++];
			e->action = cur->nactions - 1;
			e->line = lineno;
			e->path = xstrdup(path);
			e->value = xstrdup(sp + 1);
		} else if (line[0]) {
			fprintf(stderr, "%s:%d: unreadable fixture line\n", file, lineno);
			fclose(f);
			free(line);
			return -1;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

/*
 * More forced dice than any fixed buffer would hold are all used, in order:
 * 4,999 ones then a six, and the 5,000th roll is the six.
 */
static void test_many_dice(void **state)
{
	const char *bin = getenv("GAMEBOT_BIN");
	enum { NDICE = 5000 };
	char *dice = malloc(NDICE * 2 + 1), *outtext, *last = NULL, *save = NULL, *l;
	char *argv[] = { NULL, "script", "snakes", "--dice", dice, NULL };
	FILE *in = tmpfile(), *out = tmpfile(), *err = tmpfile();
	int wstatus, n = 0;
	pid_t pid;

	(void)state;
	assert_non_null(dice);
	argv[0] = (char *)(bin ? bin : "bin/gamebot");
	for (int i = 0; i < NDICE; i++) {
		dice[2 * i] = i == NDICE - 1 ? '6' : '1';
		dice[2 * i + 1] = i == NDICE - 1 ? '\0' : ',';
		fputs("roll\n", in);
	}
	fflush(in);
	rewind(in);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fileno(in), 0);
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		execv(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	assert_true(WIFEXITED(wstatus));
	assert_int_equal(WEXITSTATUS(wstatus), 0);
	outtext = slurp(out);
	for (l = strtok_r(outtext, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		last = l;
		n++;
	}
	assert_int_equal(n, NDICE);
	assert_non_null(last);
	assert_non_null(strstr(last, "\"roll 6\""));
	free(outtext);
	free(dice);
	fclose(in);
	fclose(out);
	fclose(err);
}

int main(void)
{
	const char *src = getenv("GAMEBOT_SRC");
	char pattern[1024];
	glob_t g;
	static struct run *runs; /* lives as long as the program */
	int nruns = 0, rc;
	static struct CMUnitTest *tests;

	if (getenv("GAMEBOT_FIXTURES"))
		snprintf(pattern, sizeof(pattern), "%s", getenv("GAMEBOT_FIXTURES"));
	else
		snprintf(pattern, sizeof(pattern), "%s/tests/data/script/*.txt", src ? src : ".");
	if (glob(pattern, 0, NULL, &g) != 0) {
		fprintf(stderr, "no fixtures match %s\n", pattern);
		return 1;
	}
	for (size_t i = 0; i < g.gl_pathc; i++)
		if (load_file(g.gl_pathv[i], &runs, &nruns)) {
			fprintf(stderr, "cannot load %s\n", g.gl_pathv[i]);
			return 1;
		}
	tests = calloc((size_t)nruns, sizeof(*tests));
	for (int i = 0; i < nruns; i++) {
		tests[i].name = runs[i].name;
		tests[i].test_func = play_run;
		tests[i].initial_state = &runs[i];
	}
	rc = _cmocka_run_group_tests("script fixtures", tests, (size_t)nruns, NULL, NULL);
	{
		const struct CMUnitTest more[] = { cmocka_unit_test(test_many_dice) };

		rc |= cmocka_run_group_tests_name("script options", more, NULL, NULL);
	}
	free(tests);
	globfree(&g);
	return rc;
}
