/*
 * schema.h - each database's schema, one migration per element, applied
 * in order by its backend (store_migrate(), store/backend.h) up to the
 * number of elements, the schema's version. Never edit a migration that
 * has shipped: append a new one to both lists, the same change under the
 * same number.
 */
#ifndef GB_STORE_SCHEMA_H
#define GB_STORE_SCHEMA_H

extern const char *const store_sqlite_migrations[]; /* store/sqlite_schema.c */
extern const int store_sqlite_schema_version;

extern const char *const store_pg_migrations[];     /* store/pg_schema.c */
extern const int store_pg_schema_version;

#endif
