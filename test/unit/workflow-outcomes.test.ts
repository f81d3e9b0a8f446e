import { describe, expect, it } from 'vitest';
import { SKIP_REASONS, SKIPPED_OUTCOMES, skippedOutcome, skipReasonOf } from '../../src/workflows/outcomes';

// The outcome values are persisted in visibility (TflowOutcome) and queried by value: pinned here.
describe('TflowOutcome values of skipped runs', () => {
  it('writes the persisted strings', () => {
    expect(skippedOutcome('misfire')).toBe('skipped:misfire');
    expect(skippedOutcome('max-instances')).toBe('skipped:max-instances');
    expect(skippedOutcome('dst')).toBe('skipped:dst');
    expect(skippedOutcome('concurrency')).toBe('skipped:concurrency');
    expect(SKIPPED_OUTCOMES).toEqual([
      'skipped:misfire',
      'skipped:max-instances',
      'skipped:dst',
      'skipped:concurrency',
    ]);
  });

  it('reads back every reason it writes', () => {
    for (const reason of SKIP_REASONS) expect(skipReasonOf(skippedOutcome(reason))).toBe(reason);
  });

  it('reads no reason from other or unknown values', () => {
    for (const value of [
      undefined,
      '',
      'skipped:',
      'skipped:other',
      'misfire',
      'completed',
      'skipped:misfire ',
    ]) {
      expect(skipReasonOf(value)).toBeUndefined();
    }
  });
});
