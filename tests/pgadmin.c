/*
 * pgadmin.c - see pgadmin.h.
 */
#include "pgadmin.h"

#include <libpq-fe.h>
#include <stdio.h>

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

int pg_admin(const char *base, const char *sql)
{
	PGconn *c = PQconnectdb(base);
	PGresult *res = NULL;
	int rc = -1;

	PQsetNoticeProcessor(c, quiet, NULL);
	if (PQstatus(c) == CONNECTION_OK) {
		res = PQexec(c, sql);
		rc = PQresultStatus(res) == PGRES_COMMAND_OK ? 0 : -1;
	}
	if (rc)
		fprintf(stderr, "postgresql: %s", PQerrorMessage(c));
	PQclear(res);
	PQfinish(c);
	return rc;
}
