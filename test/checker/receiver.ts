/*
 * The checker's webhook receiver: an HTTP server on 127.0.0.1 that the jobs' onMissed and onLate alerts
 * post to. It keeps every delivery with the time it arrived, answers 200, and never fails one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JobAlertEvent } from '../../src/workflows/alert-types';

export interface Delivery {
  at: number;
  event: JobAlertEvent;
}

export class AlertReceiver {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    /** Every alert received, in arrival order. */
    readonly deliveries: Delivery[],
  ) {}

  static async start(): Promise<AlertReceiver> {
    const deliveries: Delivery[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (b: Buffer) => (body += b.toString()));
      req.on('end', () => {
        try {
          deliveries.push({ at: Date.now(), event: JSON.parse(body) as JobAlertEvent });
        } catch {
          // Not an alert: kept out of the deliveries, still answered (the checker reports only alerts).
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new AlertReceiver(server, `http://127.0.0.1:${port}/alerts`, deliveries);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
