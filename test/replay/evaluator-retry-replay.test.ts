import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { EVALUATOR_RETRY_BOUNDED_PATCH } from '../../src/workflows/alerts/evaluator-workflow';
import { readHistoryFile } from './history-file';

/*
 * The shared alert evaluator's evaluation, retried within 2 s since EVALUATOR_RETRY_BOUNDED_PATCH (up to
 * a minute before): the two recorded histories say which retry policy each scheduled, and behind which
 * marker. Both replay against today's bundles (pipeline-replay.test.ts and alert-bundle-replay.test.ts
 * replay every file of histories/).
 */
const dir = path.join(__dirname, 'histories');

async function recorded(file: string) {
  const history = await readHistoryFile(path.join(dir, file));
  const events = history.events ?? [];
  return {
    patches: events
      .map((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0])
      .filter((p) => p != null)
      .map((p) => defaultPayloadConverter.fromPayload<{ id: string }>(p).id),
    maximumIntervals: events
      .map((e) => e.activityTaskScheduledEventAttributes?.retryPolicy?.maximumInterval)
      .filter((d) => d != null)
      .map((d) => Number(d.seconds ?? 0) * 1000 + (d.nanos ?? 0) / 1e6),
  };
}

describe('the alert evaluator retry policy in the recorded histories', () => {
  it('before the patch: no marker, each evaluation retried up to a minute apart', async () => {
    const before = await recorded('alert-evaluator.json');
    expect(before.patches).toEqual([]);
    expect(before.maximumIntervals.length).toBeGreaterThanOrEqual(3);
    expect(new Set(before.maximumIntervals)).toEqual(new Set([60_000]));
  });

  it('under the patch: its marker once, each evaluation retried within 2 s', async () => {
    const after = await recorded('alert-evaluator-retry-bounded.json');
    expect(after.patches).toEqual([EVALUATOR_RETRY_BOUNDED_PATCH]);
    expect(after.maximumIntervals.length).toBeGreaterThanOrEqual(3);
    expect(new Set(after.maximumIntervals)).toEqual(new Set([2_000]));
  });
});
