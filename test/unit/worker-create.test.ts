import type { NativeConnection } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { TemporalFlowError } from '../../src/errors';
import { createWorker } from '../../src/worker/create-worker';

describe('createWorker', () => {
  it('refuses a step named like a built-in activity before connecting anywhere', async () => {
    const err = await createWorker({
      connection: {} as NativeConnection,
      taskQueue: 'q',
      steps: { tflowAcquireSlot: async () => 1, fine: async () => 2 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemporalFlowError);
    expect((err as TemporalFlowError).code).toBe('RESERVED_STEP_NAME');
    expect((err as Error).message).toBe(
      `step name "tflowAcquireSlot" clashes with temporal-flow's built-in activities: rename the step`,
    );
  });
});
