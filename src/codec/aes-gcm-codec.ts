import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { CodecKeyError, PayloadDecryptionError } from './errors';
import { CODEC_KEY_BYTES, staticKeyProvider, type CodecKeyProvider } from './keys';
import {
  CIPHER,
  CIPHER_METADATA_KEY,
  ENCRYPTED_ENCODING,
  IV_BYTES,
  KEY_ID_METADATA_KEY,
  TAG_BYTES,
} from './wire-format';

/** Options of {@link AesGcmPayloadCodec}: keys by id and the one that encrypts, or a provider. */
export type AesGcmCodecOptions =
  { keys: Readonly<Record<string, Uint8Array>>; currentKeyId?: string } | { keyProvider: CodecKeyProvider };

/**
 * A Temporal `PayloadCodec` that encrypts every payload with AES-256-GCM under the current key, and
 * decrypts a payload with whichever known key its `encryption-key-id` names, so keys can be rotated:
 * add the new key, make it current, keep the old one while histories that use it are still read.
 * Payloads that are not encrypted pass through `decode` unchanged (histories written before the codec).
 *
 * Use the same codec on workers (`createWorker({ codec })`) and clients ({@link codecDataConverter}).
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  private readonly keys: CodecKeyProvider;

  /** @throws CodecKeyError when a key is not 32 bytes or the current key is unknown. */
  constructor(options: AesGcmCodecOptions) {
    this.keys =
      'keyProvider' in options ? options.keyProvider : staticKeyProvider(options.keys, options.currentKeyId);
  }

  /** Id of the key that encrypts. */
  get currentKeyId(): string {
    return this.keys.currentKeyId;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const keyId = this.keys.currentKeyId;
    const key = await this.key(keyId);
    if (!key) {
      throw new PayloadDecryptionError(
        'unknown-key',
        keyId,
        `cannot encrypt: the key provider has no key for the current key id "${keyId}"`,
      );
    }
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(keyId, 'utf8'));
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          encoding: Buffer.from(ENCRYPTED_ENCODING),
          [CIPHER_METADATA_KEY]: Buffer.from(CIPHER),
          [KEY_ID_METADATA_KEY]: Buffer.from(keyId, 'utf8'),
        },
        data,
      };
    });
  }

  /** The provider's key for `keyId`; a provider's key of the wrong length is a configuration error. */
  private async key(keyId: string): Promise<Uint8Array | undefined> {
    const key = await this.keys.getKey(keyId);
    if (key && key.length !== CODEC_KEY_BYTES) {
      throw new CodecKeyError(
        'keyProvider',
        `key "${keyId}" is ${key.length} bytes; AES-256 needs ${CODEC_KEY_BYTES}`,
      );
    }
    return key;
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((p) => this.decodeOne(p)));
  }

  private async decodeOne(payload: Payload): Promise<Payload> {
    const meta = payload.metadata ?? {};
    if (text(meta.encoding) !== ENCRYPTED_ENCODING) return payload;
    const keyId = text(meta[KEY_ID_METADATA_KEY]);
    if (keyId === undefined || text(meta[CIPHER_METADATA_KEY]) !== CIPHER) {
      throw new PayloadDecryptionError(
        'malformed',
        keyId,
        `an encrypted payload has no key id or an unknown cipher (${text(meta[CIPHER_METADATA_KEY]) ?? 'none'}); it was not written by this codec`,
      );
    }
    const key = await this.key(keyId);
    if (!key) {
      throw new PayloadDecryptionError(
        'unknown-key',
        keyId,
        `a payload is encrypted with key "${keyId}", which this codec does not know (current key: "${this.keys.currentKeyId}"); add that key (TFLOW_CODEC_KEYS) to read it`,
      );
    }
    const data = payload.data ?? new Uint8Array();
    if (data.length < IV_BYTES + TAG_BYTES) {
      throw new PayloadDecryptionError(
        'malformed',
        keyId,
        'an encrypted payload is too short to hold its IV and tag',
      );
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(keyId, 'utf8'));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return temporal.api.common.v1.Payload.decode(plain);
    } catch (err) {
      throw new PayloadDecryptionError(
        'authentication-failed',
        keyId,
        `a payload encrypted with key "${keyId}" does not decrypt with the key of that id this codec holds: the key is wrong or the payload was altered`,
        { cause: err },
      );
    }
  }
}

function text(value: Uint8Array | null | undefined): string | undefined {
  return value ? Buffer.from(value).toString('utf8') : undefined;
}
