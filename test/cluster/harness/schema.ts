import path from 'node:path';
import { run } from './commands';
import { REPO_ROOT } from './cluster-versions';
import type { PostgresLayout } from './postgres';

/** Databases of the cluster: Temporal's store and its SQL visibility store (config/temporal/setup-schema.sh). */
export const DATABASES = { temporal: 'temporal', visibility: 'temporal_visibility' } as const;

/** The script docker-compose.yml runs too, so that both set the schema up the same way. */
export const SETUP_SCHEMA_SCRIPT = path.join(REPO_ROOT, 'config', 'temporal', 'setup-schema.sh');

/**
 * Creates both databases and brings their schemas to the version the server ships (`setup-schema -v 0.0`,
 * then `update-schema` over `schema/postgresql/v12/<db>/versioned`), as an operator installing Temporal on
 * PostgreSQL does.
 */
export async function setupSchemas(sqlTool: string, moduleDir: string, db: PostgresLayout): Promise<void> {
  await run('sh', [SETUP_SCHEMA_SCRIPT], {
    timeoutMs: 300_000,
    env: {
      ...process.env,
      PATH: `${path.dirname(sqlTool)}${path.delimiter}${process.env.PATH ?? ''}`,
      SQL_HOST: '127.0.0.1',
      SQL_PORT: String(db.port),
      SQL_USER: db.user,
      SQL_PASSWORD: db.password,
      TEMPORAL_SCHEMA_DIR: path.join(moduleDir, 'schema', 'postgresql', 'v12'),
    },
  });
}
