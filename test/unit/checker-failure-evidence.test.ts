import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { failureChain, summarizeFailure } from '../checker/failure-evidence';
import { checkHistory } from '../checker/invariants';
import { addDirect, addJob, emptyHistory, fillRuns } from '../helpers/checker-history';

/*
 * The checker's reading of why a run failed (test/checker/failure-evidence.ts), from a hand-made history
 * shaped as the server writes one: a run that gave up asking its concurrency key's semaphore (10 attempts
 * of tflowQueueForSlot, the last timed out), as the I4 failures of seeds 7352 and 2931 may have.
 */

const time = (iso: string) => ({ seconds: Date.parse(iso) / 1000, nanos: 0 });

// As the SDK's fetchHistory gives them: decoded protos (Long seconds, enums as numbers).
const slotGaveUp = [
  { eventId: 1, eventTime: time('2026-12-04T17:44:00Z'), workflowExecutionStartedEventAttributes: {} },
  {
    eventId: 5,
    eventTime: time('2026-12-04T17:44:01Z'),
    activityTaskScheduledEventAttributes: { activityType: { name: 'tflowQueueForSlot' } },
  },
  {
    eventId: 7,
    eventTime: time('2026-12-04T17:49:30Z'),
    activityTaskTimedOutEventAttributes: {
      scheduledEventId: 5,
      failure: {
        message: 'activity StartToClose timeout',
        timeoutFailureInfo: { timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' },
      },
    },
  },
  {
    eventId: 11,
    eventTime: time('2026-12-04T17:49:31Z'),
    workflowExecutionFailedEventAttributes: {
      failure: {
        message: 'Activity task timed out',
        activityFailureInfo: {},
        cause: {
          message: 'activity StartToClose timeout',
          timeoutFailureInfo: { timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' },
        },
      },
    },
  },
].map((e) => temporal.api.history.v1.HistoryEvent.fromObject(e));

describe("the checker's evidence of a failed run", () => {
  it('names the activity that gave up, how, and the run failure with its causes', () => {
    expect(summarizeFailure(slotGaveUp)).toBe(
      '2026-12-04T17:49:30.000Z activity tflowQueueForSlot timed out: activity StartToClose timeout [timeout TIMEOUT_TYPE_START_TO_CLOSE]; ' +
        '2026-12-04T17:49:31.000Z run failed: Activity task timed out <- activity StartToClose timeout [timeout TIMEOUT_TYPE_START_TO_CLOSE]',
    );
  });

  it('gives an application failure its type', () => {
    expect(
      failureChain({
        message: 'Activity task failed',
        cause: { message: 'no slot', applicationFailureInfo: { type: 'SlotRefused' } },
      }),
    ).toBe('Activity task failed <- no slot [SlotRefused]');
  });

  it('puts the evidence into the I4 violation of a job run and of a key run that failed', () => {
    const h = emptyHistory();
    const job = addJob(h);
    fillRuns(h, job);
    const failedRun = job.runs[1]!;
    failedRun.status = 'failed';
    addDirect(h, { kind: 'key', workflowId: 'ck-key-u-1', key: 'k0', status: 'FAILED' });
    h.failures = {
      [failedRun.workflowId]: summarizeFailure(slotGaveUp),
      'ck-key-u-1': 'history not read: workflow not found',
    };
    const details = checkHistory(h)
      .violations.filter((v) => v.invariant === 'I4')
      .map((v) => v.detail);
    expect(details).toHaveLength(2);
    expect(details[0]).toContain(`run ${failedRun.workflowId} failed`);
    expect(details[0]).toContain('activity tflowQueueForSlot timed out');
    expect(details[1]).toBe(
      'key run ck-key-u-1 ended FAILED, though nothing made it fail (its history: history not read: workflow not found)',
    );
  });
});
