import { CodecKeyError } from './errors';

/** Length of an AES-256 key in bytes. */
export const CODEC_KEY_BYTES = 32;

/** A key id: letters, digits, `.`, `_`, `-` (it is written into every encrypted payload). */
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * Where the codec finds its keys: the id of the key that encrypts, and a lookup of any key by id (for
 * payloads encrypted before a rotation). Implement it to read keys from a secret manager.
 */
export interface CodecKeyProvider {
  /** Id of the key that encrypts new payloads. */
  readonly currentKeyId: string;
  /** The 32-byte key with this id, or undefined when it is not known. */
  getKey(keyId: string): Uint8Array | undefined | Promise<Uint8Array | undefined>;
}

/**
 * Keys held in memory: `keys` by id, `currentKeyId` the one that encrypts (@default the only key, when
 * there is one).
 *
 * @throws CodecKeyError when a key is not 32 bytes, an id is malformed, or the current key is not among the keys.
 */
export function staticKeyProvider(
  keys: Readonly<Record<string, Uint8Array>>,
  currentKeyId?: string,
  /** Names used in error messages (the env variables, when the keys come from there). */
  fields: { keys: string; currentKeyId: string } = { keys: 'keys', currentKeyId: 'currentKeyId' },
): CodecKeyProvider {
  const field = fields.keys;
  const ids = Object.keys(keys);
  if (ids.length === 0) throw new CodecKeyError(field, 'no key given; give at least one 32-byte key');
  for (const id of ids) {
    if (!KEY_ID.test(id)) {
      throw new CodecKeyError(field, `key id "${id}" may only hold letters, digits, ".", "_" and "-" (1-64)`);
    }
    if (keys[id]!.length !== CODEC_KEY_BYTES) {
      throw new CodecKeyError(
        field,
        `key "${id}" is ${keys[id]!.length} bytes; AES-256 needs ${CODEC_KEY_BYTES} (e.g. \`openssl rand -base64 32\`)`,
      );
    }
  }
  const current = currentKeyId ?? (ids.length === 1 ? ids[0]! : undefined);
  if (current === undefined) {
    throw new CodecKeyError(
      fields.currentKeyId,
      `${ids.length} keys given in ${field}: name the one that encrypts new payloads`,
    );
  }
  if (!(current in keys)) {
    throw new CodecKeyError(
      fields.currentKeyId,
      `the current key id "${current}" is not among the keys (${ids.map((i) => `"${i}"`).join(', ')})`,
    );
  }
  const copy = new Map(ids.map((id) => [id, Uint8Array.from(keys[id]!)]));
  return { currentKeyId: current, getKey: (id) => copy.get(id) };
}

/**
 * Reads the keys of `TFLOW_CODEC_KEYS`: comma-separated `<key id>:<base64 of 32 bytes>` entries, e.g.
 * `2025-01:q83v...=,2024-06:Zm9v...=`. `currentKeyId` (TFLOW_CODEC_KEY_ID) names the one that encrypts;
 * it may be left out when there is a single key.
 *
 * @throws CodecKeyError naming the variable and the entry that is wrong.
 */
export function parseCodecKeys(text: string, currentKeyId: string | undefined): CodecKeyProvider {
  const keys: Record<string, Uint8Array> = {};
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  // An entry that is not `<id>:<key>` may be a key itself (the id or the colon left out, or the two parts
  // swapped): it is named by its position and length, never quoted.
  for (const [i, entry] of entries.entries()) {
    const which = `entry ${i + 1} of ${entries.length}`;
    const colon = entry.indexOf(':');
    if (colon <= 0) {
      throw new CodecKeyError(
        'TFLOW_CODEC_KEYS',
        `${which} (${entry.length} characters, not shown: it may hold a key) is not <key id>:<base64 key>; write e.g. 2025-01:$(openssl rand -base64 32)`,
      );
    }
    const id = entry.slice(0, colon);
    const b64 = entry.slice(colon + 1);
    if (!KEY_ID.test(id)) {
      throw new CodecKeyError(
        'TFLOW_CODEC_KEYS',
        `${which}: its key id (${id.length} characters before ":", not shown: it may be a key) may only hold letters, digits, ".", "_" and "-" (1-64)`,
      );
    }
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) {
      throw new CodecKeyError('TFLOW_CODEC_KEYS', `the key of "${id}" is not base64`);
    }
    if (id in keys) throw new CodecKeyError('TFLOW_CODEC_KEYS', `key id "${id}" is given twice`);
    keys[id] = Buffer.from(b64, 'base64');
  }
  return staticKeyProvider(keys, currentKeyId, {
    keys: 'TFLOW_CODEC_KEYS',
    currentKeyId: 'TFLOW_CODEC_KEY_ID',
  });
}
