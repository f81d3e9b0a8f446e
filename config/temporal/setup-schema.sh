#!/bin/sh
# Creates Temporal's two PostgreSQL databases (store and SQL visibility) and brings their schemas to the
# server's version. Safe to re-run: an existing database is kept, a schema is only ever updated.
# Run by docker-compose.yml (service temporal-schema, admin-tools image) and by the cluster harness of
# `npm run test:cluster` (test/cluster/harness/schema.ts).
# Needs temporal-sql-tool on PATH; SQL_HOST, SQL_PORT, SQL_USER, SQL_PASSWORD (read by the tool itself);
# TEMPORAL_SCHEMA_DIR: the server's schema/postgresql/v12 folder.
set -eu
export SQL_PLUGIN=postgres12
: "${TEMPORAL_SCHEMA_DIR:?set TEMPORAL_SCHEMA_DIR to the server's schema/postgresql/v12 folder}"

for pair in temporal=temporal temporal_visibility=visibility; do
  db=${pair%%=*}
  schema=${pair#*=}
  # create-database fails on an existing database; any other failure shows again in setup-schema.
  temporal-sql-tool --db "$db" create-database || echo "database $db: kept as it is"
  temporal-sql-tool --db "$db" setup-schema -v 0.0
  temporal-sql-tool --db "$db" update-schema -d "$TEMPORAL_SCHEMA_DIR/$schema/versioned"
done
