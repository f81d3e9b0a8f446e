import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import {
  loadClientConfigProfile,
  toClientOptions,
  type ClientConfigProfile,
  type ClientConfigTLS,
} from '@temporalio/envconfig';
import type { TLSConfig } from '@temporalio/client';
import type { LogLevel } from '@temporalio/common';
import { InvalidArgumentError } from './errors';
import { AesGcmPayloadCodec } from './codec/aes-gcm-codec';
import { parseCodecKeys } from './codec/keys';
import { tokenProblem } from './codec/codec-server-guards';

/*
 * The only reader of `process.env`. How to reach Temporal comes from `@temporalio/envconfig`: the standard
 * variables (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE,
 * TEMPORAL_CONFIG_FILE, TEMPORAL_GRPC_META_*) and the TOML profiles that the `temporal` CLI and every SDK
 * share. Our own variables (TFLOW_*, TEMPORAL_CLI) cover only what the standard has no name for.
 */

/**
 * Scheduled workflow starts per second the embedded server allows per namespace (its dynamic config,
 * devserver/dynamic-config.ts): high enough that 1,000 jobs due at one instant are not queued behind the
 * server's rate limiter.
 */
export const DEFAULT_SCHEDULE_START_RPS = 1000;

/** The address the worker's `/metrics` and `/healthz` listen on unless `TFLOW_METRICS_HOST` says otherwise: this host only. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

/**
 * A setting that cannot be used: `field` is the variable or file at fault (e.g.
 * `TEMPORAL_TLS_CLIENT_KEY_PATH`), the message says what was wrong and what to set.
 */
export class InvalidConfigError extends InvalidArgumentError {
  static override readonly code: string = 'INVALID_CONFIG';
}

