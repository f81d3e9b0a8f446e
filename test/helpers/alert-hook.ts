import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JobAlertEvent } from '../../src/workflows/alert-types';

/** A local webhook that keeps the alerts posted to it, in arrival order. */
export interface AlertHook {
  /** `http://127.0.0.1:<port>`: give it (with any path) as an alert's webhook URL. */
  readonly url: string;
  /** Every alert accepted so far. */
  readonly received: JobAlertEvent[];
  /** The alerts of one job, of one kind when given. */
  postsOf(jobId: string, kind?: JobAlertEvent['kind']): JobAlertEvent[];
  close(): Promise<void>;
}

/**
 * Starts the webhook. `refuse`, when it returns a status, answers that instead of accepting the post (the
 * alert is then not kept): e.g. a 503 to see a delivery retried.
 */
export function startAlertHook(
  refuse?: (req: IncomingMessage, event: JobAlertEvent) => number | undefined,
): Promise<AlertHook> {
  const received: JobAlertEvent[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const event = JSON.parse(body) as JobAlertEvent;
      const status = refuse?.(req, event);
      if (status !== undefined) {
        res.writeHead(status).end('refused');
        return;
      }
      received.push(event);
      res.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        received,
        postsOf: (jobId, kind) =>
          received.filter((e) => e.jobId === jobId && (kind === undefined || e.kind === kind)),
        close: () => new Promise((done) => server.close(() => done())),
      });
    }),
  );
}
