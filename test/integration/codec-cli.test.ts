import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { AesGcmPayloadCodec, codecDataConverter } from '../../src/codec';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/* `tflow codec-server` and `tflow jobs` with TFLOW_CODEC_KEYS, run as a user would: a child process. */
const key = randomBytes(32);
const KEYS = `2025-01:${key.toString('base64')}`;
const MARKER = `PLAINTEXT-${randomBytes(6).toString('hex')}`;
const TOKEN = randomBytes(24).toString('hex');
const execFileP = promisify(execFile);

function tflowEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (!('TFLOW_CODEC_KEYS' in extra)) delete env.TFLOW_CODEC_KEYS;
  if (!('TFLOW_CODEC_TOKEN' in extra)) delete env.TFLOW_CODEC_TOKEN;
  return env;
}

/** Runs `tflow ...` to its end: exit code, stdout, stderr. */
async function tflow(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await execFileP(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      {
        env: tflowEnv(env),
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let t: TestContext;
beforeAll(async () => {
  t = await connectTest('codec-cli');
});
afterAll(async () => t?.close());

describe('tflow codec-server', () => {
  it('serves /encode and /decode with the keys of TFLOW_CODEC_KEYS and the token of TFLOW_CODEC_TOKEN, with CORS for the UI origin', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'codec-server',
        '--port',
        '0',
        '--cors-origin',
        'http://localhost:8233',
      ],
      {
        env: tflowEnv({ TFLOW_CODEC_KEYS: KEYS, TFLOW_CODEC_TOKEN: TOKEN }),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const url = await waitFor('the codec server address', async () => /Codec server: (\S+)/.exec(out)?.[1]);
      expect(out).toContain('encrypting with key "2025-01"');
      const payload = defaultPayloadConverter.toPayload(MARKER);
      const body = {
        payloads: [
          {
            metadata: { encoding: Buffer.from(payload.metadata!.encoding!).toString('base64') },
            data: Buffer.from(payload.data!).toString('base64'),
          },
        ],
      };
      const res = await fetch(`${url}/encode`, {
        method: 'POST',
        headers: {
          Origin: 'http://localhost:8233',
          'Content-Type': 'application/json',
          Authorization: `Bearer ${TOKEN}`,
        },
        body: JSON.stringify(body),
      });
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
      const encoded = (await res.json()) as {
        payloads: { metadata: Record<string, string>; data: string }[];
      };
      // What the server encrypted, this process decrypts with the same key: same wire format.
      const mine = new AesGcmPayloadCodec({ keys: { '2025-01': key } });
      const [decoded] = await mine.decode(
        encoded.payloads.map((p) => ({
          metadata: Object.fromEntries(
            Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
          ),
          data: Buffer.from(p.data, 'base64'),
        })),
      );
      expect(defaultPayloadConverter.fromPayload(decoded!)).toBe(MARKER);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('without TFLOW_CODEC_KEYS, or with a bad key, says what to set (no stack trace)', async () => {
    const none = await tflow(['codec-server', '--port', '0'], {});
    expect(none.code).toBe(2);
    expect(none.stderr.trim()).toBe(
      'tflow: TFLOW_CODEC_KEYS is not set: give the keys the workers use (<key id>:<base64 key>, comma-separated)',
    );
    const short = await tflow(['codec-server', '--port', '0'], { TFLOW_CODEC_KEYS: 'k:AAAA' });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('tflow: TFLOW_CODEC_KEYS: key "k" is 3 bytes; AES-256 needs 32');
    expect(short.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('tflow jobs with an encrypted job', () => {
  it('reads the job args with TFLOW_CODEC_KEYS, and says a codec is needed without it', async () => {
    const codec = new AesGcmPayloadCodec({ keys: { '2025-01': key } });
    const client = new Client({
      connection: t.connection,
      namespace: t.namespace,
      dataConverter: codecDataConverter(codec),
    });
    const scheduler = new PipelineScheduler(client, { taskQueue: t.taskQueue });
    const jobId = await scheduler.scheduleInterval(pipeline('codec-cli', { timeout: '1m' }).step('noop'), {
      jobId: t.uid('codec-cli'),
      hours: 1,
      args: [MARKER],
      paused: true,
    });
    try {
      const conn = ['--address', inject('temporalAddress'), '--namespace', t.namespace];
      const withKeys = await tflow(['jobs', ...conn, '--json', 'get', jobId], { TFLOW_CODEC_KEYS: KEYS });
      expect(withKeys.code).toBe(0);
      expect((JSON.parse(withKeys.stdout) as { args: unknown[] }).args).toEqual([MARKER]);
      const without = await tflow(['jobs', ...conn, 'get', jobId], {});
      expect(without.code).toBe(2);
      expect(without.stderr.trim()).toBe(
        'tflow: payloads are encrypted (binary/encrypted) and this client has no codec: build the Client with codecDataConverter(codec), or set TFLOW_CODEC_KEYS for tflow',
      );
    } finally {
      await scheduler.removeJob(jobId);
    }
  });
});
