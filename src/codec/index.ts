// Payload encryption (client and worker side; never imported by workflow code).
export { AesGcmPayloadCodec } from './aes-gcm-codec';
export { ENCRYPTED_ENCODING, KEY_ID_METADATA_KEY, CIPHER_METADATA_KEY } from './wire-format';
export type { AesGcmCodecOptions } from './aes-gcm-codec';
export { staticKeyProvider, parseCodecKeys, CODEC_KEY_BYTES } from './keys';
export type { CodecKeyProvider } from './keys';
export { codecDataConverter } from './data-converter';
export { serveCodec } from './codec-server';
export type { CodecRequest, CodecServer, CodecServerOptions } from './codec-server';
export { CodecKeyError, CodecServerOptionsError, PayloadDecryptionError, missingCodecError } from './errors';
export type { PayloadDecryptionReason } from './errors';
