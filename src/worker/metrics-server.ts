import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from '@temporalio/worker';
import { DEFAULT_METRICS_HOST } from '../config';
import type { WorkerMetrics } from './metrics';

export interface MetricsServerOptions {
  metrics: WorkerMetrics;
  /** The worker whose state `/healthz` reports. */
  worker: Pick<Worker, 'getState'>;
  /** @default 9464; 0 picks a free port */
  port?: number;
  /**
   * Address to listen on. The default keeps the endpoints on this machine; give `'0.0.0.0'` (or `'::'`)
   * for a scraper elsewhere, e.g. in a container whose port is published (`TFLOW_METRICS_HOST`).
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * URL of the Temporal SDK's own Prometheus endpoint (`Runtime.install({ telemetryOptions: { metrics:
   * { prometheus: { bindAddress } } } })`), appended to ours so that one scrape gets both.
   */
  sdkMetricsUrl?: string;
}

/** A running `/metrics` + `/healthz` server. */
export interface MetricsServer {
  /** `http://host:port` (on 127.0.0.1 when it listens on every address) */
  url: string;
  /** The address and port it listens on. */
  host: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves Prometheus `/metrics` (ours and, if given, the SDK's) and `/healthz` (200 while the worker is
 * RUNNING, 503 otherwise, with the state as body) for probes and scrapers.
 */
export async function serveMetrics(opts: MetricsServerOptions): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    void handle(opts, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 9464, opts.host ?? DEFAULT_METRICS_HOST, resolve);
  });
  const { address: host, port } = server.address() as AddressInfo;
  const reach = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${reach}:${port}`,
    host,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function handle(
  opts: MetricsServerOptions,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  try {
    if (req.url === '/healthz') {
      const state = opts.worker.getState();
      res.writeHead(state === 'RUNNING' ? 200 : 503, { 'content-type': 'text/plain' }).end(`${state}\n`);
      return;
    }
    if (req.url === '/metrics') {
      let body = await opts.metrics.registry.metrics();
      if (opts.sdkMetricsUrl) {
        const sdk = await fetch(opts.sdkMetricsUrl).then((r) => r.text());
        body = `${body}\n${sdk}`;
      }
      res.writeHead(200, { 'content-type': opts.metrics.registry.contentType }).end(body);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics or /healthz\n');
  } catch (err) {
    res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(err as Error).message}\n`);
  }
}
