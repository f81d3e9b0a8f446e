/*
 * Wire format of an encrypted payload (persisted in histories and schedules: never change it, add a new
 * `encoding` instead):
 *   metadata.encoding          = "binary/encrypted"
 *   metadata.encryption-cipher = "AES256-GCM"
 *   metadata.encryption-key-id = id of the key (UTF-8)
 *   data = 12-byte IV | ciphertext of the original Payload (protobuf) | 16-byte GCM tag
 * The key id is also the GCM additional data, so a payload cannot be relabelled with another id.
 */

/** `encoding` metadata of a payload this codec encrypted. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the cipher. */
export const CIPHER_METADATA_KEY = 'encryption-cipher';
/** Metadata key naming the key that encrypted the payload. */
export const KEY_ID_METADATA_KEY = 'encryption-key-id';
/** The cipher named in `encryption-cipher`. */
export const CIPHER = 'AES256-GCM';
export const IV_BYTES = 12;
export const TAG_BYTES = 16;
