import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { TemporalFlowError } from '../errors';
import {
  bearerMatches,
  checkAllowedHosts,
  checkCorsOrigins,
  hostNameOf,
  listenNames,
  originGrant,
  tokenProblem,
} from './codec-server-guards';
import { CodecServerOptionsError } from './errors';

/*
 * Temporal's remote codec protocol, as the Web UI and `temporal` CLI (`--codec-endpoint`) speak it:
 * POST <endpoint>/encode and POST <endpoint>/decode, body `{"payloads": [Payload as proto3 JSON]}` (bytes
 * as base64), answer the same shape. The UI sends `X-Namespace` and, when asked to, `Authorization:
 * Bearer <its user's access token>` ("Pass the user access token", to an https endpoint only) or its
 * cookies ("Include cross-origin credentials"); the CLI sends `--codec-auth` as the `Authorization` header.
 *
 * Each request is checked before its body is read (codec-server-guards.ts): its `Host` must be a name the
 * server answers to (a page on another name that DNS rebinding points at 127.0.0.1 gets 403), a browser's
 * `Origin` must be one it was given (403 otherwise; credentials only for an origin named exactly), and with
 * a token or an `authorize` check it must be authorized (401). `/encode` is served only to authenticated
 * callers unless `encode: true`: an encrypted payload proves it was written by a holder of the key, and an
 * open `/encode` lets whoever reaches the server write one.
 */

/** What {@link CodecServerOptions.authorize} is shown of a request. */
export interface CodecRequest {
  /** The `Authorization` header, as sent. */
  authorization: string | undefined;
  /** `X-Namespace`, when sent. */
  namespace: string | undefined;
  /** `Origin`, when a browser sent the request. */
  origin: string | undefined;
  operation: 'encode' | 'decode';
}

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
   * `'*'` for any, which needs a `token` or `authorize` and never allows credentials (cookies). A request
   * from any other origin is refused (403). @default none: browsers are refused, only non-browser clients
   * (the CLI) can use it.
   */
  corsOrigins?: readonly string[];
  /**
   * Names the server answers to besides the address it listens on (and `localhost` on loopback, every
   * address of the machine when it listens on all): a reverse proxy's or a DNS name, as in the `Host`
   * header (its port is not compared). A request naming another host is refused (403).
   */
  allowedHosts?: readonly string[];
  /**
   * Bearer token every `/encode` and `/decode` must carry (`Authorization: Bearer <token>`): at least 16
   * visible ASCII characters. `tflow codec-server` reads it from `TFLOW_CODEC_TOKEN`.
   */
  token?: string;
  /**
   * Your own check of a request, e.g. of the Temporal UI's OIDC access token ("Pass the user access
   * token"); a request is let in when it carries `token` or this returns true.
   */
  authorize?: (request: CodecRequest) => boolean | Promise<boolean>;
  /**
   * Serve `/encode`. @default true with a `token` or `authorize`, false without: an open `/encode` lets
   * anyone who reaches the server forge payloads under the current key.
   */
  encode?: boolean;
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

/** A request the server refuses, with its status. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The options checked once at start, with the names the server answers to. */
interface Guarded extends CodecServerOptions {
  readonly names: Set<string>;
  readonly origins: readonly string[];
  readonly authenticated: boolean;
}

/**
 * Checks the options that decide who may call (see {@link CodecServerOptions}).
 *
 * @throws CodecServerOptionsError for a token too short, a CORS origin that is not one, `*` without a
 * token or `authorize`, or an allowed host that is not a host name.
 */
function checkOptions(options: CodecServerOptions): Omit<Guarded, 'names'> {
  if (options.token !== undefined) {
    const problem = tokenProblem(options.token);
    if (problem) throw new CodecServerOptionsError('token', `the codec server's token ${problem}`);
  }
  const authenticated = options.token !== undefined || options.authorize !== undefined;
  checkAllowedHosts(options.allowedHosts ?? []);
  return { ...options, origins: checkCorsOrigins(options.corsOrigins ?? [], authenticated), authenticated };
}

/**
 * Starts an HTTP server implementing Temporal's remote codec protocol with `options.codec`.
 *
 * @throws CodecServerOptionsError for options that would let callers in it should not (see checkOptions).
 */
