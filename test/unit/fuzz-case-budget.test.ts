/*
 * The fuzz tests' per-case budget (test/helpers/fuzz.ts) counts the CPU a case uses, so that a loaded
 * machine cannot fail a case that does little work, while a case that spins still fails.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors';
import { typedOutcome } from '../helpers/fuzz';

/** Busy until this process has used `ms` of CPU (however long that takes on a loaded machine). */
const spinFor = (ms: number) => {
  const start = process.cpuUsage();
  let n = 0;
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return n;
    n++;
  }
};
const blockWithoutCpu = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('typedOutcome budget', () => {
  it('fails a case that keeps the CPU busy past its budget', () => {
    expect(() => typedOutcome(() => spinFor(400), 150)).toThrow(/of CPU \(budget 150 ms\)/);
  });

  it('passes a case that waits past its budget without using the CPU (a loaded machine)', () => {
    expect(typedOutcome(() => blockWithoutCpu(400), 150)).toEqual({ ok: true, value: 'timed-out' });
  });

  it('still returns the typed error a case threw', () => {
    const out = typedOutcome(() => {
      throw new InvalidArgumentError('cron', 'bad');
    });
    expect(out.ok).toBe(false);
  });
});
