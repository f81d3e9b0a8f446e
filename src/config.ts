import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_SCHEDULE_START_RPS } from './devserver/dynamic-config';
import { TemporalFlowError } from './errors';

/**
 * The only reader of `process.env`. Everything else receives its settings as arguments, so that tests
 * and embedders can pass their own.
 */
export interface TflowEnv {
  /** Explicit path of the Temporal CLI (`TEMPORAL_CLI`). */
  temporalCli: string | undefined;
  /** Address of an existing Temporal server (`TEMPORAL_ADDRESS`); unset means the embedded dev server. */
  temporalAddress: string | undefined;
  /** Namespace (`TEMPORAL_NAMESPACE`). @default 'default' */
  namespace: string;
  /** API key for Temporal Cloud or a secured cluster (`TEMPORAL_API_KEY`). */
  apiKey: string | undefined;
  /** Client certificate and key paths for mTLS (`TEMPORAL_TLS_CERT`, `TEMPORAL_TLS_KEY`). */
  tlsCertPath: string | undefined;
  tlsKeyPath: string | undefined;
  /** Folder of the embedded server's SQLite file, logs and the project-local CLI (`TFLOW_HOME`). @default ./.tflow */
  home: string;
  /** Task queue of pipeline runs (`TFLOW_TASK_QUEUE`). @default 'pipelines' */
  taskQueue: string;
  /** Port of the worker's /metrics and /healthz (`TFLOW_METRICS_PORT`); unset disables them. */
  metricsPort: number | undefined;
  /** PATH, to look for `temporal`. */
  path: string;
  /**
   * Scheduled workflow starts per second the embedded server allows per namespace
   * (`TFLOW_SCHEDULE_START_RPS`; its dynamic config `worker.schedulerNamespaceStartWorkflowRPS`).
   * @default 1000
   */
  scheduleStartRps: number;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): TflowEnv {
  const port = env.TFLOW_METRICS_PORT ? Number(env.TFLOW_METRICS_PORT) : undefined;
  return {
    temporalCli: env.TEMPORAL_CLI || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    apiKey: env.TEMPORAL_API_KEY || undefined,
    tlsCertPath: env.TEMPORAL_TLS_CERT || undefined,
    tlsKeyPath: env.TEMPORAL_TLS_KEY || undefined,
    home: path.resolve(env.TFLOW_HOME || '.tflow'),
    taskQueue: env.TFLOW_TASK_QUEUE || 'pipelines',
    metricsPort: port !== undefined && Number.isInteger(port) && port >= 0 ? port : undefined,
    path: env.PATH ?? '',
    scheduleStartRps: positiveNumber(env, 'TFLOW_SCHEDULE_START_RPS', DEFAULT_SCHEDULE_START_RPS),
  };
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw new TemporalFlowError('INVALID_CONFIG', `${name} must be a number above 0, got "${raw}"`);
  }
  return n;
}

/** What `Connection.connect` and `NativeConnection.connect` need to reach a secured cluster. */
export interface TemporalConnectionOptions {
  address: string;
  apiKey?: string;
  tls?: boolean | { clientCertPair: { crt: Buffer; key: Buffer } };
}

/**
 * Connection options for `address` from the environment: mTLS when TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY
 * name a client certificate and key, an API key (over TLS) when TEMPORAL_API_KEY is set, plain otherwise.
 *
 * @throws TemporalFlowError (`INVALID_CONFIG`) naming the variables when only one of the certificate and the key is set, or a file is unreadable.
 */
export function connectionOptions(env: TflowEnv, address: string): TemporalConnectionOptions {
  if ((env.tlsCertPath === undefined) !== (env.tlsKeyPath === undefined)) {
    throw new TemporalFlowError(
      'INVALID_CONFIG',
      'set both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (client certificate and its key) for mTLS, or neither',
    );
  }
  const mtls =
    env.tlsCertPath && env.tlsKeyPath
      ? { clientCertPair: { crt: readFileSync(env.tlsCertPath), key: readFileSync(env.tlsKeyPath) } }
      : undefined;
  return {
    address,
    ...(env.apiKey ? { apiKey: env.apiKey } : {}),
    ...(mtls ? { tls: mtls } : env.apiKey ? { tls: true } : {}),
  };
}