/** Everything temporal-flow reads from the environment. Everything else receives it as arguments. */
export interface TflowEnv {
  /** Explicit path of the Temporal CLI (`TEMPORAL_CLI`). */
  temporalCli: string | undefined;
  /**
   * The Temporal client profile: the TOML profile (`TEMPORAL_PROFILE`, default `default`, from
   * `TEMPORAL_CONFIG_FILE` or the standard file) overridden by the standard TEMPORAL_* variables.
   */
  profile: ClientConfigProfile;
  /** Address of an existing Temporal server (the profile's, e.g. `TEMPORAL_ADDRESS`); unset means the embedded dev server. */
  temporalAddress: string | undefined;
  /** Namespace (the profile's, e.g. `TEMPORAL_NAMESPACE`). @default 'default' */
  namespace: string;
  /** Folder of the embedded server's SQLite file, logs and the project-local CLI (`TFLOW_HOME`). @default ./.tflow */
  home: string;
  /** Task queue of pipeline runs (`TFLOW_TASK_QUEUE`). @default 'pipelines' */
  taskQueue: string;
  /**
   * The alert task queue of the jobs `tflow apply` writes, whose evaluator it starts
   * (`TFLOW_WATCHDOG_TASK_QUEUE`): the `watchdogTaskQueue` your schedulers and alert worker use. Unset:
   * the commands' default, `tflow-watchdog`. Their `--watchdog-task-queue` flag wins over it.
   */
  watchdogTaskQueue: string | undefined;
  /**
   * Port of the worker's /metrics and /healthz (`TFLOW_METRICS_PORT`: 0-65535, 0 picks a free one); unset
   * disables them.
   */
  metricsPort: number | undefined;
  /**
   * Address the worker's /metrics and /healthz listen on (`TFLOW_METRICS_HOST`): `0.0.0.0` (or `::`) for a
   * scraper on another machine or container. @default '127.0.0.1' (this machine only)
   */
  metricsHost: string;
  /**
   * Retention of closed runs that the embedded dev server sets on its namespace at every start
   * (`TFLOW_RETENTION`, e.g. `'30d'`). Servers given by TEMPORAL_ADDRESS are changed only by `tflow setup`.
   * @default '30d'
   */
  retention: string;
  /**
   * Keys of the payload codec (`TFLOW_CODEC_KEYS`): comma-separated `<key id>:<base64 of 32 bytes>`;
   * unset means payloads are not encrypted. See {@link payloadCodecFromEnv}.
   */
  codecKeys: string | undefined;
  /** Id of the codec key that encrypts (`TFLOW_CODEC_KEY_ID`); may be left out with a single key. */
  codecKeyId: string | undefined;
  /**
   * Bearer token `tflow codec-server` requires on /encode and /decode (`TFLOW_CODEC_TOKEN`): at least 16
   * visible ASCII characters. Unset: no token is required, and /encode is off unless `--encode`.
   */
  codecToken: string | undefined;
  /** PATH, to look for `temporal` (and the test suite's browser). */
  path: string;
  /**
   * Chromium or Chrome binary of the test suite's browser test (`CHROMIUM`); unset means one is looked for
   * on PATH, then Debian's package is installed when running as root (test/helpers/chromium.ts).
   */
  chromium: string | undefined;
  /**
   * promtool of the test suite's alert rules test (`PROMTOOL`); unset means one is looked for on PATH, then
   * Debian's `prometheus` package is unpacked into `.tflow/` when running as root (test/helpers/promtool.ts).
   */
  promtool: string | undefined;
  /**
   * Python 3 of the test suite's Python step tests (`PYTHON`); unset means `python3`, then `python`, is
   * looked for on PATH; the tests make a virtual environment from it in `.tflow/python` (test/helpers/python.ts).
   */
  python: string | undefined;
  /**
   * Scheduled workflow starts per second the embedded server allows per namespace
   * (`TFLOW_SCHEDULE_START_RPS`; its dynamic config `worker.schedulerNamespaceStartWorkflowRPS`).
   * @default 1000
   */
  scheduleStartRps: number;
  /**
   * Colors of `tflow`'s output: `never` when NO_COLOR is set (https://no-color.org), `always` when
   * FORCE_COLOR is set to anything but `0` (FORCE_COLOR=0 means `never`), else `auto` (a terminal that is
   * not `TERM=dumb`). NO_COLOR wins over FORCE_COLOR.
   */
  color: 'auto' | 'always' | 'never';
  /**
   * Lowest level the worker logs (`TFLOW_LOG_LEVEL`: trace, debug, info, warn or error, any case), for
   * {@link JsonLinesLogger}. @default 'INFO'
   */
  logLevel: LogLevel;
  /** Where traces go when tracing is on (the standard OTEL_* variables): see {@link readTracingEnv}. */
  tracing: TracingEnv;
}

/** Variables of temporal-flow 0.1 that the standard names replace. */
const RENAMED: Readonly<Record<string, string>> = {
  TEMPORAL_TLS_CERT: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
};

/**
 * Reads the environment (and the Temporal TOML profile it points at).
 *
 * @throws InvalidConfigError for a renamed variable, an unreadable or malformed profile file, or a missing profile.
 */
export function readEnv(env: NodeJS.ProcessEnv = process.env): TflowEnv {
  for (const [old, now] of Object.entries(RENAMED)) {
    if (env[old]) {
      throw new InvalidConfigError(
        old,
        `${old} is no longer read: set ${now} instead (Temporal's standard name)`,
      );
    }
  }
  const profile = loadProfile(env);
  return {
    temporalCli: env.TEMPORAL_CLI || undefined,
    profile,
    temporalAddress: profile.address || undefined,
    namespace: profile.namespace || 'default',
    home: path.resolve(env.TFLOW_HOME || '.tflow'),
    taskQueue: env.TFLOW_TASK_QUEUE || 'pipelines',
    watchdogTaskQueue: env.TFLOW_WATCHDOG_TASK_QUEUE || undefined,
    metricsPort: metricsPort(env.TFLOW_METRICS_PORT),
    metricsHost: env.TFLOW_METRICS_HOST || DEFAULT_METRICS_HOST,
    retention: env.TFLOW_RETENTION || '30d',
    codecKeys: env.TFLOW_CODEC_KEYS || undefined,
    codecKeyId: env.TFLOW_CODEC_KEY_ID || undefined,
    codecToken: codecToken(env.TFLOW_CODEC_TOKEN),
    path: env.PATH ?? '',
    chromium: env.CHROMIUM || undefined,
    promtool: env.PROMTOOL || undefined,
    python: env.PYTHON || undefined,
    scheduleStartRps: positiveNumber(env, 'TFLOW_SCHEDULE_START_RPS', DEFAULT_SCHEDULE_START_RPS),
    color: colorMode(env),
    logLevel: logLevel(env.TFLOW_LOG_LEVEL),
    tracing: readTracingEnv(env),
  };
}