export async function serveCodec(options: CodecServerOptions): Promise<CodecServer> {
  // Filled once the server listens (and before it accepts a request): the address it got decides them.
  const names = new Set<string>();
  const guarded: Guarded = { ...checkOptions(options), names };
  const server = createServer((req, res) => {
    void handle(guarded, req, res);
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
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
  for (const name of listenNames(address, host, options.allowedHosts ?? [])) names.add(name);
  const shown = address.includes(':') ? `[${address}]` : address;
  return { url: `http://${shown}:${port}`, port, close: () => closeServer(server) };
}

async function handle(options: Guarded, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const host = header(req, 'host');
    if (host === undefined || !options.names.has(hostNameOf(host))) {
      throw new Refused(
        403,
        `Host "${host ?? ''}" is not a name of this codec server (${[...options.names].join(', ')}): add it with --allowed-host (allowedHosts) if clients reach the server by that name`,
      );
    }
    const origin = header(req, 'origin');
    if (origin !== undefined) cors(options, origin, res);
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '');
    const op = path.endsWith('/encode') ? 'encode' : path.endsWith('/decode') ? 'decode' : undefined;
    if (op === undefined) throw new Refused(404, 'not found: POST /encode or /decode');
    if (req.method !== 'POST') throw new Refused(405, `${req.method ?? ''} not allowed: POST ${path}`);
    const namespace = header(req, 'x-namespace');
    await authorize(options, {
      authorization: header(req, 'authorization'),
      namespace,
      origin,
      operation: op,
    });
    if (op === 'encode' && !(options.encode ?? options.authenticated)) {
      throw new Refused(
        403,
        '/encode is off: without a token anyone who reaches the server could forge payloads under the current key; set TFLOW_CODEC_TOKEN (token), or start with --encode (encode: true)',
      );
    }
    const codec = typeof options.codec === 'function' ? options.codec(namespace) : options.codec;
    if (!codec) throw new Refused(403, `no codec for namespace "${namespace ?? ''}"`);
    const payloads = parseBody(await readBody(req, options.maxBodyBytes ?? 8 * 1024 * 1024));
    const out = op === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
    send(res, 200, { payloads: out.map(toJson) });
  } catch (err) {
    if (err instanceof Refused) send(res, err.status, { message: err.message }, err.headers);
    else send(res, 400, { message: err instanceof Error ? err.message : String(err) });
  }
}

/**
 * The CORS headers for a browser's origin: credentials only for an origin named exactly (never with `*`).
 *
 * @throws Refused (403) for an origin the server was not given.
 */
function cors(options: Guarded, origin: string, res: ServerResponse): void {
  const grant = originGrant(origin, options.origins);
  if (grant === 'refused') {
    throw new Refused(
      403,
      `origin ${origin} may not call this codec server: start it with --cors-origin ${origin} (corsOrigins) if that is the Temporal UI`,
    );
  }
  res.setHeader('Access-Control-Allow-Origin', grant === 'exact' ? origin : '*');
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
  res.setHeader('Access-Control-Max-Age', '600');
  if (grant === 'exact') res.setHeader('Access-Control-Allow-Credentials', 'true');
}

/** @throws Refused (401) when the server needs authentication and the request does not carry it. */
async function authorize(options: Guarded, request: CodecRequest): Promise<void> {
  if (!options.authenticated) return;
  if (options.token !== undefined && bearerMatches(request.authorization, options.token)) return;
  if (options.authorize && (await options.authorize(request))) return;
  throw new Refused(
    401,
    request.authorization === undefined
      ? 'this codec server needs a token: send Authorization: Bearer <token> (temporal --codec-auth "Bearer <token>")'
      : "the Authorization header was refused: send Authorization: Bearer <the server's token>",
    { 'WWW-Authenticate': 'Bearer realm="tflow codec server"' },
  );
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
    if (size > max) throw new Refused(413, `request body over ${max} bytes`);
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
    throw new Refused(400, 'the body is not JSON; send {"payloads": [...]}');
  }
  const list = (json as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(list)) throw new Refused(400, 'the body has no "payloads" array');
  return list.map((p: unknown, i) => {
    if (typeof p !== 'object' || p === null) throw new Refused(400, `payloads[${i}] is not an object`);
    const { metadata = {}, data } = p as { metadata?: Record<string, unknown>; data?: unknown };
    const meta: Record<string, Uint8Array> = {};
    for (const [k, v] of Object.entries(metadata)) {
      if (typeof v !== 'string') throw new Refused(400, `payloads[${i}].metadata.${k} is not base64`);
      meta[k] = Buffer.from(v, 'base64');
    }
    if (data !== undefined && typeof data !== 'string') {
      throw new Refused(400, `payloads[${i}].data is not base64`);
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

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
