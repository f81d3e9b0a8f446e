import path from 'node:path';

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
  };
}
