import { TemporalFlowError } from '../errors';

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
export type PayloadDecryptionReason = 'unknown-key' | 'authentication-failed' | 'malformed';

/**
 * An encrypted payload could not be decrypted: its key id is not among the known keys (a key removed
 * too early, or another environment's payloads), the key is wrong (same id, other bytes), or the payload
 * is damaged.
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
