/*
 * Names and shapes of the flow-control workflow (debounce, batch, throttle, dedupe), shared by the workflow
 * and the client that sends it events. Persisted in histories: never rename the workflow type, the update
 * or the query, nor a field; add optional fields only.
 */
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { FlowControlSpec } from '../../pipeline/flow-control';
import type { PipelineSpec } from '../../pipeline/spec';
import type { RunConcurrency } from '../run-types';

/** Workflow type of the flow control of one pipeline and key. Persisted. */
export const FLOW_CONTROL_WORKFLOW_TYPE = 'tflowFlowControlWorkflow';

/** Workflow id of the flow control of a pipeline's key: one per pipeline and key, in the namespace. */
export function flowControlWorkflowId(pipeline: string, key: string): string {
  return `tflow-flow:${pipeline}:${key}`;
}

/** One event sent to a flow-controlled pipeline. */
export interface FlowEvent {
  /** The event's id (the update id too): an event sent twice with one id is taken once. */
  id: string;
  /** The args it carries (a direct start's args). */
  args: unknown[];
  /** The concurrency key of a run with these args, computed by the sender (a pipeline with `concurrencyKey`). */
  concurrency?: RunConcurrency;
}

/** An event as the workflow keeps it: when it was accepted (workflow time, epoch ms). */
export interface HeldEvent extends FlowEvent {
  at: number;
}

/** What the workflow answers an event. */
export interface FlowReceipt {
  /**
   * `accepted`: it will be in exactly one run; `deduplicated`: a run of its key started (or is about to)
   * within the dedupe window, and this event starts none.
   */
  status: 'accepted' | 'deduplicated';
  /** `deduplicated`: the workflow id of the run it was folded into. */
  runWorkflowId?: string;
}

/** An event answered, by id. */
export interface SeenEvent extends FlowReceipt {
  id: string;
}

/** Input of {@link FLOW_CONTROL_WORKFLOW_TYPE}, and the state carried across continue-as-new. */
export interface FlowControlInput {
  /** The pipeline its runs run (the spec of the sender that started this flow control). */
  spec: PipelineSpec;
  key: string;
  control: FlowControlSpec;
  /** Carried across continue-as-new. */
  state?: FlowState;
}

/** The state a flow control carries across continue-as-new. */
export interface FlowState {
  /** Accepted events not yet given to a run, oldest first. */
  pending: HeldEvent[];
  /** The latest events answered (bounded) and their receipts, so that a resent event is taken once. */
  seen: SeenEvent[];
  /** Runs started so far by this chain of executions (the next run's number is this plus one). */
  started: number;
  /** Start times of the latest runs (throttle: the last `limit`). */
  startTimes: number[];
  /** The latest run started (dedupe). */
  lastRun?: { workflowId: string; at: number };
}

/** What the `pending` query returns: what waits, and when it is due to run. */
export interface FlowPending {
  pipeline: string;
  key: string;
  kind: FlowControlSpec['kind'];
  /** Events accepted and not yet in a run. */
  events: number;
  /** When the next run starts (epoch ms), if events wait. */
  dueAt?: number;
  /** Runs started so far by this flow control. */
  started: number;
}

/**
 * Patch of the flow control's clock: a run's start counts from when the run started (the workflow time of
 * the task that saw it started), not from the task that decided it. Before, a slow workflow task or a
 * child start held up on the server moved the throttle's window and the dedupe window before the run began:
 * a throttle of 2 per 2 s started runs 1 and 3 1.06 s apart by the server's record, under load.
 */
export const FLOW_STARTED_AT_PATCH = 'tflow-flow-started-at';

/** Update: an event for the pipeline's runs, answered once it is held (durably) or deduplicated. */
export const sendEventUpdate = defineUpdate<FlowReceipt, [FlowEvent]>('tflowSendEvent');
/** Query: what waits. */
export const pendingQuery = defineQuery<FlowPending>('tflowPending');
