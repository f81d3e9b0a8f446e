import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chown, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run, runsAsRoot } from './commands';

/** Where a PostgreSQL of the harness lives; plain data, so that test files can stop and start it too. */
export interface PostgresLayout {
  /** Folder of initdb, pg_ctl, postgres. */
  binDir: string;
  /** Holds `data/`, `postgres.log` and the password file; owned by {@link PostgresLayout.osUser}. */
  dir: string;
  port: number;
  /** System user that runs the server: `postgres` when we are root (PostgreSQL refuses root), else us. */
  osUser: string | undefined;
  /** Database superuser the Temporal server and SQL tool log in as. */
  user: string;
  password: string;
}

/** Newest /usr/lib/postgresql/<n>/bin (Debian's layout), or `PG_BIN` when set. */
export function findPostgresBin(explicit: string | undefined): string {
  if (explicit) return explicit;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error(
      'the cluster harness needs PostgreSQL (apt-get install postgresql): no /usr/lib/postgresql/<n>/bin/initdb; or set PG_BIN',
    );
  return path.join(root, versions[0]!, 'bin');
}

const pg = (layout: PostgresLayout, tool: string, args: string[]) =>
  run(path.join(layout.binDir, tool), args, { asUser: layout.osUser, timeoutMs: 120_000 });

const dataDir = (layout: PostgresLayout) => path.join(layout.dir, 'data');

/** Creates a fresh cluster in `layout.dir` (initdb) listening on 127.0.0.1:`port` only, password login. */
export async function initPostgres(layout: PostgresLayout): Promise<void> {
  await mkdir(layout.dir, { recursive: true });
  const pwFile = path.join(layout.dir, 'pwfile');
  await writeFile(pwFile, `${layout.password}\n`, { mode: 0o600 });
  if (layout.osUser && runsAsRoot()) {
    const { uid, gid } = await ids(layout.osUser);
    await chown(layout.dir, uid, gid);
    await chown(pwFile, uid, gid);
  }
  await pg(layout, 'initdb', [
    '-D',
    dataDir(layout),
    '-U',
    layout.user,
    `--pwfile=${pwFile}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  // No Unix socket (its folder is the system service's); Temporal's services open many connections.
  await appendFile(
    path.join(dataDir(layout), 'postgresql.conf'),
    [
      '',
      '# temporal-flow cluster harness',
      `port = ${layout.port}`,
      "listen_addresses = '127.0.0.1'",
      "unix_socket_directories = ''",
      'max_connections = 300',
      '',
    ].join('\n'),
  );
}

async function ids(user: string): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', user])).trim());
  const gid = Number((await run('id', ['-g', user])).trim());
  return { uid, gid };
}

/** Starts the server and returns once it accepts connections (`pg_ctl -w`). */
export async function startPostgres(layout: PostgresLayout): Promise<void> {
  await pg(layout, 'pg_ctl', [
    '-D',
    dataDir(layout),
    '-l',
    path.join(layout.dir, 'postgres.log'),
    '-w',
    '-t',
    '60',
    'start',
  ]);
}

/** Stops the server (fast: open connections are cut, as in a failover or a restart by an operator). */
export async function stopPostgres(layout: PostgresLayout): Promise<void> {
  await pg(layout, 'pg_ctl', ['-D', dataDir(layout), '-m', 'fast', '-w', '-t', '60', 'stop']);
}

/** True when a postmaster runs on this data folder. */
export async function postgresRunning(layout: PostgresLayout): Promise<boolean> {
  if (!existsSync(path.join(dataDir(layout), 'postmaster.pid'))) return false;
  return pg(layout, 'pg_ctl', ['-D', dataDir(layout), 'status']).then(
    () => true,
    () => false,
  );
}
