import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { AesGcmPayloadCodec, parseCodecKeys, PayloadDecryptionError } from '../../src/codec';
import { readEnv } from '../../src/config';
import { ensurePythonEnv, PYTHON_PATH, type PythonEnv } from '../helpers/python';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const PEER = path.join(ROOT, 'test', 'fixtures', 'python_codec_peer.py');
const ProtoPayload = temporal.api.common.v1.Payload;

/*
 * The payload codec of python/temporal_flow against the TypeScript one (src/codec/), both ways, through the
 * bytes that travel: TypeScript encrypts, Python decrypts, and back, before and after a key rotation.
 */

let py: PythonEnv;
beforeAll(async () => {
  const env = readEnv();
  py = await ensurePythonEnv({ explicitPath: env.python, searchPath: env.path });
  if (py.installedInMs !== undefined) console.warn(`python env made in ${py.installedInMs} ms`);
}, 600_000);

const b64 = (p: Payload) => Buffer.from(ProtoPayload.encode(p).finish()).toString('base64');
const fromB64 = (s: string): Payload => ProtoPayload.decode(Buffer.from(s, 'base64'));
const json = (value: unknown): Payload => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(value)),
});
const parsed = (p: Payload): unknown => JSON.parse(Buffer.from(p.data!).toString());
const keyText = (keys: Record<string, Buffer>) =>
  Object.entries(keys)
    .map(([id, k]) => `${id}:${k.toString('base64')}`)
    .join(',');

interface PeerReply {
  decrypted?: string[];
  encrypted?: string[];
  currentKeyId?: string;
  error?: { reason: string; keyId: string; message: string };
}

/** Runs the Python peer with these keys on these payloads. */
function peer(req: {
  keys: string;
  currentKeyId?: string;
  decrypt?: string[];
  encrypt?: string[];
}): Promise<PeerReply> {
  return new Promise((resolve, reject) => {
    const child = spawn(py.python, [PEER], { env: { ...process.env, PYTHONPATH: PYTHON_PATH } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as PeerReply)
        : reject(new Error(`python peer exited ${code}: ${err}`)),
    );
    child.stdin.end(JSON.stringify(req));
  });
}

const values = [{ image: 'https://example.com/a.png', width: 640 }, 'text', 42, null, [1, 'two']];

describe('the Python codec reads and writes the TypeScript codec’s AES-GCM wire format', () => {
  const old = randomBytes(32);
  const current = randomBytes(32);

  it('TypeScript encrypts, Python decrypts to the same payloads', async () => {
    const ts = new AesGcmPayloadCodec({ keys: { '2025-01': old } });
    const encrypted = await ts.encode(values.map(json));
    const reply = await peer({ keys: keyText({ '2025-01': old }), decrypt: encrypted.map(b64) });
    expect(reply.error).toBeUndefined();
    expect(reply.decrypted!.map(fromB64).map(parsed)).toEqual(values);
  });

  it('Python encrypts, TypeScript decrypts; the payload names the key and is the wire format', async () => {
    const reply = await peer({ keys: keyText({ '2025-01': old }), encrypt: values.map(json).map(b64) });
    const encrypted = reply.encrypted!.map(fromB64);
    for (const p of encrypted) {
      expect(Buffer.from(p.metadata!.encoding!).toString()).toBe('binary/encrypted');
      expect(Buffer.from(p.metadata!['encryption-cipher']!).toString()).toBe('AES256-GCM');
      expect(Buffer.from(p.metadata!['encryption-key-id']!).toString()).toBe('2025-01');
    }
    const ts = new AesGcmPayloadCodec({ keys: { '2025-01': old } });
    const decoded = await ts.decode(encrypted);
    expect(decoded.map(parsed)).toEqual(values);
  });

  it('after a rotation both sides read the old key id and write the current one', async () => {
    const before = new AesGcmPayloadCodec({ keys: { '2025-01': old } });
    const fromTsOld = await before.encode([json('written before the rotation')]);
    const rotated = keyText({ '2025-01': old, '2025-06': current });
    // Python, rotated: reads TypeScript's old-key payload, writes with the new key.
    const reply = await peer({
      keys: rotated,
      currentKeyId: '2025-06',
      decrypt: fromTsOld.map(b64),
      encrypt: [b64(json('written after'))],
    });
    expect(reply.currentKeyId).toBe('2025-06');
    expect(JSON.parse(Buffer.from(fromB64(reply.decrypted![0]!).data!).toString())).toBe(
      'written before the rotation',
    );
    const fromPyNew = fromB64(reply.encrypted![0]!);
    expect(Buffer.from(fromPyNew.metadata!['encryption-key-id']!).toString()).toBe('2025-06');
    // TypeScript, rotated the same way (TFLOW_CODEC_KEYS/TFLOW_CODEC_KEY_ID), reads both.
    const tsRotated = new AesGcmPayloadCodec({ keyProvider: parseCodecKeys(rotated, '2025-06') });
    const both = await tsRotated.decode([fromPyNew, ...fromTsOld]);
    expect(both.map(parsed)).toEqual(['written after', 'written before the rotation']);
    // A reader that kept only the old key cannot read the new writes, and says which key it lacks.
    await expect(before.decode([fromPyNew])).rejects.toThrow(PayloadDecryptionError);
    await expect(before.decode([fromPyNew])).rejects.toThrow('encrypted with key "2025-06"');
    // And Python without the new key says the same of TypeScript's new writes.
    const newFromTs = await tsRotated.encode([json('new')]);
    const refused = await peer({ keys: keyText({ '2025-01': old }), decrypt: newFromTs.map(b64) });
    expect(refused.error).toMatchObject({ reason: 'unknown-key', keyId: '2025-06' });
  });

  it('a wrong key of the right id fails authentication on the Python side', async () => {
    const ts = new AesGcmPayloadCodec({ keys: { k: old } });
    const encrypted = await ts.encode([json('secret')]);
    const reply = await peer({ keys: keyText({ k: current }), decrypt: encrypted.map(b64) });
    expect(reply.error).toMatchObject({ reason: 'authentication-failed', keyId: 'k' });
  });

  it("the Python package's own unit tests pass (python -m unittest)", async () => {
    const { stderr } = await run(
      py.python,
      ['-m', 'unittest', 'discover', '-s', path.join(ROOT, 'python', 'tests')],
      {
        env: { ...process.env, PYTHONPATH: PYTHON_PATH },
        timeout: 120_000,
      },
    );
    expect(stderr).toMatch(/Ran \d+ tests/);
    expect(stderr.trim().split('\n').at(-1)).toBe('OK');
  });
});
