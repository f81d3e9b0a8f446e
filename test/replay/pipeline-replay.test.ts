import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { PipelineRunInput } from '../../src/workflows/run-types';
import { readHistoryFile } from './history-file';
import { lacksTracingModules } from '../../src/worker/workflow-bundle';
import { defaultPayloadConverter } from '@temporalio/common';
import { OCCURRENCE_HEADER } from '../../src/workflows/idempotency/occurrence';
import { temporal } from '@temporalio/proto';
import { RUN_HEADER } from '../../src/workflows/idempotency/run-header';
import {
  SEMAPHORE_LIVENESS_PATCH,
  SEMAPHORE_CHECK_ACTIVITY_PATCH,
  SEMAPHORE_LOCAL_CHECK_PATCH,
  SEMAPHORE_OWN_QUEUE_PATCH,
  SEMAPHORE_TASK_QUEUE,
  type SemaphoreState,
  SLOT_REASK_PATCH,
} from '../../src/workflows/semaphore/semaphore-defs';

/*
 * Replays histories recorded by an earlier interpreter (see record.ts) against today's bundled
 * workflows. A failure here means a change to the interpreter would break runs in flight: guard the
 * change with `patched()` instead of re-recording.
 */
const dir = path.join(__dirname, 'histories');

/** The ids of the patches a history recorded, in order. */
const patchesOf = (h: temporal.api.history.v1.IHistory) =>
  (h.events ?? [])
    .map((e) => e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0])
    .filter((p) => p != null)
    .map((p) => defaultPayloadConverter.fromPayload<{ id: string }>(p).id);
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

function replayOptions(traced = false) {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed by another test of this process
  }
  return {
    workflowBundle: { codePath: inject(traced ? 'tracedWorkflowBundlePath' : 'workflowBundlePath') },
    // A traced bundle's OpenTelemetry interceptors hand their spans to this sink (never during replay).
    ...(traced ? { sinks: { ...sinks, exporter: { export: { fn: () => undefined } } } } : { sinks }),
  };
}

// The workflow calls these sinks when a run starts and ends; replay never delivers them, but they must exist.
const sinks = {
  tflow: {
    runStarted: { fn: () => undefined, callDuringReplay: false },
    runFinished: { fn: () => undefined, callDuringReplay: false },
  },
};

