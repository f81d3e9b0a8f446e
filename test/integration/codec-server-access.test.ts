import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, codecDataConverter, serveCodec, type CodecRequest } from '../../src/codec';
import { readEnv } from '../../src/config';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * Who may call `tflow codec-server`, against the real process: a page on another host name (DNS
 * rebinding onto 127.0.0.1) and a browser origin it was not given are refused before any payload is read;
 * with TFLOW_CODEC_TOKEN every call needs the bearer token (the Temporal CLI passes it with --codec-auth),
 * a preflight does not; `*` never comes with credentials, and not at all without a token; /encode is
 * served only with the token unless --encode.
 */
const key = randomBytes(32);
const KEYS = `k1:${key.toString('base64')}`;
const TOKEN = randomBytes(24).toString('hex');
const MARKER = `PLAINTEXT-${randomBytes(6).toString('hex')}`;
const UI = 'http://localhost:8233';
const execFileP = promisify(execFile);
const cli = inject('temporalCli') || readEnv().temporalCli;

function tflowEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TFLOW_CODEC_KEYS: KEYS, ...extra };
  if (!('TFLOW_CODEC_TOKEN' in extra)) delete env.TFLOW_CODEC_TOKEN;
  return env;
}

const children: ChildProcess[] = [];

/** Starts `tflow codec-server --port 0 ...args`; resolves with its URL and what it printed at start. */
async function startServer(args: string[], env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'codec-server', '--port', '0', ...args],
    { env: tflowEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const url = await waitFor(
    'the codec server address',
    async () => /Codec server: (\S+)/.exec(out)?.[1],
    60_000,
  );
  await waitFor('the start lines', async () => (out.includes('Press Ctrl-C') ? true : undefined));
  return { url: new URL(url), out };
}

