import { ValueError } from '@temporalio/common';
import { TemporalFlowError } from '../errors';
import { ENCRYPTED_ENCODING } from './wire-format';

/** The codec's keys are badly configured: wrong format, wrong length, or no current key. */
export class CodecKeyError extends TemporalFlowError {
  constructor(
    /** What was wrong: the variable or option that holds it, e.g. `TFLOW_CODEC_KEYS`. */
    readonly field: string,
    message: string,
  ) {
    super('INVALID_CODEC_KEY', `${field}: ${message}`);
  }
}

/** Why a payload could not be decrypted. */
export type PayloadDecryptionReason = 'unknown-key' | 'authentication-failed' | 'malformed' | 'no-codec';

/**
 * An encrypted payload could not be decrypted: its key id is not among the known keys (a key removed
 * too early, or another environment's payloads), the key is wrong (same id, other bytes), or the payload
 * is damaged; or the client has no codec at all (`no-codec`).
 */
export class PayloadDecryptionError extends TemporalFlowError {
  constructor(
    readonly reason: PayloadDecryptionReason,
    /** Key id the payload names, when it names one. */
    readonly keyId: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('PAYLOAD_DECRYPTION_FAILED', message, options);
  }
}

/**
 * The SDK's error when a client without the codec meets an encrypted payload (its payload converter
 * does not know the encoding), as a {@link PayloadDecryptionError}; undefined for any other error.
 */
export function missingCodecError(err: unknown): PayloadDecryptionError | undefined {
  if (!(err instanceof ValueError) || !err.message.includes(ENCRYPTED_ENCODING)) return undefined;
  return new PayloadDecryptionError(
    'no-codec',
    undefined,
    'payloads are encrypted (binary/encrypted) and this client has no codec: build the Client with codecDataConverter(codec), or set TFLOW_CODEC_KEYS for tflow',
    { cause: err },
  );
}
