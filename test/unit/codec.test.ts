import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  CodecKeyError,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA_KEY,
  parseCodecKeys,
  PayloadDecryptionError,
} from '../../src/codec';
import { payloadCodecFromEnv, readEnv } from '../../src/config';

const k1 = randomBytes(32);
const k2 = randomBytes(32);
const payload = (v: unknown) => defaultPayloadConverter.toPayload(v);
const value = (p: Parameters<typeof defaultPayloadConverter.fromPayload>[0]) =>
  defaultPayloadConverter.fromPayload(p);

describe('AesGcmPayloadCodec', () => {
  it('round-trips payloads, and the encrypted bytes hold no plaintext', async () => {
    const codec = new AesGcmPayloadCodec({ keys: { a: k1 } });
    const [enc] = await codec.encode([payload({ secret: 'PLAINTEXT-MARKER' })]);
    expect(Buffer.from(enc!.metadata!.encoding!).toString()).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(enc!.metadata![KEY_ID_METADATA_KEY]!).toString()).toBe('a');
    expect(Buffer.from(enc!.data!).toString('latin1')).not.toContain('PLAINTEXT-MARKER');
    const [dec] = await codec.decode([enc!]);
    expect(value(dec!)).toEqual({ secret: 'PLAINTEXT-MARKER' });
  });

  it('rotates: encrypts with the current key, decrypts with any known key id', async () => {
    const old = new AesGcmPayloadCodec({ keys: { a: k1 } });
    const rotated = new AesGcmPayloadCodec({ keys: { a: k1, b: k2 }, currentKeyId: 'b' });
    const [byOld] = await old.encode([payload('x')]);
    const [byNew] = await rotated.encode([payload('y')]);
    expect(Buffer.from(byNew!.metadata![KEY_ID_METADATA_KEY]!).toString()).toBe('b');
    expect((await rotated.decode([byOld!, byNew!])).map(value)).toEqual(['x', 'y']);
  });

  it('passes payloads that are not encrypted through decode', async () => {
    const codec = new AesGcmPayloadCodec({ keys: { a: k1 } });
    const [dec] = await codec.decode([payload(42)]);
    expect(value(dec!)).toBe(42);
  });

  it('rejects an unknown key id and a wrong key with a typed error', async () => {
    const [enc] = await new AesGcmPayloadCodec({ keys: { a: k1 } }).encode([payload('x')]);
    const other = new AesGcmPayloadCodec({ keys: { b: k2 } });
    const unknown = await other.decode([enc!]).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(PayloadDecryptionError);
    expect(unknown).toMatchObject({ reason: 'unknown-key', keyId: 'a', code: 'PAYLOAD_DECRYPTION_FAILED' });
    expect((unknown as Error).message).toContain('key "a", which this codec does not know');
    const wrong = await new AesGcmPayloadCodec({ keys: { a: k2 } }).decode([enc!]).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ reason: 'authentication-failed', keyId: 'a' });
  });

  it('rejects a payload whose key id was relabelled (the id is authenticated)', async () => {
    const both = new AesGcmPayloadCodec({ keys: { a: k1, b: k1 }, currentKeyId: 'a' });
    const [enc] = await both.encode([payload('x')]);
    enc!.metadata![KEY_ID_METADATA_KEY] = Buffer.from('b');
    await expect(both.decode([enc!])).rejects.toMatchObject({ reason: 'authentication-failed' });
  });

  it('rejects keys that are not 32 bytes, and several keys without a current one', () => {
    expect(() => new AesGcmPayloadCodec({ keys: { a: randomBytes(16) } })).toThrow(
      'keys: key "a" is 16 bytes; AES-256 needs 32',
    );
    expect(() => new AesGcmPayloadCodec({ keys: { a: k1, b: k2 } })).toThrow(CodecKeyError);
  });

  it('reads keys from a provider, and rejects a provided key of the wrong length', async () => {
    const asked: string[] = [];
    const keyProvider = {
      currentKeyId: 'v2',
      getKey: async (id: string) => (
        asked.push(id),
        id === 'v2' ? k2 : id === 'short' ? k1.subarray(0, 8) : undefined
      ),
    };
    const codec = new AesGcmPayloadCodec({ keyProvider });
    expect(value((await codec.decode(await codec.encode([payload('p')])))[0]!)).toBe('p');
    expect(asked).toEqual(['v2', 'v2']);
    const short = new AesGcmPayloadCodec({ keyProvider: { ...keyProvider, currentKeyId: 'short' } });
    await expect(short.encode([payload('p')])).rejects.toThrow(
      'keyProvider: key "short" is 8 bytes; AES-256 needs 32',
    );
  });
});

describe('TFLOW_CODEC_KEYS', () => {
  const b1 = k1.toString('base64');
  const b2 = k2.toString('base64');

  it('reads id:base64 pairs; TFLOW_CODEC_KEY_ID names the current key', async () => {
    const codec = payloadCodecFromEnv(
      readEnv({ TFLOW_CODEC_KEYS: `old:${b1}, new:${b2}`, TFLOW_CODEC_KEY_ID: 'new' }),
    );
    expect(codec?.currentKeyId).toBe('new');
    const [enc] = await new AesGcmPayloadCodec({ keys: { old: k1 } }).encode([payload('v')]);
    expect(value((await codec!.decode([enc!]))[0]!)).toBe('v');
    expect(payloadCodecFromEnv(readEnv({}))).toBeUndefined();
    expect(parseCodecKeys(`only:${b1}`, undefined).currentKeyId).toBe('only');
  });

  it.each([
    [
      'nocolon',
      undefined,
      'TFLOW_CODEC_KEYS: entry 1 of 1 (7 characters, not shown: it may hold a key) is not <key id>:<base64 key>',
    ],
    [`a:${b1},a:${b2}`, 'a', 'TFLOW_CODEC_KEYS: key id "a" is given twice'],
    ['a:!!!', undefined, 'TFLOW_CODEC_KEYS: the key of "a" is not base64'],
    [`a:${randomBytes(24).toString('base64')}`, undefined, 'TFLOW_CODEC_KEYS: key "a" is 24 bytes'],
    [`a:${b1},b:${b2}`, undefined, 'TFLOW_CODEC_KEY_ID: 2 keys given in TFLOW_CODEC_KEYS'],
    [`a:${b1}`, 'z', 'TFLOW_CODEC_KEY_ID: the current key id "z" is not among the keys ("a")'],
    [
      `a:${b1}, a b:${b2}`,
      undefined,
      'TFLOW_CODEC_KEYS: entry 2 of 2: its key id (3 characters before ":", not shown: it may be a key) may only hold',
    ],
  ])('rejects %s (key id %s)', (keys, id, message) => {
    const err = (() => {
      try {
        parseCodecKeys(keys, id);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(CodecKeyError);
    expect((err as Error).message).toContain(message);
  });

  it.each([
    ['a key without its id', () => b2],
    ['a key after a good entry, the colon left out', () => `a:${b1},${b2}`],
    ['a key and its id swapped', () => `${b2}:2025-01`],
  ])('never prints key material: %s', (_what, keys) => {
    let message = '';
    try {
      parseCodecKeys(keys(), undefined);
    } catch (e) {
      expect(e).toBeInstanceOf(CodecKeyError);
      message = (e as Error).message;
    }
    expect(message).toMatch(/^TFLOW_CODEC_KEYS: entry \d of \d/);
    // No 6 characters in a row of the key: the old message quoted its first 12.
    for (let i = 0; i + 6 <= b2.length; i++) expect(message).not.toContain(b2.slice(i, i + 6));
  });
});