/** Runs `tflow codec-server` expecting it to refuse to start. */
async function refusedStart(args: string[], env: Record<string, string> = {}) {
  try {
    await execFileP(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'codec-server', '--port', '0', ...args],
      { env: tflowEnv(env), timeout: 60_000 },
    );
    return { code: 0, stderr: '' };
  } catch (err) {
    const e = err as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly these headers (Host included: fetch would not let a test set it). */
function call(url: URL, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path, headers: { Host: url.host, ...headers } },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A payload of MARKER, encrypted with the key, in the protocol's JSON. */
async function encryptedBody(): Promise<string> {
  const [p] = await new AesGcmPayloadCodec({ keys: { k1: key } }).encode([
    defaultPayloadConverter.toPayload(MARKER),
  ]);
  const b64 = (v: Uint8Array | null | undefined) => Buffer.from(v ?? []).toString('base64');
  return JSON.stringify({
    payloads: [
      {
        metadata: Object.fromEntries(Object.entries(p!.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
        data: b64(p!.data),
      },
    ],
  });
}

const plainBody = () => {
  const p = defaultPayloadConverter.toPayload(MARKER);
  return JSON.stringify({
    payloads: [
      {
        metadata: { encoding: Buffer.from(p.metadata!.encoding!).toString('base64') },
        data: Buffer.from(p.data!).toString('base64'),
      },
    ],
  });
};

const decodedMarker = (a: Answer) => {
  const data = (JSON.parse(a.body) as { payloads: { data: string }[] }).payloads[0]!.data;
  return Buffer.from(data, 'base64').toString('utf8');
};

const json = { 'Content-Type': 'application/json' };
const bearer = (token: string) => ({ ...json, Authorization: `Bearer ${token}` });

let t: TestContext;
beforeAll(async () => {
  t = await connectTest('codec-access');
});
afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await t?.close();
});

describe('tflow codec-server with TFLOW_CODEC_TOKEN', () => {
  let url: URL;
  let out: string;
  beforeAll(async () => {
    ({ url, out } = await startServer(['--cors-origin', UI, '--allowed-host', 'codec.internal'], {
      TFLOW_CODEC_TOKEN: TOKEN,
    }));
  });

  it('says at start that a token is required and /encode is on with it', () => {
    expect(out).toContain('Token: required (TFLOW_CODEC_TOKEN)');
    expect(out).toContain('/encode: on, with the token.');
    expect(out).not.toContain(TOKEN);
  });

  it('answers 401 without the token or with a wrong one, and decodes with it', async () => {
    const body = await encryptedBody();
    const none = await call(url, 'POST', '/decode', json, body);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="tflow codec server"');
    expect(JSON.parse(none.body)).toEqual({
      message:
        'this codec server needs a token: send Authorization: Bearer <token> (temporal --codec-auth "Bearer <token>")',
    });
    const wrong = await call(
      url,
      'POST',
      '/decode',
      bearer(`${TOKEN.slice(0, -1)}${TOKEN.endsWith('0') ? '1' : '0'}`),
      body,
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body).not.toContain(MARKER);
    const basic = await call(url, 'POST', '/decode', { ...json, Authorization: `Basic ${TOKEN}` }, body);
    expect(basic.status).toBe(401);
    const ok = await call(url, 'POST', '/decode', bearer(TOKEN), body);
    expect(ok.status).toBe(200);
    expect(decodedMarker(ok)).toBe(JSON.stringify(MARKER));
  });

  it('encodes only with the token', async () => {
    expect((await call(url, 'POST', '/encode', json, plainBody())).status).toBe(401);
    const ok = await call(url, 'POST', '/encode', bearer(TOKEN), plainBody());
    expect(ok.status).toBe(200);
    expect(ok.body).not.toContain(Buffer.from(JSON.stringify(MARKER)).toString('base64'));
  });

  it('refuses a Host that is not one of its names (DNS rebinding), even with the token', async () => {
    const body = await encryptedBody();
    const rebound = await call(
      url,
      'POST',
      '/decode',
      { ...bearer(TOKEN), Host: `attacker.example:${url.port}` },
      body,
    );
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({
      message: expect.stringContaining(
        `Host "attacker.example:${url.port}" is not a name of this codec server (`,
      ) as string,
    });
    expect(rebound.body).not.toContain(MARKER);
    expect(rebound.headers['access-control-allow-origin']).toBeUndefined();
    for (const host of [`localhost:${url.port}`, `codec.internal:${url.port}`, `CODEC.internal`]) {
      const named = await call(url, 'POST', '/decode', { ...bearer(TOKEN), Host: host }, body);
      expect(named.status, host).toBe(200);
    }
  });

  it('refuses a browser origin it was not given, preflight or not; lets the UI preflight without the token', async () => {
    const body = await encryptedBody();
    const foreign = await call(
      url,
      'POST',
      '/decode',
      { ...bearer(TOKEN), Origin: 'http://evil.example' },
      body,
    );
    expect(foreign.status).toBe(403);
    expect(foreign.body).not.toContain(MARKER);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const preflightFrom = (origin: string) =>
      call(url, 'OPTIONS', '/decode', {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,content-type,x-namespace',
      });
    const evil = await preflightFrom('http://evil.example');
    expect(evil.status).toBe(403);
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const ui = await preflightFrom(UI);
    expect(ui.status).toBe(204);
    expect(ui.headers['access-control-allow-origin']).toBe(UI);
    expect(ui.headers['access-control-allow-credentials']).toBe('true');
    expect(ui.headers['access-control-allow-headers']).toContain('Authorization');
    // The UI's own call: its origin, the token it passes.
    const fromUi = await call(
      url,
      'POST',
      '/decode',
      { ...bearer(TOKEN), Origin: UI, 'X-Namespace': 'default' },
      body,
    );
    expect(fromUi.status).toBe(200);
    expect(fromUi.headers['access-control-allow-origin']).toBe(UI);
    const fromUiNoToken = await call(url, 'POST', '/decode', { ...json, Origin: UI }, body);
    expect(fromUiNoToken.status).toBe(401);
    // CORS headers on the refusal, so that the UI can tell a missing token from a network error.
    expect(fromUiNoToken.headers['access-control-allow-origin']).toBe(UI);
  });

  it('decodes for `temporal workflow show --codec-auth "Bearer <token>"`, not without it', async () => {
    const codecClient = new Client({
      connection: t.connection,
      namespace: t.namespace,
      dataConverter: codecDataConverter(new AesGcmPayloadCodec({ keys: { k1: key } })),
    });
    // Nothing polls this queue: the started event holds the encrypted input, which is all the test reads.
    const handle = await codecClient.workflow.start('codecAccessNothing', {
      taskQueue: `${t.taskQueue}-none`,
      workflowId: t.uid('codec-access'),
      args: [MARKER],
    });
    try {
      const show = async (extra: string[]) => {
        const args = ['workflow', 'show', '--address', inject('temporalAddress'), '--namespace', t.namespace];
        const run = await execFileP(cli!, [
          ...args,
          '-w',
          handle.workflowId,
          '--output',
          'json',
          ...extra,
        ]).catch((err: { stdout?: string; stderr?: string }) => ({
          stdout: err.stdout ?? '',
          stderr: err.stderr ?? '',
        }));
        // Payloads print with their data in base64: decode each so that the marker shows where it is plain.
        const texts = [run.stdout, run.stderr];
        const walk = (v: unknown): void => {
          if (Array.isArray(v)) v.forEach(walk);
          else if (typeof v === 'object' && v !== null) {
            for (const [k, child] of Object.entries(v)) {
              if (k === 'data' && typeof child === 'string')
                texts.push(Buffer.from(child, 'base64').toString('utf8'));
              else walk(child);
            }
          }
        };
        if (run.stdout.trim().startsWith('{')) walk(JSON.parse(run.stdout));
        return texts.join('\n');
      };
      const endpoint = ['--codec-endpoint', url.toString().replace(/\/$/, '')];
      expect(await show([...endpoint, '--codec-auth', `Bearer ${TOKEN}`])).toContain(MARKER);
      expect(await show(endpoint)).not.toContain(MARKER);
    } finally {
      await handle.terminate('test over');
    }
  });
});

describe('tflow codec-server without a token', () => {
  it("refuses --cors-origin '*' at start, and an origin with a path", async () => {
    const star = await refusedStart(['--cors-origin', '*']);
    expect(star.code).toBe(2);
    expect(star.stderr.trim()).toBe(
      "tflow: the CORS origin '*' lets every web page the browser opens call the codec server, which needs no token: name the UI's origin (--cors-origin http://localhost:8233), or require a token (TFLOW_CODEC_TOKEN)",
    );
    const slash = await refusedStart(['--cors-origin', `${UI}/`]);
    expect(slash.code).toBe(2);
    expect(slash.stderr.trim()).toBe(
      `tflow: the CORS origin "${UI}/" is not an origin: write scheme://host[:port] with no path or trailing slash, as the browser sends it (e.g. http://localhost:8233)`,
    );
    const short = await refusedStart([], { TFLOW_CODEC_TOKEN: 'short' });
    expect(short.code).toBe(2);
    expect(short.stderr.trim()).toBe(
      'tflow: TFLOW_CODEC_TOKEN is 5 characters; give at least 16, e.g. $(openssl rand -hex 32)',
    );
    expect(`${star.stderr}${slash.stderr}${short.stderr}`).not.toMatch(/\n\s+at /);
  }, 180_000);

  it('decodes, but serves /encode only with --encode', async () => {
    const { url, out } = await startServer([]);
    expect(out).toContain('/encode: off (only with TFLOW_CODEC_TOKEN, or --encode).');
    expect((await call(url, 'POST', '/decode', json, await encryptedBody())).status).toBe(200);
    const encode = await call(url, 'POST', '/encode', json, plainBody());
    expect(encode.status).toBe(403);
    expect(JSON.parse(encode.body)).toEqual({
      message:
        '/encode is off: without a token anyone who reaches the server could forge payloads under the current key; set TFLOW_CODEC_TOKEN (token), or start with --encode (encode: true)',
    });
    const open = await startServer(['--encode']);
    expect((await call(open.url, 'POST', '/encode', json, plainBody())).status).toBe(200);
  }, 180_000);
});

describe("tflow codec-server --cors-origin '*' with a token", () => {
  it('answers any origin with *, never with credentials', async () => {
    const { url } = await startServer(['--cors-origin', '*'], { TFLOW_CODEC_TOKEN: TOKEN });
    const preflight = await call(url, 'OPTIONS', '/decode', {
      Origin: 'http://anywhere.example',
      'Access-Control-Request-Method': 'POST',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-credentials']).toBeUndefined();
    const noToken = await call(
      url,
      'POST',
      '/decode',
      { ...json, Origin: 'http://anywhere.example' },
      await encryptedBody(),
    );
    expect(noToken.status).toBe(401);
  });
});

describe('serveCodec({ authorize })', () => {
  it("lets in what the check accepts (e.g. the UI's OIDC access token) beside the token, and shows it the request", async () => {
    const seen: CodecRequest[] = [];
    const server = await serveCodec({
      codec: new AesGcmPayloadCodec({ keys: { k1: key } }),
      corsOrigins: [UI],
      token: TOKEN,
      authorize: (request) => {
        seen.push(request);
        return request.authorization === 'Bearer user-access-token';
      },
    });
    try {
      const url = new URL(server.url);
      const body = await encryptedBody();
      const headers = { ...json, Origin: UI, 'X-Namespace': 'default' };
      const oidc = await call(
        url,
        'POST',
        '/decode',
        { ...headers, Authorization: 'Bearer user-access-token' },
        body,
      );
      expect(oidc.status).toBe(200);
      expect(decodedMarker(oidc)).toBe(JSON.stringify(MARKER));
      expect(seen).toEqual([
        { authorization: 'Bearer user-access-token', namespace: 'default', origin: UI, operation: 'decode' },
      ]);
      expect((await call(url, 'POST', '/decode', bearer(TOKEN), body)).status).toBe(200);
      const other = await call(
        url,
        'POST',
        '/encode',
        { ...headers, Authorization: 'Bearer someone-else' },
        plainBody(),
      );
      expect(other.status).toBe(401);
      expect(seen.at(-1)).toMatchObject({ operation: 'encode', authorization: 'Bearer someone-else' });
    } finally {
      await server.close();
    }
  });
});
