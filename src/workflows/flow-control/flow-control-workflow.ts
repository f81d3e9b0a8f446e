import {
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  ParentClosePolicy,
  patched,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { PipelineSpec } from '../../pipeline/spec';
import { PIPELINE_WORKFLOW_TYPE, TIMEOUT_GRACE_MS, type PipelineRunInput } from '../run-types';
import { PIPELINE_SEARCH_ATTRIBUTE } from '../search-attributes';
import { dueAt, idleFor, nextRun } from './flow-buffer';
import {
  FLOW_STARTED_AT_PATCH,
  pendingQuery,
  sendEventUpdate,
  type FlowControlInput,
  type FlowReceipt,
  type FlowState,
} from './flow-defs';

/** How long a flow control with nothing pending waits for an event before it ends. */
const IDLE_MS = 5 * 60_000;
/** Events answered that a flow control remembers (a resent event within them is taken once). */
const SEEN_KEPT = 2000;
/** History events after which it continues as new (well below Temporal's own suggestion). */
const HISTORY_LIMIT = 1000;

/**
 * The flow control of one pipeline and key (`debounce`, `batch`, `throttle` or `dedupe`): events come in
 * through the `tflowSendEvent` update (with start: the first event creates it), are held in its state, and
 * become runs of the pipeline, started as abandoned children with ids `<this id>:<chain>:<n>`, when its
 * control says they are due (flow-buffer.ts). An event is answered once held, so an accepted event is in
 * exactly one run. It continues as new every {@link HISTORY_LIMIT} events, carrying what is pending, and ends
 * after {@link IDLE_MS} with nothing pending (longer while a dedupe window or a throttle period holds).
 */
export async function tflowFlowControlWorkflow(input: FlowControlInput): Promise<void> {
  const { spec, key, control } = input;
  const state: FlowState = input.state ?? { pending: [], seen: [], started: 0, startTimes: [] };
  const seen = new Map(state.seen.map((s) => [s.id, s]));
  const chain = workflowInfo().firstExecutionRunId.slice(0, 8);
  const runId = (n: number) => `${workflowInfo().workflowId}:${chain}:${n}`;
  let changed = false;
  /** The run being started (since FLOW_STARTED_AT_PATCH): a dedupe event meanwhile goes to it. */
  let starting: string | undefined;

  const answer = (id: string, receipt: FlowReceipt): FlowReceipt => {
    seen.set(id, { id, ...receipt });
    if (seen.size > SEEN_KEPT) seen.delete(seen.keys().next().value!);
    return receipt;
  };
  setHandler(sendEventUpdate, (event) => {
    const earlier = seen.get(event.id);
    if (earlier) {
      const { id: _id, ...receipt } = earlier;
      return receipt;
    }
    changed = true;
    const now = Date.now();
    if (control.kind === 'dedupe') {
      // A run being started: its window has not begun yet (FLOW_STARTED_AT_PATCH).
      if (starting !== undefined)
        return answer(event.id, { status: 'deduplicated', runWorkflowId: starting });
      if (state.pending.length > 0) {
        return answer(event.id, { status: 'deduplicated', runWorkflowId: runId(state.started + 1) });
      }
      if (state.lastRun && now < state.lastRun.at + control.windowMs) {
        return answer(event.id, { status: 'deduplicated', runWorkflowId: state.lastRun.workflowId });
      }
    }
    state.pending.push({ ...event, at: now });
    return answer(event.id, { status: 'accepted' });
  });
  setHandler(pendingQuery, () => {
    const due = dueAt(control, state);
    return {
      pipeline: spec.name,
      key,
      kind: control.kind,
      events: state.pending.length,
      ...(due !== undefined ? { dueAt: due } : {}),
      started: state.started,
    };
  });

  const startRun = async () => {
    // Decided here, in the task that starts the run (its marker just before the start command).
    const startedAtClock = patched(FLOW_STARTED_AT_PATCH);
    const { events, args } = nextRun(control, state.pending);
    state.pending.splice(0, events.length);
    const n = ++state.started;
    const at = Date.now();
    const workflowId = runId(n);
    state.startTimes = [...state.startTimes, at].slice(-(control.kind === 'throttle' ? control.limit : 1));
    state.lastRun = { workflowId, at };
    if (startedAtClock) starting = workflowId;
    const concurrency = events[events.length - 1]!.concurrency;
    const run: PipelineRunInput = { spec, args, ...(concurrency ? { concurrency } : {}) };
    try {
      await startChild(PIPELINE_WORKFLOW_TYPE, {
        workflowId,
        args: [run],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        staticSummary: `${control.kind} of ${spec.name} (key ${key}): ${events.length} event(s)`,
        ...runOptions(spec),
      });
    } catch (err) {
      // Only after a reset of this workflow: the run of that number exists and has these events.
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      log.warn('the run of these events already exists', { workflowId });
    }
    if (startedAtClock) {
      // The run has started by now (this task's time is at or after the server's start of it): the
      // throttle's period and the dedupe window count from here, so the bound holds on the runs' own start
      // times however late the run began after the task that decided it.
      const startedAt = Date.now();
      state.startTimes = [...state.startTimes.slice(0, -1), startedAt];
      state.lastRun = { workflowId, at: startedAt };
      starting = undefined;
    }
  };

  for (;;) {
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > HISTORY_LIMIT) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof tflowFlowControlWorkflow>({
        spec,
        key,
        control,
        state: { ...state, seen: [...seen.values()] },
      });
    }
    const due = dueAt(control, state);
    changed = false;
    if (due === undefined) {
      if (await condition(() => changed, idleFor(control, IDLE_MS))) continue;
      await condition(allHandlersFinished);
      if (state.pending.length === 0 && !changed) return;
      continue;
    }
    const wait = due - Date.now();
    if (wait > 0) {
      await condition(() => changed, wait);
      continue;
    }
    await startRun();
  }
}

/** What a run started here shares with any run: its search attribute and execution timeout backstop. */
function runOptions(spec: PipelineSpec) {
  return {
    typedSearchAttributes: [{ key: PIPELINE_SEARCH_ATTRIBUTE, value: spec.name }],
    ...(spec.timeoutMs !== undefined ? { workflowExecutionTimeout: spec.timeoutMs + TIMEOUT_GRACE_MS } : {}),
    ...(spec.priority ? { priority: spec.priority } : {}),
  };
}
