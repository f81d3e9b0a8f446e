import path from 'node:path';
import { run } from './commands';
import type { PostgresLayout } from './postgres';

/** Databases of the cluster: Temporal's store and its SQL visibility store. */
export const DATABASES = { temporal: 'temporal', visibility: 'temporal_visibility' } as const;

/**
 * Creates both databases and brings their schemas to the version the server ships
 * (`setup-schema -v 0.0`, then `update-schema` over `schema/postgresql/v12/<db>/versioned`), as an
 * operator installing Temporal on PostgreSQL does.
 */
export async function setupSchemas(sqlTool: string, moduleDir: string, db: PostgresLayout): Promise<void> {
  const base = [
    '--plugin',
    'postgres12',
    '--ep',
    '127.0.0.1',
    '-p',
    String(db.port),
    '-u',
    db.user,
    '--pw',
    db.password,
  ];
  for (const [schema, name] of [
    ['temporal', DATABASES.temporal],
    ['visibility', DATABASES.visibility],
  ] as const) {
    const tool = (args: string[]) => run(sqlTool, [...base, '--db', name, ...args], { timeoutMs: 120_000 });
    await tool(['create-database']);
    await tool(['setup-schema', '-v', '0.0']);
    await tool([
      'update-schema',
      '-d',
      path.join(moduleDir, 'schema', 'postgresql', 'v12', schema, 'versioned'),
    ]);
  }
}
