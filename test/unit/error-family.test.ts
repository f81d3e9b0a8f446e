import { describe, expect, it } from 'vitest';
import {
  InvalidArgumentError,
  InvalidConfigError,
  InvalidPolicyError,
  InvalidRetentionError,
  InvalidTriggerError,
  InvalidWindowError,
  PipelineSpecError,
  TemporalFlowError,
  CodecServerOptionsError,
} from '../../src/index';

describe('the bad-input errors are one family', () => {
  it.each([
    [InvalidArgumentError, 'INVALID_ARGUMENT'],
    [InvalidTriggerError, 'INVALID_TRIGGER'],
    [InvalidPolicyError, 'INVALID_POLICY'],
    [PipelineSpecError, 'INVALID_PIPELINE'],
    [InvalidConfigError, 'INVALID_CONFIG'],
    [InvalidRetentionError, 'INVALID_RETENTION'],
    [InvalidWindowError, 'INVALID_WINDOW'],
    [CodecServerOptionsError, 'INVALID_CODEC_SERVER_OPTION'],
  ] as const)('%o: field, message, cause, its own code and name', (Class, code) => {
    const cause = new Error('under');
    const err = new Class('limit', 'limit must be 1 or more', { cause });
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err).toBeInstanceOf(TemporalFlowError);
    expect(err).toMatchObject({ field: 'limit', message: 'limit must be 1 or more', code, name: Class.name });
    expect(err.cause).toBe(cause);
  });

  it('siblings do not catch each other', () => {
    expect(new InvalidPolicyError('jitter', 'x')).not.toBeInstanceOf(InvalidTriggerError);
    expect(new InvalidArgumentError('args', 'x')).not.toBeInstanceOf(InvalidTriggerError);
  });
});
