/*
 * files.c - the SQLite database's file on disk (store/files.h): the
 * folders made private for it, the file itself made private before SQLite
 * opens it, and the file a name or URI opens.
 */
#include "store/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "store/backend.h"

/*
 * One folder, made 0700 whatever the umask (which may take bits away but
 * leave the owner unable to enter it); a folder already there is left as
 * it is (it may be /tmp or the operator's own).
 */
static int make_dir(const char *dir)
{
	int rc = GB_OK;

	if (mkdir(dir, 0700) == 0)
		rc = chmod(dir, 0700) == 0 ? GB_OK : GB_EIO;
	else if (errno != EEXIST)
		rc = GB_EIO;
	return rc;
}

/*
 * Create the folder that will hold path, with its parents (mkdir -p). The
 * folders are private (0700): the database holds hidden card hands.
 */
int store_make_parent(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = NULL;
	struct stat sb;
	int rc = GB_OK;

	if (!slash || slash == path)
		goto out; /* the current folder or the root */
	dir = strndup(path, (size_t)(slash - path));
	if (!dir) {
		rc = GB_ENOMEM;
		goto out;
	}
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		rc = make_dir(dir);
		if (rc)
			goto out;
		*p = '/';
	}
	rc = make_dir(dir);
	if (rc)
		goto out;
	if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
		rc = GB_EIO;
out:
	free(dir);
	return rc;
}

/*
 * The database file itself, private: made here 0600 whatever the umask
 * before SQLite opens it (SQLite would make it 0644), and SQLite gives its
 * write-ahead log and shared-memory index the file's own mode. The file
 * holds unrevealed seeds, every hand and interaction tokens. A file
 * already there keeps its mode (the operator's choice), but one others
 * may read is named once per process in a warning line.
 */
static atomic_flag wide_warned = ATOMIC_FLAG_INIT;

void store_make_private_file(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) == 0) {
		if (S_ISREG(st.st_mode) && (st.st_mode & 077) && !atomic_flag_test_and_set(&wide_warned)) {
			char message[STORE_WARNING_LEN];

			snprintf(message, sizeof(message),
				 "the database file %.300s is mode %04o: others on this machine may read its "
				 "hands and seeds (chmod 600 it)", path, (unsigned)(st.st_mode & 07777));
			store_warn(message);
		}
	} else if (errno == ENOENT) {
		/* (anything else, SQLite's own open says what is wrong) */
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		/* the umask may have taken the owner's bits; it never adds others'. A
		 * file made meanwhile by another process is that process's to make. */
		if (fd >= 0) {
			(void)fchmod(fd, 0600);
			close(fd);
		}
	}
}

/* The value of hex digit c, or -1. */
static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * The file on disk SQLite opens for name, into out (n bytes); false when
 * it opens none: ":memory:", or a URI ("file:...", which this SQLite
 * reads as one) of an in-memory database (mode=memory, an empty path,
 * ":memory:") or one out cannot hold. A URI's path is decoded as SQLite
 * decodes it (an authority of "" or "localhost", %XX escapes, the query
 * and fragment left off).
 */
bool store_file_of(const char *name, char *out, size_t n)
{
	const char *p = name + 5, *end;
	size_t len = 0;

	if (strcmp(name, ":memory:") == 0)
		return false;
	if (strncmp(name, "file:", 5) != 0) {
		snprintf(out, n, "%s", name);
		return strlen(name) < n;
	}
	end = p + strcspn(p, "?#");
	if (*end == '?') {
		const char *q = end + 1;

		/* mode=memory among the parameters: no file */
		while (*q && *q != '#') {
			if (strncmp(q, "mode=memory", 11) == 0 && (!q[11] || q[11] == '&' || q[11] == '#'))
				return false;
			q += strcspn(q, "&#");
			q += *q == '&';
		}
	}
	if (strncmp(p, "//", 2) == 0) {
		p += 2;
		if (strncmp(p, "localhost/", 10) == 0)
			p += 9;
		else if (*p != '/')
			return false; /* another host: SQLite refuses it */
	}
	for (; p < end && len + 1 < n; p++) {
		int hi = *p == '%' && p + 2 < end ? hex_value(p[1]) : -1;
		int lo = hi >= 0 ? hex_value(p[2]) : -1;

		if (lo >= 0) {
			out[len++] = (char)(hi * 16 + lo);
			p += 2;
		} else {
			out[len++] = *p;
		}
	}
	if (p < end || n == 0)
		return false;
	out[len] = '\0';
	return len > 0 && strcmp(out, ":memory:") != 0;
}