/**
 * The OpenTelemetry settings of a worker or client made with `tracing: true`, from the standard variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/ and
 * https://opentelemetry.io/docs/specs/otel/protocol/exporter/). Tracing itself is turned on in code
 * (`createWorker({ tracing: true })`); these say where its spans go.
 */
export interface TracingEnv {
  /** `OTEL_SDK_DISABLED=true`: no spans are made nor sent, whatever the code asks. */
  disabled: boolean;
  /** `OTEL_TRACES_EXPORTER`: `otlp` (OTLP over HTTP), `console` (stdout) or `none` (spans made, not sent). @default 'otlp' */
  exporter: 'otlp' | 'console' | 'none';
  /**
   * Where OTLP spans are posted: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, else
   * `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`. @default 'http://localhost:4318/v1/traces'
   */
  endpoint: string;
  /** `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`. @default 'http/protobuf' */
  protocol: 'http/protobuf' | 'http/json';
  /** `OTEL_EXPORTER_OTLP_TRACES_HEADERS`, else `OTEL_EXPORTER_OTLP_HEADERS`: `key=value,...`, values URL-encoded. */
  headers: Record<string, string>;
  /** `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`, else `OTEL_EXPORTER_OTLP_TIMEOUT`, in ms. @default 10000 */
  timeoutMs: number;
  /** `OTEL_SERVICE_NAME` (it wins over a `service.name` of OTEL_RESOURCE_ATTRIBUTES). */
  serviceName: string | undefined;
  /** `OTEL_RESOURCE_ATTRIBUTES`: `key=value,...`, values URL-encoded. */
  resourceAttributes: Record<string, string>;
}

const OTLP_DEFAULT_ENDPOINT = 'http://localhost:4318';

/**
 * Reads the standard OTEL_* variables that tracing uses (see {@link TracingEnv}).
 *
 * @throws InvalidConfigError naming the variable: an exporter or protocol temporal-flow does not ship
 * (`grpc`: use `http/protobuf`), an endpoint that is not an http(s) URL, a malformed key=value list.
 */
export function readTracingEnv(env: NodeJS.ProcessEnv = process.env): TracingEnv {
  const pick = (name: string): [string, string] | undefined => {
    const specific = env[`OTEL_EXPORTER_OTLP_TRACES_${name}`];
    if (specific) return [`OTEL_EXPORTER_OTLP_TRACES_${name}`, specific];
    const general = env[`OTEL_EXPORTER_OTLP_${name}`];
    return general ? [`OTEL_EXPORTER_OTLP_${name}`, general] : undefined;
  };
  const exporter = (env.OTEL_TRACES_EXPORTER || 'otlp').trim().toLowerCase();
  if (exporter !== 'otlp' && exporter !== 'console' && exporter !== 'none') {
    throw new InvalidConfigError(
      'OTEL_TRACES_EXPORTER',
      `OTEL_TRACES_EXPORTER must be otlp, console or none (one exporter), got "${env.OTEL_TRACES_EXPORTER}"`,
    );
  }
  const protocolVar = pick('PROTOCOL');
  const protocol = protocolVar?.[1].trim() ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new InvalidConfigError(
      protocolVar![0],
      `${protocolVar![0]} must be http/protobuf or http/json (temporal-flow exports OTLP over HTTP), got "${protocol}"`,
    );
  }
  const specificEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const [endpointVar, endpoint] = specificEndpoint
    ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', specificEndpoint]
    : [
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        `${(env.OTEL_EXPORTER_OTLP_ENDPOINT || OTLP_DEFAULT_ENDPOINT).replace(/\/+$/, '')}/v1/traces`,
      ];
  if (!/^https?:\/\/[^/]/.test(endpoint)) {
    throw new InvalidConfigError(
      endpointVar,
      `${endpointVar} must be an http:// or https:// URL (OTLP over HTTP, e.g. http://localhost:4318), got "${env[endpointVar]}"`,
    );
  }
  const timeoutVar = pick('TIMEOUT');
  const timeoutMs = timeoutVar ? Number(timeoutVar[1]) : 10_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new InvalidConfigError(
      timeoutVar![0],
      `${timeoutVar![0]} must be a number of milliseconds above 0, got "${timeoutVar![1]}"`,
    );
  }
  const headersVar = pick('HEADERS');
  return {
    disabled: (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true',
    exporter,
    endpoint,
    protocol,
    headers: headersVar ? keyValueList(headersVar[0], headersVar[1]) : {},
    timeoutMs,
    serviceName: env.OTEL_SERVICE_NAME || undefined,
    resourceAttributes: env.OTEL_RESOURCE_ATTRIBUTES
      ? keyValueList('OTEL_RESOURCE_ATTRIBUTES', env.OTEL_RESOURCE_ATTRIBUTES)
      : {},
  };
}

