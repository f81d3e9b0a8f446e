import { ValueError } from '@temporalio/common';
import { InvalidArgumentError, TemporalFlowError } from '../errors';
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

/**
 * An option of the codec server that would let callers in it should not: a CORS origin that is not one,
 * `*` without a token, a token too short, a host name that is not one. `field` is the option of
 * `serveCodec` (`corsOrigins`, `token`, `allowedHosts`); the message names the CLI's flag or variable too.
 */
export class CodecServerOptionsError extends InvalidArgumentError {
  static override readonly code: string = 'INVALID_CODEC_SERVER_OPTION';
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
