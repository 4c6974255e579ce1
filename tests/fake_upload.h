/*
 * fake_upload.h - the request body of a fake platform server
 * (tests/fake_telegram.c, tests/fake_discord.c), gathered across
 * libmicrohttpd's calls of the access handler.
 *
 *     if (fake_upload_step(con_cls, data, data_size, FAKE_MAX_BODY, &up) != FAKE_UPLOAD_DONE)
 *             return up ? MHD_YES : MHD_NO;
 *     ... up->buf (NUL-terminated), up->len, up->too_big ...
 *
 * and fake_upload_done as the daemon's MHD_OPTION_NOTIFY_COMPLETED.
 */
#ifndef GB_FAKE_UPLOAD_H
#define GB_FAKE_UPLOAD_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

struct fake_upload {
	char *buf;              /* the body so far, NUL-terminated; NULL when empty */
	size_t len;
	bool too_big;           /* more than max arrived: the rest was dropped */
};

enum { FAKE_UPLOAD_MORE = 0, FAKE_UPLOAD_DONE = 1 };

/*
 * One call of the access handler: *up gets the connection's upload (NULL
 * when out of memory: answer MHD_NO). FAKE_UPLOAD_DONE when the whole body
 * is in, else FAKE_UPLOAD_MORE (answer MHD_YES and wait for the next call).
 */
int fake_upload_step(void **con_cls, const char *data, size_t *data_size, size_t max,
		     struct fake_upload **up);

/* MHD_OPTION_NOTIFY_COMPLETED: frees the connection's upload. */
void fake_upload_done(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe);

#endif