/** The W3C-baggage-like `key=value,key2=value2` lists of OTEL_*_HEADERS and OTEL_RESOURCE_ATTRIBUTES. */
function keyValueList(name: string, raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of raw.split(',')) {
    if (item.trim() === '') continue;
    const eq = item.indexOf('=');
    const key = eq > 0 ? item.slice(0, eq).trim() : '';
    if (key === '') {
      throw new InvalidConfigError(
        name,
        `${name} must be a list of key=value pairs separated by commas, got "${raw}"`,
      );
    }
    try {
      out[key] = decodeURIComponent(item.slice(eq + 1).trim());
    } catch (err) {
      throw new InvalidConfigError(name, `${name}: the value of "${key}" is not URL-encoded text`, {
        cause: err,
      });
    }
  }
  return out;
}

function codecToken(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const problem = tokenProblem(raw);
  if (problem) throw new InvalidConfigError('TFLOW_CODEC_TOKEN', `TFLOW_CODEC_TOKEN ${problem}`);
  return raw;
}

function colorMode(env: NodeJS.ProcessEnv): TflowEnv['color'] {
  if (env.NO_COLOR) return 'never';
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR === '0' ? 'never' : 'always';
  return env.TERM === 'dumb' ? 'never' : 'auto';
}

function metricsPort(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const port = /^\d{1,5}$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!(port >= 0 && port <= 65535)) {
    throw new InvalidConfigError(
      'TFLOW_METRICS_PORT',
      `TFLOW_METRICS_PORT must be a port number, 0-65535 (0 picks a free one), or unset to serve no metrics; got "${raw}"`,
    );
  }
  return port;
}

const LOG_LEVELS: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

function logLevel(raw: string | undefined): LogLevel {
  if (raw === undefined || raw === '') return 'INFO';
  const level = LOG_LEVELS.find((l) => l === raw.toUpperCase());
  if (!level) {
    throw new InvalidConfigError(
      'TFLOW_LOG_LEVEL',
      `TFLOW_LOG_LEVEL must be one of ${LOG_LEVELS.map((l) => l.toLowerCase()).join(', ')}, got "${raw}"`,
    );
  }
  return level;
}

