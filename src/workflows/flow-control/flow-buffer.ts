/*
 * The decisions of the flow-control workflow, pure so that a unit test can drive them: when the next run
 * is due, and which events it takes with which args.
 */
import type { FlowControlSpec } from '../../pipeline/flow-control';
import type { FlowState, HeldEvent } from './flow-defs';

/** The next run's start (epoch ms, workflow time), or undefined when no event waits. */
export function dueAt(control: FlowControlSpec, state: FlowState): number | undefined {
  const { pending } = state;
  if (pending.length === 0) return undefined;
  const first = pending[0]!.at;
  switch (control.kind) {
    case 'debounce': {
      const quiet = pending[pending.length - 1]!.at + control.periodMs;
      return control.maxWaitMs === undefined ? quiet : Math.min(quiet, first + control.maxWaitMs);
    }
    case 'batch':
      return pending.length >= control.maxSize ? first : first + control.maxWaitMs;
    case 'throttle': {
      const { startTimes } = state;
      // Sliding window: the run after the last `limit` may start `period` after the oldest of them.
      return startTimes.length < control.limit
        ? first
        : Math.max(first, startTimes[startTimes.length - control.limit]! + control.periodMs);
    }
    case 'dedupe':
      return first;
  }
}

/** The events of the next run (taken from the front of `pending`) and the args it gets. */
export function nextRun(
  control: FlowControlSpec,
  pending: readonly HeldEvent[],
): { events: HeldEvent[]; args: unknown[] } {
  switch (control.kind) {
    case 'debounce':
      return {
        events: [...pending],
        args: control.deliver === 'last' ? pending[pending.length - 1]!.args : [pending.map((e) => e.args)],
      };
    case 'batch': {
      const events = pending.slice(0, control.maxSize);
      return { events, args: [events.map((e) => e.args)] };
    }
    case 'throttle':
    case 'dedupe':
      return { events: [pending[0]!], args: pending[0]!.args };
  }
}

/** How long an idle flow control waits before it ends: enough that its window or period still holds. */
export function idleFor(control: FlowControlSpec, baseMs: number): number {
  switch (control.kind) {
    case 'dedupe':
      return Math.max(baseMs, control.windowMs);
    case 'throttle':
      return Math.max(baseMs, control.periodMs);
    default:
      return baseMs;
  }
}
