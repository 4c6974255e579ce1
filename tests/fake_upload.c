/*
 * fake_upload.c - see fake_upload.h.
 */
#include "fake_upload.h"

#include <stdlib.h>
#include <string.h>

int fake_upload_step(void **con_cls, const char *data, size_t *data_size, size_t max,
		     struct fake_upload **out)
{
	struct fake_upload *up = *con_cls;

	if (!up) {
		/* the headers are in: the body (if any) comes with the next calls */
		up = calloc(1, sizeof(*up));
		*con_cls = up;
		*out = up;
		return FAKE_UPLOAD_MORE;
	}
	*out = up;
	if (!*data_size)
		return FAKE_UPLOAD_DONE;
	if (up->len + *data_size > max) {
		up->too_big = true;
	} else {
		char *p = realloc(up->buf, up->len + *data_size + 1);

		if (!p) {
			*out = NULL;
			return FAKE_UPLOAD_MORE;
		}
		up->buf = p;
		memcpy(up->buf + up->len, data, *data_size);
		up->len += *data_size;
		up->buf[up->len] = '\0';
	}
	*data_size = 0;
	return FAKE_UPLOAD_MORE;
}

void fake_upload_done(void *cls, struct MHD_Connection *conn, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct fake_upload *up = *con_cls;

	(void)cls;
	(void)conn;
	(void)toe;
	if (up) {
		free(up->buf);
		free(up);
		*con_cls = NULL;
	}
}
