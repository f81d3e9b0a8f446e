import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { PipelineRunInput } from '../../src/workflows/run-types';
import { readHistoryFile } from './history-file';
import { defaultPayloadConverter } from '@temporalio/common';
import { OCCURRENCE_HEADER } from '../../src/workflows/occurrence';

/*
 * Replays histories recorded by an earlier interpreter (see record.ts) against today's bundled
 * workflows. A failure here means a change to the interpreter would break runs in flight: guard the
 * change with `patched()` instead of re-recording.
 */
const dir = path.join(__dirname, 'histories');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

function replayOptions() {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed by another test of this process
  }
  return {
    workflowBundle: { codePath: inject('workflowBundlePath') },
    // The interpreter calls this sink when a run ends; replay never delivers it, but it must exist.
    sinks: { tflow: { runFinished: { fn: () => undefined, callDuringReplay: false } } },
  };
}

describe('replay of recorded histories', () => {
  it('has the representative runs: success, retry, saga, parallel, scheduled with guards, one-off, coalesced, buffered, semaphore, redrive, local steps', () => {
    expect(files.sort()).toEqual(
      expect.arrayContaining([
        'job-semaphore.json',
        'local-steps.json',
        'parallel.json',
        'redrive-occurrence.json',
        'retry.json',
        'saga.json',
        'scheduled-buffered-ran.json',
        'scheduled-buffered-skipped.json',
        'scheduled-coalesced.json',
        'scheduled-guards.json',
        'scheduled-once.json',
        'success.json',
      ]),
    );
  });

  it.each(files)('replays %s without a determinism violation', async (file) => {
    const history = await readHistoryFile(path.join(dir, file));
    await expect(
      Worker.runReplayHistory(replayOptions(), history, `replay-${file}`),
    ).resolves.toBeUndefined();
  });

  it('a redriven run tells its steps the occurrence of the run it redrives (activity header)', async () => {
    const history = await readHistoryFile(path.join(dir, 'redrive-occurrence.json'));
    const headers = history.events
      .map((e) => e.activityTaskScheduledEventAttributes?.header?.fields?.[OCCURRENCE_HEADER])
      .filter((h) => h != null);
    expect(headers.map((h) => defaultPayloadConverter.fromPayload(h))).toEqual(['replay-redrive-first']);
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
