import { ScheduleNotFoundError, ServiceError, type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { describeSchedule, describeScheduleIfAny } from '../../src/client/describe-schedule';

/*
 * A describe that meets a schedule's workflow as it closes (a delete at that moment; seen in
 * test/integration/job-alerts-race.test.ts, where removeJob raced another removeJob and threw a bare
 * "Failed to describe schedule"), or that the server let pass its deadline, is asked again: the schedule
 * is then gone or answers.
 */

/**
 * The error the server and SDK give a describe that met the schedule workflow's close: through grpc-js
 * (a Client's Connection) the server's words are in `details`; through a worker's NativeConnection (the
 * watchdog's activity) `details` is empty and they are the message.
 */
function metClose(form: 'grpc-js' | 'native' = 'grpc-js'): ServiceError {
  const words = 'Workflow execution closed before WorkflowTaskStarted event';
  const grpc = Object.assign(new Error(form === 'native' ? words : `9 FAILED_PRECONDITION: ${words}`), {
    code: 9,
    details: form === 'native' ? '' : words,
    metadata: {},
  });
  return new ServiceError('Failed to describe schedule', { cause: grpc });
}

/** A describe the server let pass its deadline (an overloaded server; seen in the same race test). */
function metDeadline(): ServiceError {
  const grpc = Object.assign(new Error('4 DEADLINE_EXCEEDED: context deadline exceeded'), {
    code: 4,
    details: 'context deadline exceeded',
    metadata: {},
  });
  return new ServiceError('Failed to describe schedule', { cause: grpc });
}

/** A client whose describes answer with `answers` in turn (an error is thrown, anything else returned). */
function clientAnswering(answers: unknown[]): { client: Client; calls: () => number } {
  let calls = 0;
  const client = {
    schedule: {
      getHandle: () => ({
        describe: () => {
          const answer = answers[Math.min(calls++, answers.length - 1)];
          return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
        },
      }),
    },
  } as unknown as Client;
  return { client, calls: () => calls };
}

describe('a describe that meets the schedule workflow closing, or its deadline', () => {
  it('is asked again: a schedule deleted meanwhile is not found', async () => {
    const { client, calls } = clientAnswering([metClose(), new ScheduleNotFoundError('gone', 'job')]);
    await expect(describeSchedule(client, 'job')).rejects.toBeInstanceOf(ScheduleNotFoundError);
    expect(
      await describeScheduleIfAny(
        clientAnswering([metClose(), new ScheduleNotFoundError('gone', 'job')]).client,
        'job',
      ),
    ).toBeUndefined();
    expect(calls()).toBe(2);
  });

  it('is asked again: a schedule that continued as new answers', async () => {
    const described = { scheduleId: 'job' };
    const { client, calls } = clientAnswering([metClose(), metClose('native'), described]);
    expect(await describeSchedule(client, 'job')).toBe(described);
    expect(calls()).toBe(3);
  });

  it('a describe past its deadline is asked again too', async () => {
    const described = { scheduleId: 'job' };
    const { client, calls } = clientAnswering([metDeadline(), metDeadline(), described]);
    expect(await describeSchedule(client, 'job')).toBe(described);
    expect(calls()).toBe(3);
  });

  it('gives up after 5 such answers in a row, and passes any other error on at once', async () => {
    const closing = clientAnswering([metClose()]);
    await expect(describeSchedule(closing.client, 'job')).rejects.toBeInstanceOf(ServiceError);
    expect(closing.calls()).toBe(5);
    const other = new ServiceError('Failed to describe schedule', { cause: new Error('boom') });
    const failing = clientAnswering([other]);
    await expect(describeSchedule(failing.client, 'job')).rejects.toBe(other);
    expect(failing.calls()).toBe(1);
  });
});