function loadProfile(env: NodeJS.ProcessEnv): ClientConfigProfile {
  // envconfig treats an empty variable as set; we treat it as unset, like every other variable here.
  const vars = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== ''),
  );
  const file = vars.TEMPORAL_CONFIG_FILE;
  try {
    return loadClientConfigProfile({ overrideEnvVars: vars });
  } catch (err) {
    const what = file
      ? `the Temporal config file ${file} (TEMPORAL_CONFIG_FILE)`
      : 'the Temporal config file';
    throw new InvalidConfigError(
      file ? 'TEMPORAL_CONFIG_FILE' : 'TEMPORAL_PROFILE',
      `cannot read ${what}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw new InvalidConfigError(name, `${name} must be a number above 0, got "${raw}"`);
  }
  return n;
}

/** What `Connection.connect` and `NativeConnection.connect` need to reach a secured cluster. */
export interface TemporalConnectionOptions {
  address: string;
  apiKey?: string;
  tls?: boolean | TLSConfig;
  metadata?: Record<string, string>;
}

/**
 * Connection options for `address` from the profile: mTLS with the client certificate and key, a server
 * CA or name when given, an API key (over TLS unless TLS is disabled), gRPC metadata; plain otherwise.
 *
 * @throws InvalidConfigError naming the variables when only one of the certificate and the key is set, or a file is unreadable.
 */
export function connectionOptions(env: TflowEnv, address: string): TemporalConnectionOptions {
  const tls = env.profile.tls;
  const hasCert = tls?.clientCert !== undefined;
  if (hasCert !== (tls?.clientKey !== undefined)) {
    throw new InvalidConfigError(
      hasCert ? 'TEMPORAL_TLS_CLIENT_KEY_PATH' : 'TEMPORAL_TLS_CLIENT_CERT_PATH',
      'set both TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (client certificate and its key, or their _DATA forms) for mTLS, or neither',
    );
  }
  let c;
  try {
    ({ connectionOptions: c } = toClientOptions({ ...env.profile, address }));
  } catch (err) {
    // envconfig reads the files with readFileSync: name the setting of the unreadable one.
    if (tls) unreadable(tls, err);
    throw err;
  }
  return {
    address,
    ...(c.apiKey ? { apiKey: c.apiKey } : {}),
    ...(c.tls !== undefined && c.tls !== null ? { tls: definedOnly(c.tls) } : {}),
    ...(env.profile.grpcMeta && Object.keys(env.profile.grpcMeta).length > 0
      ? { metadata: env.profile.grpcMeta }
      : {}),
  };
}

/** The TLS options without the keys envconfig sets to `undefined`, certificates as Buffers. */
function definedOnly(tls: boolean | TLSConfig): boolean | TLSConfig {
  if (typeof tls === 'boolean') return tls;
  const pair = tls.clientCertPair;
  return {
    ...(tls.serverNameOverride !== undefined ? { serverNameOverride: tls.serverNameOverride } : {}),
    ...(tls.serverRootCACertificate !== undefined
      ? { serverRootCACertificate: Buffer.from(tls.serverRootCACertificate) }
      : {}),
    ...(pair ? { clientCertPair: { crt: Buffer.from(pair.crt), key: Buffer.from(pair.key) } } : {}),
  };
}

const TLS_FILES: readonly [keyof ClientConfigTLS, string][] = [
  ['clientCert', 'TEMPORAL_TLS_CLIENT_CERT_PATH'],
  ['clientKey', 'TEMPORAL_TLS_CLIENT_KEY_PATH'],
  ['serverCACert', 'TEMPORAL_TLS_SERVER_CA_CERT_PATH'],
];

/** Throws the InvalidConfigError naming the first TLS file that cannot be read (`err`: envconfig's). */
function unreadable(tls: ClientConfigTLS, err: unknown): void {
  for (const [key, variable] of TLS_FILES) {
    const source = tls[key] as { path?: string } | undefined;
    if (!source?.path) continue;
    try {
      accessSync(source.path, constants.R_OK);
    } catch (fsErr) {
      throw new InvalidConfigError(
        variable,
        `cannot read ${variable} (${source.path}): ${(fsErr as NodeJS.ErrnoException).code ?? (err as Error).message}; check the path and its permissions`,
        { cause: err },
      );
    }
  }
}

/**
 * The payload codec the environment asks for: AES-256-GCM with the keys of TFLOW_CODEC_KEYS, encrypting
 * with TFLOW_CODEC_KEY_ID; undefined when TFLOW_CODEC_KEYS is unset.
 *
 * @throws CodecKeyError naming the variable when a key or the current key id is wrong.
 */
export function payloadCodecFromEnv(env: TflowEnv): AesGcmPayloadCodec | undefined {
  if (env.codecKeys === undefined) return undefined;
  return new AesGcmPayloadCodec({ keyProvider: parseCodecKeys(env.codecKeys, env.codecKeyId) });
}