describe('replay of recorded histories', () => {
  it('has the representative runs: success, retry, saga, parallel, scheduled with guards, a plain scheduled run, one-off, coalesced, dst-skipped, horizon-renewed, buffered, semaphore, redrive, child pipeline, sleep and waitFor, chain, user metadata, alerts, watchdog, watchdog obeying its schedule, watchdog at rest, the shared alert evaluator and its deliveries, a run that tells no watchdog, dead letters, rate limit, concurrency key (and its liveness patches, the check as a local activity, then as an activity again), local steps, a failing onFailure hook, steps served on other task queues, capped keys under a total (round-robin, cancel-in-progress, skip), flow control (debounce, batch, dedupe, throttle before and after its started-at patch)', () => {
    expect(files.sort()).toEqual(
      expect.arrayContaining([
        'alert-delivery-silent.json',
        'alert-evaluator.json',
        'scheduled-alerts-untold.json',
        'capped-keys-cancelled.json',
        'capped-keys-queued.json',
        'capped-keys-semaphore.json',
        'capped-keys-skipped.json',
        'chain.json',
        'concurrency-key-queued.json',
        'flow-control-batch.json',
        'flow-control-debounce.json',
        'flow-control-dedupe.json',
        'flow-control-throttle.json',
        'flow-control-throttle-started-at.json',
        'concurrency-key-reasked.json',
        'concurrency-semaphore.json',
        'concurrency-semaphore-checked.json',
        'concurrency-key-reasked-local-check.json',
        'concurrency-semaphore-checked-local-check.json',
        'concurrency-key-reasked-activity-check.json',
        'concurrency-semaphore-checked-activity-check.json',
        'dead-letter-filed.json',
        'dead-letter-keeper.json',
        'dead-letter-redriven.json',
        'chained-delay.json',
        'child-pipeline.json',
        'sleep-waitfor.json',
        'job-semaphore.json',
        'job-watchdog.json',
        'job-watchdog-at-rest.json',
        'job-watchdog-counts-changed.json',
        'job-watchdog-dead-man-since.json',
        'job-watchdog-obeys-schedule.json',
        'job-watchdog-untold.json',
        'local-steps.json',
        'on-failure-once.json',
        'parallel.json',
        'rate-limited.json',
        'redrive-occurrence.json',
        'remote-steps.json',
        'retry.json',
        'saga.json',
        'scheduled-alerts-late.json',
        'scheduled-alerts-missed.json',
        'scheduled-buffered-ran.json',
        'scheduled-buffered-skipped.json',
        'scheduled-coalesced.json',
        'scheduled-dst-skipped.json',
        'scheduled-horizon-renewed.json',
        'scheduled-guards.json',
        'scheduled-once.json',
        'scheduled-plain.json',
        'semaphore-moved.json',
        'success.json',
        'user-metadata.json',
      ]),
    );
  });

  it.each(files)('replays %s without a determinism violation', async (file) => {
    const history = await readHistoryFile(path.join(dir, file));
    await expect(
      // The id the recording scripts gave the run (`replay-<name>`): a child's workflow id derives from it.
      Worker.runReplayHistory(replayOptions(), history, `replay-${file.replace(/\.json$/, '')}`),
    ).resolves.toBeUndefined();
  });

  // A worker with `tracing` replays the runs of workers without it: its interceptors add headers and spans
  // only, no command (test/integration/tracing-jaeger.test.ts checks the spans themselves).
  it('the traced bundle holds the tracing interceptor modules (what the next test replays with)', () => {
    expect(lacksTracingModules({ codePath: inject('tracedWorkflowBundlePath') })).toBe(false);
    expect(lacksTracingModules({ codePath: inject('workflowBundlePath') })).toBe(true);
  });

  it.each(files)('replays %s with the tracing interceptors of a traced worker', async (file) => {
    const history = await readHistoryFile(path.join(dir, file));
    await expect(
      Worker.runReplayHistory(replayOptions(true), history, `replay-${file.replace(/\.json$/, '')}`),
    ).resolves.toBeUndefined();
  });

  it.each([
    [
      'child-pipeline.json',
      ['startChildWorkflowExecutionInitiatedEventAttributes', 'childWorkflowExecutionFailedEventAttributes'],
    ],
    [
      'sleep-waitfor.json',
      [
        'timerStartedEventAttributes',
        'workflowExecutionSignaledEventAttributes',
        'timerFiredEventAttributes',
      ],
    ],
    [
      'chain.json',
      ['startChildWorkflowExecutionInitiatedEventAttributes', 'childWorkflowExecutionStartedEventAttributes'],
    ],
    ['chained-delay.json', ['timerFiredEventAttributes', 'activityTaskCompletedEventAttributes']],
    // Flow control: events taken by update, runs started as children.
    [
      'flow-control-batch.json',
      [
        'workflowExecutionUpdateAcceptedEventAttributes',
        'startChildWorkflowExecutionInitiatedEventAttributes',
      ],
    ],
    // Throttle since FLOW_STARTED_AT_PATCH: its marker, and the timers of the sliding window.
    [
      'flow-control-throttle-started-at.json',
      [
        'markerRecordedEventAttributes',
        'timerFiredEventAttributes',
        'childWorkflowExecutionStartedEventAttributes',
      ],
    ],
    // cancel-in-progress: the semaphore asks the oldest run to cancel; that run waits for its step to stop.
    ['capped-keys-semaphore.json', ['requestCancelExternalWorkflowExecutionInitiatedEventAttributes']],
    [
      'capped-keys-cancelled.json',
      ['activityTaskCanceledEventAttributes', 'workflowExecutionCanceledEventAttributes'],
    ],
  ] as const)('%s has the events of its node kind', async (file, kinds) => {
    const history = await readHistoryFile(path.join(dir, file));
    for (const kind of kinds)
      expect(
        history.events.some((e) => e[kind] != null),
        kind,
      ).toBe(true);
    if (file === 'chain.json') {
      const start = history.events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes);
      // The chained run outlives the run that started it.
      expect(start!.startChildWorkflowExecutionInitiatedEventAttributes!.parentClosePolicy).toBe(
        temporal.api.enums.v1.ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON,
      );
    }
  });

  // The job guards hand such a run to the interpreter without an async frame of their own (job-guards.ts);
  // this history was recorded by the guards before that (1416996), so its replay says the path is the same.
  it('scheduled-plain.json is a run of a job whose guards have nothing to look up, wait for or finish', async () => {
    const history = await readHistoryFile(path.join(dir, 'scheduled-plain.json'));
    const start = history.events[0]!.workflowExecutionStartedEventAttributes!;
    const input = defaultPayloadConverter.fromPayload<PipelineRunInput>(start.input!.payloads![0]!);
    expect(input.job).toEqual({ jobId: 'replay-scheduled-plain', misfireGraceMs: 600_000, coalesce: true });
    const types = history.events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name);
    expect(types.filter((t) => t != null)).toEqual(['add', 'double']);
    expect(patchesOf(history)).toEqual([]);
  });

  it('a redriven run tells its steps the occurrence of the run it redrives (activity header)', async () => {
    const history = await readHistoryFile(path.join(dir, 'redrive-occurrence.json'));
    const headers = history.events
      .map((e) => e.activityTaskScheduledEventAttributes?.header?.fields?.[OCCURRENCE_HEADER])
      .filter((h) => h != null);
    expect(headers.map((h) => defaultPayloadConverter.fromPayload(h))).toEqual(['replay-redrive-first']);
  });

  it('a run carries its summary and steps as user metadata, each step its id as summary and the run header', async () => {
    const history = await readHistoryFile(path.join(dir, 'user-metadata.json'));
    const text = (p: { data?: Uint8Array | null } | null | undefined) =>
      p ? defaultPayloadConverter.fromPayload<string>(p) : undefined;
    const started = history.events[0]!;
    expect(text(started.userMetadata?.summary)).toBe('user-metadata');
    expect(text(started.userMetadata?.details)).toBe(
      '**Pipeline** user-metadata\n\n1. fetch (flaky): 3 attempts\n2. each (double), for each item, 2 at a time',
    );
    const scheduled = history.events.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled.map((e) => text(e.userMetadata?.summary))).toEqual([
      'fetch: flaky',
      'each[0]: double',
      'each[1]: double',
    ]);
    const run = scheduled[0]!.activityTaskScheduledEventAttributes!.header!.fields![RUN_HEADER]!;
    expect(defaultPayloadConverter.fromPayload(run)).toEqual({ pipeline: 'user-metadata' });
  });

  it('a failed run files its dead letter behind a patch; its redrive signals the keeper when it completes', async () => {
    const filed = await readHistoryFile(path.join(dir, 'dead-letter-filed.json'));
    const patches = patchesOf(filed);
    expect(patches).toEqual(['tflow-dead-letter-keeper']);
    expect(
      filed.events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean),
    ).toEqual(['add', 'gate', 'tflowFileDeadLetter']);
    const redriven = await readHistoryFile(path.join(dir, 'dead-letter-redriven.json'));
    const signalled = redriven.events
      .map((e) => e.signalExternalWorkflowExecutionInitiatedEventAttributes)
      .filter((a) => a != null);
    expect(signalled.map((a) => [a.signalName, a.workflowExecution?.workflowId])).toEqual([
      ['deadLetterRedriven', expect.stringMatching(/^tflow-dead-letter:replay-dead-letter-/)],
    ]);
    const keeper = await readHistoryFile(path.join(dir, 'dead-letter-keeper.json'));
    expect(
      keeper.events.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName).filter(Boolean),
    ).toEqual(['recordDeadLetter', 'deadLetterRedriven']);
  });

  it('a watchdog whose runs complete without telling it moves its clock from its reads, and raises nothing', async () => {
    const history = await readHistoryFile(path.join(dir, 'job-watchdog-untold.json'));
    const results = history.events
      .map((e) => e.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data)
      .filter((d): d is Uint8Array => d !== undefined && d !== null && d.length > 0)
      .map((d) => JSON.parse(Buffer.from(d).toString('utf8')) as { lastCompletedAt?: string });
    expect(results.filter((r) => r.lastCompletedAt !== undefined).length).toBeGreaterThanOrEqual(2);
    const delivered = history.events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tflowDeliverAlert',
    );
    expect(delivered).toEqual([]);
  });

  it('a watchdog told of a trigger reads the counts 30 s later, not at the next nominal time', async () => {
    const history = await readHistoryFile(path.join(dir, 'job-watchdog-counts-changed.json'));
    const at = (e: (typeof history.events)[number]) =>
      Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
    const signal = history.events.find(
      (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'countsChanged',
    );
    const reads = history.events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tflowWatchSchedule',
    );
    expect(signal).toBeDefined();
    const after = reads.filter((e) => at(e) > at(signal!));
    expect(after.length).toBeGreaterThanOrEqual(1);
    expect(at(after[0]!) - at(signal!)).toBeGreaterThanOrEqual(29_000);
    expect(at(after[0]!) - at(signal!)).toBeLessThan(60_000);
  });

  it('a dead-man switch added to a watched job: the clock starts at the write (deadManSince), not at the watchdog start', async () => {
    const history = await readHistoryFile(path.join(dir, 'job-watchdog-dead-man-since.json'));
    // Payloads in json/plain only (a void result is binary/null, with no data).
    const json = (p: { data?: Uint8Array | null } | null | undefined): unknown =>
      p?.data && p.data.length > 0 ? JSON.parse(Buffer.from(p.data).toString('utf8')) : {};
    const started = history.events[0]!.eventTime!;
    const startedMs = Number(started.seconds) * 1000 + Math.floor((started.nanos ?? 0) / 1e6);
    const reads = history.events
      .map((e) => e.activityTaskCompletedEventAttributes?.result?.payloads?.[0])
      .filter(Boolean)
      .map((p) => json(p) as { config?: { deadManSince?: string } });
    const since = reads.map((r) => r.config?.deadManSince).find(Boolean);
    expect(since).toBeDefined();
    expect(Date.parse(since!)).toBeGreaterThanOrEqual(startedMs + 4_000);
    const silent = history.events
      .map((e) => e.activityTaskScheduledEventAttributes?.input?.payloads?.[1])
      .filter(Boolean)
      .map((p) => json(p) as { kind?: string; lastSuccessAt?: string })
      .find((event) => event.kind === 'silent');
    expect(silent?.lastSuccessAt).toBe(since);
  });

  it('a watchdog at rest: behind its patch, a completed run costs it no timer command, and it reads its job only at a deadline, a nominal time or a change', async () => {
    const history = await readHistoryFile(path.join(dir, 'job-watchdog-at-rest.json'));
    const events = history.events;
    const patches = patchesOf(history);
    expect(patches).toEqual(['tflow-watchdog-at-rest', 'tflow-watchdog-obeys-schedule']);
    // Between a runSucceeded signal and the next timer firing or signal: no timer cancelled or started
    // while the job is not silent (the two triggered runs before the first deadline).
    const kinds = events.map((e) =>
      e.workflowExecutionSignaledEventAttributes
        ? `signal:${e.workflowExecutionSignaledEventAttributes.signalName}`
        : e.timerStartedEventAttributes
          ? 'timer-started'
          : e.timerCanceledEventAttributes
            ? 'timer-canceled'
            : e.timerFiredEventAttributes
              ? 'timer-fired'
              : e.activityTaskScheduledEventAttributes
                ? `activity:${e.activityTaskScheduledEventAttributes.activityType?.name}`
                : undefined,
    );
    expect(kinds.filter(Boolean)).toEqual([
      'signal:reconfigure',
      'activity:tflowWatchSchedule',
      'timer-started',
      // Two runs complete: the last success moves, no timer command.
      'signal:runSucceeded',
      'signal:runSucceeded',
      // The first deadline finds a later success and sleeps to it; the second goes silent.
      'timer-fired',
      'timer-started',
      'timer-fired',
      'activity:tflowWatchSchedule',
      'activity:tflowDeliverAlert',
      'timer-started',
      // The nominal run recovers it.
      'signal:runSucceeded',
      'timer-canceled',
      'activity:tflowDeliverAlert',
      'timer-started',
      // The counters, read once after the nominal time plus its grace.
      'timer-fired',
      'activity:tflowWatchSchedule',
      'timer-started',
      // removeJob.
      'signal:reconfigure',
      'timer-canceled',
      'activity:tflowWatchSchedule',
    ]);
  });

  it('a failing onFailure hook is scheduled for one attempt behind a patch; runs recorded before keep three', async () => {
    const hookOf = async (file: string) => {
      const history = await readHistoryFile(path.join(dir, file));
      const patches = patchesOf(history);
      const hook = history.events
        .map((e) => e.activityTaskScheduledEventAttributes)
        .filter((a) => a?.activityId === 'onFailure');
      return { patches, attempts: hook.map((a) => a!.retryPolicy?.maximumAttempts) };
    };
    expect(await hookOf('on-failure-once.json')).toEqual({
      patches: expect.arrayContaining(['tflow-on-failure-once']),
      attempts: [1],
    });
    expect(await hookOf('saga.json')).toEqual({ patches: [], attempts: [3] });
  });

  it('a run of a job near the end of its horizon renews it behind a patch, beside its steps', async () => {
    const run = await readHistoryFile(path.join(dir, 'scheduled-horizon-renewed.json'));
    const patches = patchesOf(run);
    expect(patches).toEqual(['tflow-horizon-renewal']);
    // Both scheduled in the same workflow task: the renewal does not hold up the step.
    const scheduled = run.events.filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)).toEqual([
      'tflowRenewHorizon',
      'add',
    ]);
    expect(
      new Set(
        scheduled.map((e) => String(e.activityTaskScheduledEventAttributes?.workflowTaskCompletedEventId)),
      ).size,
    ).toBe(1);
  });

  it('a rate-limited step runs on its own queue; a run with a concurrency key waits in line for its slot', async () => {
    const rate = await readHistoryFile(path.join(dir, 'rate-limited.json'));
    const queues = rate.events
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a != null)
      .map((a) => `${a.activityType?.name}@${a.taskQueue?.name?.replace(/^record-[\w-]+?(--|$)/, '$1')}`);
    expect(queues).toEqual([
      'items@',
      'tick@--rate--tick',
      'tick@--rate--tick',
      'tick@--rate--tick',
      'tick@--rate--tick',
    ]);
    const queued = await readHistoryFile(path.join(dir, 'concurrency-key-queued.json'));
    expect(
      queued.events.map((e) => e.workflowExecutionSignaledEventAttributes?.signalName).filter(Boolean),
    ).toEqual(['slotGranted']);
    const semaphore = await readHistoryFile(path.join(dir, 'concurrency-semaphore.json'));
    const updates = semaphore.events
      .map((e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name)
      .filter(Boolean);
    expect(updates).toEqual(['queueForSlot', 'queueForSlot']);
  });

  it('behind their patches, a queued run asks its semaphore again, and the semaphore checks on a deadline', async () => {
    const run = await readHistoryFile(path.join(dir, 'concurrency-key-reasked.json'));
    expect(patchesOf(run)).toEqual([SLOT_REASK_PATCH]);
    expect(
      run.events.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean),
    ).toEqual(['tflowQueueForSlot', 'tflowQueueForSlot', 'hold']);
    expect(
      run.events.some((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'slotGranted'),
    ).toBe(true);
    const semaphore = await readHistoryFile(path.join(dir, 'concurrency-semaphore-checked.json'));
    expect(patchesOf(semaphore)).toEqual([SEMAPHORE_LIVENESS_PATCH]);
    // The check when the first waiter asked, then the one due a minute later (a request came in between).
    expect(
      semaphore.events.filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tflowLiveHolders',
      ),
    ).toHaveLength(2);
  });

  it('behind its patch, a semaphore started on a run queue and asked by a worker of the semaphore queue continues as new there, holders and line kept', async () => {
    const semaphore = await readHistoryFile(path.join(dir, 'semaphore-moved.json'));
    expect(patchesOf(semaphore)).toEqual([SEMAPHORE_LIVENESS_PATCH, SEMAPHORE_OWN_QUEUE_PATCH]);
    const moved = semaphore.events.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
    expect(moved.taskQueue?.name).toBe(SEMAPHORE_TASK_QUEUE);
    const carried = defaultPayloadConverter.fromPayload<SemaphoreState>(moved.input!.payloads![0]!);
    expect(carried).toMatchObject({
      holders: [
        { workflowId: 'replay-moved-holder', runId: 'r1', key: 'k' },
        { workflowId: 'replay-moved-asker', runId: 'r3', key: 'k2' },
      ],
      waiting: [{ workflowId: 'replay-moved-waiter', runId: 'r2', key: 'k', max: 1, total: 2 }],
    });
  });

  it('behind its patch, the semaphore checks its holders in a local activity, never an activity task', async () => {
    const semaphore = await readHistoryFile(path.join(dir, 'concurrency-semaphore-checked-local-check.json'));
    const patches = patchesOf(semaphore);
    expect(patches).toEqual([SEMAPHORE_LIVENESS_PATCH, SEMAPHORE_LOCAL_CHECK_PATCH]);
    // The same two checks as concurrency-semaphore-checked.json, as local-activity markers.
    expect(
      semaphore.events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
    ).toHaveLength(2);
    expect(semaphore.events.filter((e) => e.activityTaskScheduledEventAttributes)).toEqual([]);
  });

  it('behind its patch, the semaphore checks its holders in an activity on its own queue again, no local activity', async () => {
    const semaphore = await readHistoryFile(
      path.join(dir, 'concurrency-semaphore-checked-activity-check.json'),
    );
    expect(patchesOf(semaphore)).toEqual([SEMAPHORE_LIVENESS_PATCH, SEMAPHORE_CHECK_ACTIVITY_PATCH]);
    const queue = semaphore.events[0]!.workflowExecutionStartedEventAttributes!.taskQueue!.name;
    const checks = semaphore.events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tflowLiveHolders',
    );
    // The same two checks as concurrency-semaphore-checked.json, on the semaphore's own task queue.
    expect(checks).toHaveLength(2);
    expect(checks.map((e) => e.activityTaskScheduledEventAttributes!.taskQueue!.name)).toEqual([
      queue,
      queue,
    ]);
    expect(queue).toBe(SEMAPHORE_TASK_QUEUE);
    expect(
      semaphore.events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
    ).toEqual([]);
  });

  it('detects a run whose recorded commands no longer match (the check can fail)', async () => {
    const history = await readHistoryFile(path.join(dir, 'saga.json'));
    // Drop the first step's compensation from the recorded input: the interpreter now skips a command
    // the history has, which is exactly what an unguarded interpreter change would do.
    const payload = history.events[0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const input = JSON.parse(Buffer.from(payload.data!).toString('utf8')) as PipelineRunInput;
    const first = input.spec.steps[0]!;
    expect(first.kind === 'step' && first.compensate).toBe('undo');
    delete (first as { compensate?: string }).compensate;
    payload.data = Buffer.from(JSON.stringify(input));
    await expect(Worker.runReplayHistory(replayOptions(), history, 'replay-tampered')).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });
});
