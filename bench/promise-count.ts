/*
 * Promises one run creates in the workflow sandbox, as bench/run-cost.bench.ts and
 * bench/run-profile.bench.ts count them: on workers in debug mode (workflows on the main thread, where a
 * V8 promise hook of this process sees them), the sandbox's own Promise told apart from this realm's. The
 * SDK captures a source-mapped stack trace for each (its stack-trace query), which makes them a run's
 * main cost in the sandbox.
 */
import v8 from 'node:v8';
import type { temporal } from '@temporalio/proto';
import { Worker, type ReplayWorkerOptions, type WorkflowBundle } from '@temporalio/worker';

/**
 * Runs each side once to warm up (the sandbox's first run loads its modules), then once more counting the
 * promises workflow code creates; `run` must run on workers in debug mode.
 */
export async function promisesPerRun<S extends string>(
  sides: readonly S[],
  run: (side: S) => Promise<unknown>,
): Promise<Record<S, number>> {
  const counted = {} as Record<S, number>;
  for (const side of sides) {
    await run(side);
    let promises = 0;
    const stop = v8.promiseHooks.createHook({
      init(promise: Promise<unknown>) {
        if (promise.constructor !== Promise) promises++; // the sandbox's own Promise: workflow code
      },
    }) as () => void; // typed `Function` by @types/node
    try {
      await run(side);
    } finally {
      stop();
    }
    counted[side] = promises;
  }
  return counted;
}

/**
 * Promises a recorded run creates in the workflow sandbox, counted while a replay worker (workflows on this
 * thread) replays its history with `workflowBundle`. Deterministic: the live count of one run moves by a promise
 * or two between runs (how the run's jobs fall into activations), a replay's does not.
 */
export async function promisesOfReplay(
  workflowBundle: WorkflowBundle,
  history: temporal.api.history.v1.IHistory,
  sinks?: ReplayWorkerOptions['sinks'],
): Promise<number> {
  let promises = 0;
  const stop = v8.promiseHooks.createHook({
    init(promise: Promise<unknown>) {
      if (promise.constructor !== Promise) promises++; // the sandbox's own Promise: workflow code
    },
  }) as () => void;
  try {
    // A replay worker runs its workflows on this thread (the SDK sets its debugMode).
    await Worker.runReplayHistory({ workflowBundle, ...(sinks ? { sinks } : {}) }, history);
  } finally {
    stop();
  }
  return promises;
}
