import { execFile } from 'node:child_process';
import { createServer } from 'node:net';

/** A command that exited non-zero or could not start; the message carries the tail of its output. */
export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly output: string,
    options?: ErrorOptions,
  ) {
    super(`\`${command}\` failed:\n${output.split('\n').slice(-25).join('\n')}`, options);
    this.name = 'CommandError';
  }
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Run as this system user (through runuser) when we are root. */
  asUser?: string | undefined;
  timeoutMs?: number;
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a command to completion and returns its stdout; throws {@link CommandError} with its output otherwise. */
export async function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<string> {
  const [file, argv] =
    opts.asUser && isRoot() ? ['runuser', ['-u', opts.asUser, '--', cmd, ...args]] : [cmd, args];
  const shown = [cmd, ...args].join(' ');
  return new Promise((resolve, reject) => {
    execFile(
      file,
      argv,
      {
        env: opts.env ?? process.env,
        cwd: opts.cwd,
        maxBuffer: 64 * 1024 * 1024,
        timeout: opts.timeoutMs ?? 0,
      },
      (err, stdout, stderr) => {
        if (err) reject(new CommandError(shown, `${stdout}${stderr}${err.message}`, { cause: err }));
        else resolve(stdout);
      },
    );
  });
}

/** True when this process runs as root, so that PostgreSQL must run as its own system user. */
export function runsAsRoot(): boolean {
  return isRoot();
}

const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/**
 * A TCP port free on 127.0.0.1 right now, below 32768: Temporal stores membership ports in a SQL
 * `smallint` (cluster_membership.rpc_port), and the OS's ephemeral ports lie above that range.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await isFree(port)) return port;
  }
  throw new Error('no free TCP port between 20000 and 32000 on 127.0.0.1');
}
