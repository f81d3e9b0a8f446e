import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureServerBinaries } from './build-server';
import { CLUSTER_RETENTION_DAYS, DYNAMIC_CONFIG_FILE, REPO_ROOT } from './cluster-versions';
import { freePort, runsAsRoot } from './commands';
import { confirmRetention, ensureNamespace, probeRunsAreVisible, tflowSetup } from './namespace-setup';
import {
  findPostgresBin,
  initPostgres,
  postgresRunning,
  startPostgres,
  stopPostgres,
  type PostgresLayout,
} from './postgres';
import { setupSchemas } from './schema';
import { renderServerConfig, type ServerPorts } from './server-config';
import { startTemporal, stopTemporal, type TemporalLayout } from './temporal-process';

/** Everything needed to reach and to break the cluster; JSON, handed to test files by vitest. */
export interface ClusterLayout {
  postgres: PostgresLayout;
  temporal: TemporalLayout;
  namespace: string;
  /** Logs and config of this run: `<home>/cluster/run/`. */
  runDir: string;
}

export interface ClusterOptions {
  /** The project's `.tflow` folder: binaries are cached in `<home>/cluster/bin/`. */
  home: string;
  namespace: string;
  /** `PG_BIN`, when set. */
  pgBin?: string | undefined;
  /** Called after each phase with its name and duration. */
  onPhase?: (phase: string, ms: number) => void;
  /** Called with what `tflow setup` printed. */
  onSetup?: (output: string) => void;
}

async function timed<T>(opts: ClusterOptions, phase: string, fn: () => Promise<T>): Promise<T> {
  const start = Date.now();
  const value = await fn();
  opts.onPhase?.(phase, Date.now() - start);
  return value;
}

const layoutFile = (runDir: string) => path.join(runDir, 'layout.json');

/**
 * Builds (or reuses) Temporal, starts a PostgreSQL of its own, creates the schemas, starts Temporal on
 * it with SQL visibility, creates the namespace and runs `tflow setup` on it (30 days retention, our
 * search attributes).
 * Stops what a crashed earlier run left behind first. Stop it with {@link stopCluster}.
 */
export async function startCluster(opts: ClusterOptions): Promise<ClusterLayout> {
  const cacheDir = path.join(opts.home, 'cluster');
  const runDir = path.join(cacheDir, 'run');
  if (existsSync(layoutFile(runDir))) {
    await stopCluster(JSON.parse(await readFile(layoutFile(runDir), 'utf8')) as ClusterLayout);
  }
  await rm(runDir, { recursive: true, force: true });
  await mkdir(runDir, { recursive: true });

  const binaries = await timed(opts, 'build', () => ensureServerBinaries(cacheDir));
  const postgres: PostgresLayout = {
    binDir: findPostgresBin(opts.pgBin),
    // A temporary folder: the `postgres` user must reach it wherever the repository lives.
    dir: await mkdtemp(path.join(tmpdir(), 'tflow-cluster-pg-')),
    port: await freePort(),
    osUser: runsAsRoot() ? 'postgres' : undefined,
    user: 'temporal',
    password: 'temporal',
  };
  const ports = await allocatePorts();
  const temporal: TemporalLayout = {
    binary: binaries.server,
    configFile: path.join(runDir, 'temporal.yaml'),
    pidFile: path.join(runDir, 'temporal.pid'),
    logFile: path.join(runDir, 'temporal.log'),
    address: `127.0.0.1:${ports.frontend}`,
  };
  const layout: ClusterLayout = { postgres, temporal, namespace: opts.namespace, runDir };
  await writeFile(layoutFile(runDir), JSON.stringify(layout, null, 2));

  try {
    await timed(opts, 'postgres', async () => {
      await initPostgres(postgres);
      await startPostgres(postgres);
    });
    await timed(opts, 'schema', () => setupSchemas(binaries.sqlTool, binaries.moduleDir, postgres));
    await writeFile(
      temporal.configFile,
      renderServerConfig({
        db: postgres,
        ports,
        dynamicConfigFile: path.join(REPO_ROOT, DYNAMIC_CONFIG_FILE),
      }),
    );
    await timed(opts, 'temporal', () => startTemporal(temporal));
    await timed(opts, 'setup', async () => {
      await ensureNamespace(temporal.address, opts.namespace);
      const printed = await tflowSetup(temporal.address, opts.namespace, CLUSTER_RETENTION_DAYS);
      opts.onSetup?.(printed.trim());
      await confirmRetention(temporal.address, opts.namespace, CLUSTER_RETENTION_DAYS);
      await probeRunsAreVisible(temporal.address, opts.namespace);
    });
  } catch (err) {
    // Nothing half-started stays behind: what did start is stopped, its logs kept.
    await stopCluster(layout).catch(() => undefined);
    throw err;
  }
  return layout;
}

async function allocatePorts(): Promise<ServerPorts> {
  const names: (keyof ServerPorts)[] = [
    'frontend',
    'frontendHttp',
    'frontendMembership',
    'history',
    'historyMembership',
    'matching',
    'matchingMembership',
    'worker',
    'workerMembership',
  ];
  const ports = {} as ServerPorts;
  for (const name of names) ports[name] = await freePort();
  return ports;
}

/** Stops Temporal and PostgreSQL (whoever started them last), keeps their logs in the run folder. */
export async function stopCluster(layout: ClusterLayout): Promise<void> {
  await stopTemporal(layout.temporal, 'SIGTERM');
  if (existsSync(layout.postgres.dir)) {
    if (await postgresRunning(layout.postgres)) await stopPostgres(layout.postgres);
    await copyFile(
      path.join(layout.postgres.dir, 'postgres.log'),
      path.join(layout.runDir, 'postgres.log'),
    ).catch(() => undefined);
    await rm(layout.postgres.dir, { recursive: true, force: true });
  }
  await rm(layoutFile(layout.runDir), { force: true });
}
