/*
 * corpus_bodies.c - `corpus_bodies DIR OUT`: every request body the corpus
 * files in DIR post (tests/test_corpus_telegram.c describes the format:
 * each step's "update", as compact JSON, or its raw "body") written to
 * OUT, one file each (NAME-STEP.json), as fuzzing seeds: `make fuzz`
 * starts a target named like a corpus folder (tests/data/telegram) from
 * them. A file of another shape gives no seeds. Exits 1 when DIR cannot
 * be read or a seed cannot be written.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Write len bytes of data to OUT/NAME-STEP.json; false when that failed. */
static bool write_seed(const char *out, const char *name, size_t step, const char *data, size_t len)
{
	char path[1024];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/%.*s-%zu.json", out, (int)(strlen(name) - 5), name, step);
	f = fopen(path, "wb");
	if (!f)
		return false;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

/* The seeds of one corpus file; false when one could not be written. */
static bool file_seeds(const char *dir, const char *name, const char *out)
{
	char path[1024];
	json_error_t jerr;
	json_t *doc, *step;
	size_t i;
	bool ok = true;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	doc = json_load_file(path, JSON_ALLOW_NUL, &jerr);
	json_array_foreach(json_object_get(doc, "steps"), i, step) {
		const json_t *raw = json_object_get(step, "body");
		char *text = NULL;

		if (json_is_string(raw)) {
			ok &= write_seed(out, name, i, json_string_value(raw), json_string_length(raw));
		} else if (json_is_object(json_object_get(step, "update"))) {
			text = json_dumps(json_object_get(step, "update"), JSON_COMPACT);
			ok &= text && write_seed(out, name, i, text, strlen(text));
		}
		free(text);
	}
	json_decref(doc);
	return ok;
}

int main(int argc, char **argv)
{
	struct dirent *e;
	DIR *d;
	int status = 0;

	if (argc != 3) {
		fputs("usage: corpus_bodies DIR OUT\n", stderr);
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		fprintf(stderr, "corpus_bodies: cannot read %s\n", argv[1]);
		return 1;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0 &&
		    !file_seeds(argv[1], e->d_name, argv[2])) {
			fprintf(stderr, "corpus_bodies: seeds of %s not written to %s\n", e->d_name, argv[2]);
			status = 1;
		}
	}
	closedir(d);
	return status;
}
