/*
 * corpus_seeds.c - seeds for a fuzz target from the corpus files the
 * suites replay (the .json files of tests/data/PLATFORM/, see
 * tests/test_corpus_discord.c).
 *
 *     corpus-seeds OUTDIR FILE...
 *
 * Each step of each file (or the file itself when it has no "steps")
 * becomes one seed in OUTDIR, named "data-FILE-STEP": its "interaction" or
 * "update" object as compact JSON, or its raw "body" text. The strings
 * that stand for what only a run knows ("$ID", "$TOKEN", "$APP",
 * "$BUTTON:cmd") become fixed values of the right shape, so the fuzzer
 * starts from bodies the reader takes. Run by tests/fuzz/run.sh for a
 * target whose name has a folder in tests/data/.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixed value a placeholder stands for here (a new reference), or NULL. */
static json_t *placeholder(const char *s)
{
	char buf[128];

	if (strncmp(s, "$ID", 3) == 0)
		return json_string("1300000000000000123");
	if (strncmp(s, "$TOKEN", 6) == 0)
		return json_string("tok-seed");
	if (strcmp(s, "$APP") == 0)
		return json_string("1000");
	if (strncmp(s, "$BUTTON:", 8) == 0) {
		snprintf(buf, sizeof(buf), "1:0:%.100s", s + 8);
		return json_string(buf);
	}
	return NULL;
}

static void substitute(json_t *v)
{
	const char *key;
	json_t *child, *val;
	size_t i;
	void *tmp;

	if (json_is_object(v)) {
		json_object_foreach_safe(v, tmp, key, child) {
			val = json_is_string(child) ? placeholder(json_string_value(child)) : NULL;
			if (val)
				json_object_set_new(v, key, val);
			else
				substitute(child);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, child) {
			val = json_is_string(child) ? placeholder(json_string_value(child)) : NULL;
			if (val)
				json_array_set_new(v, i, val);
			else
				substitute(child);
		}
	}
}

/* Write one step's input as OUTDIR/data-BASE-K; 0, or -1 when it cannot be written. */
static int write_seed(const char *outdir, const char *base, size_t k, const json_t *step)
{
	json_t *input = json_object_get(step, "interaction");
	char path[1024], *text = NULL;
	FILE *f;
	int rc = 0;

	if (!input)
		input = json_object_get(step, "update");
	if (input) {
		json_t *copy = json_deep_copy(input);

		substitute(copy);
		text = json_dumps(copy, JSON_COMPACT);
		json_decref(copy);
	} else if (json_is_string(json_object_get(step, "body"))) {
		text = strdup(json_string_value(json_object_get(step, "body")));
	}
	if (!text)
		return 0; /* a step with nothing to send */
	snprintf(path, sizeof(path), "%s/data-%s-%zu", outdir, base, k);
	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF)
		rc = -1;
	if (f && fclose(f))
		rc = -1;
	free(text);
	return rc;
}

int main(int argc, char **argv)
{
	int status = 0, seeds = 0;

	if (argc < 2) {
		fputs("usage: corpus-seeds OUTDIR FILE...\n", stderr);
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		json_error_t jerr;
		json_t *doc = json_load_file(argv[i], JSON_ALLOW_NUL, &jerr), *steps, *step;
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		char name[256];
		size_t k;

		if (!doc) {
			fprintf(stderr, "corpus-seeds: %s: %s\n", argv[i], jerr.text);
			status = 1;
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
		steps = json_object_get(doc, "steps");
		if (!json_is_array(steps)) {
			status |= write_seed(argv[1], name, 0, doc) ? 1 : 0;
			seeds++;
		}
		json_array_foreach(steps, k, step) {
			status |= write_seed(argv[1], name, k, step) ? 1 : 0;
			seeds++;
		}
		json_decref(doc);
	}
	if (status)
		fprintf(stderr, "corpus-seeds: some seeds could not be written to %s\n", argv[1]);
	else
		printf("seeds from tests/data: %d\n", seeds);
	return status;
}
