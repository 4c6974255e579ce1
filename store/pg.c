/*
 * pg.c - the PostgreSQL backend of store.h (store_pg_ops): not written
 * yet; opening a postgres:// URL fails with GB_ESTORE.
 */
#include "store/backend.h"

static int pg_open(struct store_backend **out, const char *target)
{
	(void)target;
	if (out)
		*out = NULL;
	return GB_ESTORE;
}

const struct store_ops store_pg_ops = {
	.name = "postgresql",
	.open = pg_open,
};
