import { describe, expect, it } from 'vitest';
import { compileFlowControl, PipelineSpecError, pipeline, type FlowControlSpec } from '../../src/pipeline';
import { dueAt, nextRun } from '../../src/workflows/flow-control/flow-buffer';
import type { FlowState, HeldEvent } from '../../src/workflows/flow-control/flow-defs';

/*
 * Flow control's options (one error per bad option, naming it) and its decisions (when a run is due, what
 * it gets), table-driven.
 */

describe('compileFlowControl', () => {
  it.each([
    [{ debounce: { period: 0 } }, 'debounce.period', 'debounce.period 0 must be greater than zero'],
    [
      { debounce: { period: '5s', maxWait: '1s' } },
      'debounce.maxWait',
      'debounce.maxWait (1000 ms) must be at least debounce.period (5000 ms)',
    ],
    [
      { debounce: { period: '1s', deliver: 'first' } },
      'debounce.deliver',
      "debounce.deliver must be 'last' or 'all', got \"first\"",
    ],
    [
      { debounce: { period: '1s', timeout: '5s' } },
      'debounce.timeout',
      'unknown option debounce.timeout; allowed: key, period, maxWait, deliver',
    ],
    [{ debounce: { period: '1s', key: 'user' } }, 'debounce.key', 'debounce.key must be a function'],
    [
      { batch: { maxSize: 0, maxWait: '1s' } },
      'batch.maxSize',
      'batch.maxSize must be a whole number >= 1, got 0',
    ],
    [{ batch: { maxSize: 10 } }, 'batch.maxWait', 'batch.maxWait undefined is not a duration'],
    [
      { throttle: { limit: 2, period: '0s' } },
      'throttle.period',
      'throttle.period "0s" must be greater than zero',
    ],
    [
      { throttle: { limit: 1.5, period: '1s' } },
      'throttle.limit',
      'throttle.limit must be a whole number >= 1, got 1.5',
    ],
    [{ dedupe: { window: -5 } }, 'dedupe.window', 'dedupe.window -5 must be greater than zero'],
    [
      { debounce: { period: '1s' }, batch: { maxSize: 2, maxWait: '1s' } },
      'batch',
      'at most one of debounce, batch, throttle, dedupe, got debounce and batch',
    ],
  ])('refuses %j naming %s', (options, field, message) => {
    let error: unknown;
    try {
      compileFlowControl(options as Parameters<typeof compileFlowControl>[0]);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(PipelineSpecError);
    expect((error as PipelineSpecError).field).toBe(field);
    expect((error as Error).message).toContain(message);
  });

  it('compiles each kind, the key function kept apart from the spec', () => {
    const key = ([u]: unknown[]) => String(u);
    expect(compileFlowControl({ debounce: { key, period: '2s' } })).toEqual({
      key,
      spec: { kind: 'debounce', periodMs: 2000, deliver: 'last' },
    });
    expect(compileFlowControl({ batch: { maxSize: 10, maxWait: '5s' } })?.spec).toEqual({
      kind: 'batch',
      maxSize: 10,
      maxWaitMs: 5000,
    });
    expect(pipeline('p', { throttle: { limit: 3, period: '1m' } }).step('a').flowControl?.spec).toEqual({
      kind: 'throttle',
      limit: 3,
      periodMs: 60_000,
    });
  });
});

const held = (ats: number[]): HeldEvent[] => ats.map((at, i) => ({ id: `e${i}`, args: [i], at }));
const state = (pending: HeldEvent[], startTimes: number[] = []): FlowState => ({
  pending,
  seen: [],
  started: startTimes.length,
  startTimes,
});

describe('when a run is due', () => {
  const debounce: FlowControlSpec = { kind: 'debounce', periodMs: 1000, maxWaitMs: 3000, deliver: 'last' };
  it.each([
    ['nothing pending', debounce, state([]), undefined],
    ['debounce: a period after the last event', debounce, state(held([0, 500])), 1500],
    [
      'debounce: maxWait after the first, when events keep coming',
      debounce,
      state(held([0, 1000, 2000, 2900])),
      3000,
    ],
    [
      'batch: at once when full',
      { kind: 'batch', maxSize: 2, maxWaitMs: 5000 } as const,
      state(held([10, 20])),
      10,
    ],
    [
      'batch: maxWait after the first otherwise',
      { kind: 'batch', maxSize: 3, maxWaitMs: 5000 } as const,
      state(held([10, 20])),
      5010,
    ],
    [
      'throttle: at once under the limit',
      { kind: 'throttle', limit: 2, periodMs: 1000 } as const,
      state(held([50]), [0]),
      50,
    ],
    [
      'throttle: a period after the start two before',
      { kind: 'throttle', limit: 2, periodMs: 1000 } as const,
      state(held([50]), [0, 40]),
      1000,
    ],
  ] as const)('%s', (_, control, s, expected) => {
    expect(dueAt(control, s)).toBe(expected);
  });
});

describe('what a run gets', () => {
  const events = held([0, 1, 2]);
  it('debounce last: the last event’s args; all: every event’s args as one argument', () => {
    expect(nextRun({ kind: 'debounce', periodMs: 1, deliver: 'last' }, events)).toEqual({
      events,
      args: [2],
    });
    expect(nextRun({ kind: 'debounce', periodMs: 1, deliver: 'all' }, events).args).toEqual([
      [[0], [1], [2]],
    ]);
  });
  it('batch: at most maxSize, oldest first; throttle and dedupe: one event, its args', () => {
    expect(nextRun({ kind: 'batch', maxSize: 2, maxWaitMs: 1 }, events).args).toEqual([[[0], [1]]]);
    expect(nextRun({ kind: 'throttle', limit: 1, periodMs: 1 }, events)).toEqual({
      events: [events[0]],
      args: [0],
    });
    expect(nextRun({ kind: 'dedupe', windowMs: 1 }, events).args).toEqual([0]);
  });
});
