import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../cluster/harness/commands';
import { GO_TOOLCHAIN, REPO_ROOT } from '../cluster/harness/cluster-versions';
import { ensureGoBinaries } from './go-build';
import { waitFor } from './wait-for';

/*
 * A real Jaeger for the tracing test: `cmd/jaeger` (Jaeger v2, on the OpenTelemetry collector) of
 * JAEGER_VERSION, built from the Go module proxy into .tflow/jaeger/ (test/helpers/go-build.ts, as the
 * cluster harness builds the Temporal server), then started as a process the test owns: OTLP/HTTP and
 * the query API (and UI) on free ports of 127.0.0.1, its traces in memory, nothing else listening.
 */

export const JAEGER_VERSION = '1.76.0';
const MODULE = 'github.com/jaegertracing/jaeger';

/** Where the binary is cached: `.tflow/jaeger/bin/v<version>/jaeger`. */
export const JAEGER_CACHE = path.join(REPO_ROOT, '.tflow', 'jaeger');
export const JAEGER_BINARY = path.join(JAEGER_CACHE, 'bin', `v${JAEGER_VERSION}`, 'jaeger');

/** Builds Jaeger when it is not cached; `built` says whether this call compiled it, `ms` how long it took. */
export async function ensureJaeger(
  opts: { timeoutMs?: number } = {},
): Promise<{ path: string; built: boolean; ms: number }> {
  const started = Date.now();
  const built = await ensureGoBinaries({
    module: MODULE,
    version: JAEGER_VERSION,
    toolchain: GO_TOOLCHAIN,
    binaries: [[`${MODULE}/cmd/jaeger`, JAEGER_BINARY]],
    workDir: path.join(JAEGER_CACHE, 'gomod'),
    moduleName: 'tflowjaeger',
    purpose: `the tracing test (to build Jaeger ${JAEGER_VERSION})`,
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
  });
  return { path: JAEGER_BINARY, built, ms: Date.now() - started };
}

/** Whether the binary is cached already (the test then starts in seconds). */
export function jaegerCached(): boolean {
  return existsSync(JAEGER_BINARY);
}

/** A running Jaeger of the test's own. */
export interface JaegerProcess {
  /** Base URL of OTLP/HTTP: spans are posted to `<otlpUrl>/v1/traces`. */
  otlpUrl: string;
  /** Base URL of the query API (`/api/traces/<id>`, `/api/services`) and of the UI (`/trace/<id>`). */
  queryUrl: string;
  /** What the process printed, for a failing test's message. */
  output(): string;
  stop(): Promise<void>;
}

/** Jaeger v2's configuration: memory storage, an OTLP/HTTP receiver, the query extension; nothing else. */
function config(otlpPort: number, queryPort: number, queryGrpcPort: number, healthPort: number): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query, healthcheckv2]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: info
extensions:
  healthcheckv2:
    use_v2: true
    http:
      endpoint: 127.0.0.1:${healthPort}
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${queryPort}
    grpc:
      endpoint: 127.0.0.1:${queryGrpcPort}
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${otlpPort}
processors:
  batch:
    timeout: 200ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}

/** Starts Jaeger and waits until its query API answers. */
export async function startJaeger(binary: string): Promise<JaegerProcess> {
  const dir = await mkdtemp(path.join(tmpdir(), 'tflow-jaeger-'));
  const [otlpPort = 0, queryPort = 0, queryGrpcPort = 0, healthPort = 0] = await distinctPorts(4);
  const file = path.join(dir, 'config.yaml');
  await writeFile(file, config(otlpPort, queryPort, queryGrpcPort, healthPort));
  let out = '';
  const child: ChildProcess = spawn(binary, ['--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  let exited: number | null | undefined;
  const ended = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const queryUrl = `http://127.0.0.1:${queryPort}`;
  const stop = async () => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await ended;
      clearTimeout(killed);
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([
      waitFor(
        'Jaeger to answer on its query API',
        async () => ((await fetch(`${queryUrl}/api/services`)).ok ? true : undefined),
        60_000,
      ),
      ended.then(() => {
        throw new Error(`jaeger exited (${exited}) before it answered:\n${out.slice(-3000)}`);
      }),
    ]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { otlpUrl: `http://127.0.0.1:${otlpPort}`, queryUrl, output: () => out, stop };
}

async function distinctPorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** One span of Jaeger's query API (`/api/traces/<id>`). */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: 'CHILD_OF' | 'FOLLOWS_FROM'; traceID: string; spanID: string }[];
  tags: { key: string; type: string; value: unknown }[];
  processID: string;
}

/** A trace as the query API returns it, or undefined while Jaeger has not got it. */
export async function readTrace(queryUrl: string, traceId: string): Promise<JaegerSpan[] | undefined> {
  const res = await fetch(`${queryUrl}/api/traces/${traceId}`);
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`GET /api/traces/${traceId}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { data?: { spans: JaegerSpan[] }[] };
  return body.data?.[0]?.spans;
}

/** Traces of a service whose spans carry `tags` (the query API's search). */
export async function findTraces(
  queryUrl: string,
  service: string,
  tags: Record<string, string>,
): Promise<JaegerSpan[][]> {
  const q = new URLSearchParams({ service, tags: JSON.stringify(tags), limit: '20', lookback: '1h' });
  const res = await fetch(`${queryUrl}/api/traces?${q.toString()}`);
  if (!res.ok) throw new Error(`GET /api/traces?${q.toString()}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { data?: { spans: JaegerSpan[] }[] };
  return (body.data ?? []).map((t) => t.spans);
}

/** A span's tag value. */
export function tagOf(span: JaegerSpan, key: string): unknown {
  return span.tags.find((t) => t.key === key)?.value;
}
