import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { TemporalFlowError } from '../errors';

/*
 * Temporal's remote codec protocol, as the Web UI and `temporal` CLI (`--codec-endpoint`) speak it:
 * POST <endpoint>/encode and POST <endpoint>/decode, body `{"payloads": [Payload as proto3 JSON]}` (bytes
 * as base64), answer the same shape. The UI sends `X-Namespace` and, when asked to, credentials.
 */

/** Options of {@link serveCodec}. */
export interface CodecServerOptions {
  /**
   * The codec, or a function choosing one by the request's `X-Namespace` header (undefined when absent);
   * returning undefined answers 403 for that namespace.
   */
  codec: PayloadCodec | ((namespace: string | undefined) => PayloadCodec | undefined);
  /** @default 0 (any free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /**
   * Origins allowed to call from a browser (the Temporal UI's address, e.g. `http://localhost:8233`), or
   * `'*'`. @default none: no CORS headers, so only non-browser clients (the CLI) can use it.
   */
  corsOrigins?: readonly string[];
  /** Largest request body accepted. @default 8 MiB */
  maxBodyBytes?: number;
}

/** A running codec server. */
export interface CodecServer {
  /** `http://host:port`: the codec endpoint to give the UI or CLI. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A request body the protocol does not allow. */
class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Starts an HTTP server implementing Temporal's remote codec protocol with `options.codec`. */
export async function serveCodec(options: CodecServerOptions): Promise<CodecServer> {
  const server = createServer((req, res) => {
    void handle(options, req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  }).catch((err: unknown) => {
    throw new TemporalFlowError(
      'CODEC_SERVER_FAILED',
      `cannot listen on port ${options.port ?? 0}: ${String(err)}; choose another port (--port) or stop the process that holds it`,
      {
        cause: err,
      },
    );
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return { url: `http://${host}:${port}`, port, close: () => closeServer(server) };
}

async function handle(options: CodecServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  cors(options, req, res);
  try {
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    const op = path.endsWith('/encode') ? 'encode' : path.endsWith('/decode') ? 'decode' : undefined;
    if (op === undefined) throw new BadRequest(404, 'not found: POST /encode or /decode');
    if (req.method !== 'POST') throw new BadRequest(405, `${req.method ?? ''} not allowed: POST ${path}`);
    const namespace = header(req, 'x-namespace');
    const codec = typeof options.codec === 'function' ? options.codec(namespace) : options.codec;
    if (!codec) throw new BadRequest(403, `no codec for namespace "${namespace ?? ''}"`);
    const payloads = parseBody(await readBody(req, options.maxBodyBytes ?? 8 * 1024 * 1024));
    const out = op === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
    send(res, 200, { payloads: out.map(toJson) });
  } catch (err) {
    if (err instanceof BadRequest) send(res, err.status, { message: err.message });
    else send(res, 400, { message: err instanceof Error ? err.message : String(err) });
  }
}

function cors(options: CodecServerOptions, req: IncomingMessage, res: ServerResponse): void {
  const origin = header(req, 'origin');
  const allowed = options.corsOrigins ?? [];
  if (origin === undefined || !(allowed.includes('*') || allowed.includes(origin))) return;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
  res.setHeader('Access-Control-Allow-Credentials', 'true');
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function readBody(req: IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new BadRequest(413, `request body over ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `{payloads: [{metadata: {k: base64}, data: base64}]}` -> Payloads. */
function parseBody(body: string): Payload[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new BadRequest(400, 'the body is not JSON; send {"payloads": [...]}');
  }
  const list = (json as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(list)) throw new BadRequest(400, 'the body has no "payloads" array');
  return list.map((p: unknown, i) => {
    if (typeof p !== 'object' || p === null) throw new BadRequest(400, `payloads[${i}] is not an object`);
    const { metadata = {}, data } = p as { metadata?: Record<string, unknown>; data?: unknown };
    const meta: Record<string, Uint8Array> = {};
    for (const [k, v] of Object.entries(metadata)) {
      if (typeof v !== 'string') throw new BadRequest(400, `payloads[${i}].metadata.${k} is not base64`);
      meta[k] = Buffer.from(v, 'base64');
    }
    if (data !== undefined && typeof data !== 'string') {
      throw new BadRequest(400, `payloads[${i}].data is not base64`);
    }
    return { metadata: meta, data: Buffer.from(data ?? '', 'base64') };
  });
}

function toJson(p: Payload): { metadata: Record<string, string>; data: string } {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) {
    if (v) metadata[k] = Buffer.from(v).toString('base64');
  }
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
