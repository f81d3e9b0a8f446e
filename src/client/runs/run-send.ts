/*
 * Sends an event to a flow-controlled pipeline (`debounce`, `batch`, `throttle`, `dedupe`): the event goes
 * to the flow-control workflow of its pipeline and key with update-with-start, so the first event of a key
 * creates it and every sender, in any process, reaches the same one.
 */
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { Pipeline, toPipelineSpec, type PipelineLike } from '../../pipeline/builder';
import type { PipelineFlowControl } from '../../pipeline/flow-control';
import { describeValue, InvalidArgumentError } from '../../errors';
import {
  FLOW_CONTROL_WORKFLOW_TYPE,
  flowControlWorkflowId,
  sendEventUpdate,
  type FlowControlInput,
  type FlowReceipt,
} from '../../workflows/flow-control/flow-defs';
import { concurrencyKeyOf } from './run-start';

/** Options of `PipelineClient.send`. */
export interface SendEventOptions {
  /**
   * The event's id: an event sent again with the same id (a retry after a lost answer) is taken once, as
   * long as its flow control remembers it (its last 2000 events). @default a random UUID
   */
  eventId?: string;
}

/** What `PipelineClient.send` returns: the flow control's answer, and where the event went. */
export interface SendReceipt extends FlowReceipt {
  eventId: string;
  key: string;
  /** Workflow id of the flow control of the event's pipeline and key. */
  flowControlId: string;
}

/**
 * How long a send keeps trying when the server turns it away for now: the flow control has its limit of
 * updates in flight (the server's `history.maxInFlightUpdates`, 10 by default) under a burst, or it ended
 * (idle) or continued as new under the update. Retries back off from 50 ms to 2 s, with jitter.
 */
const SEND_RETRY_MS = 120_000;

/**
 * The key of an event (its pipeline's `<kind>.key` of its args), or `''` when the pipeline has no key
 * function.
 *
 * @throws InvalidArgumentError (field `<kind>.key`) when the function throws or returns no string.
 */
export function flowKeyOf(name: string, flow: PipelineFlowControl, args: unknown[]): string {
  if (!flow.key) return '';
  const field = `${flow.spec.kind}.key`;
  let key: unknown;
  try {
    key = flow.key(args);
  } catch (err) {
    throw new InvalidArgumentError(
      field,
      `the ${field} of pipeline "${name}" threw on args ${describeValue(args)}: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
  if (typeof key !== 'string' || key === '') {
    throw new InvalidArgumentError(
      field,
      `the ${field} of pipeline "${name}" must return a non-empty string, got ${describeValue(key)} for args ${describeValue(args)}`,
    );
  }
  return key;
}

/**
 * Sends one event (the args of a run) to a flow-controlled pipeline; resolves once its flow control holds
 * it (durably) or deduplicated it.
 *
 * @throws InvalidArgumentError (field `pipeline`) for a pipeline without flow control, or the key's error.
 */
export async function sendEvent(
  client: Client,
  taskQueue: string,
  p: PipelineLike,
  args: unknown[],
  opts: SendEventOptions = {},
): Promise<SendReceipt> {
  const flow = p instanceof Pipeline ? p.flowControl : undefined;
  if (!flow) {
    throw new InvalidArgumentError(
      'pipeline',
      `pipeline "${p.name}" has no debounce, batch, throttle or dedupe: start its runs with start() or run(), or give it one of these options (a bare PipelineSpec carries none)`,
    );
  }
  const spec = toPipelineSpec(p);
  const key = flowKeyOf(spec.name, flow, args);
  const concurrency = concurrencyKeyOf(p, args);
  const eventId = opts.eventId ?? randomUUID();
  const flowControlId = flowControlWorkflowId(spec.name, key);
  const input: FlowControlInput = { spec, key, control: flow.spec };
  const release = await sendSlot(flowControlId);
  try {
    return await sendHeld(client, taskQueue, flowControlId, input, eventId, args, concurrency, key);
  } finally {
    release();
  }
}

/**
 * Sends of one process to one flow control at once: the server takes 10 updates in flight per workflow and
 * turns the rest away, so a burst of hundreds from one process would mostly retry against that limit
 * (measured: 600 sends at once from one process held 3 events/s); in line here they go through in turn.
 */
const SENDS_AT_ONCE = 8;
const sending = new Map<string, { active: number; waiting: (() => void)[] }>();

async function sendSlot(flowControlId: string): Promise<() => void> {
  let lane = sending.get(flowControlId);
  if (!lane) sending.set(flowControlId, (lane = { active: 0, waiting: [] }));
  const held = lane;
  if (held.active >= SENDS_AT_ONCE) await new Promise<void>((resolve) => held.waiting.push(resolve));
  else held.active++;
  return () => {
    const next = held.waiting.shift();
    if (next) next();
    else if (--held.active === 0) sending.delete(flowControlId);
  };
}

async function sendHeld(
  client: Client,
  taskQueue: string,
  flowControlId: string,
  input: FlowControlInput,
  eventId: string,
  args: unknown[],
  concurrency: ReturnType<typeof concurrencyKeyOf>,
  key: string,
): Promise<SendReceipt> {
  const deadline = Date.now() + SEND_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    const startWorkflowOperation = new WithStartWorkflowOperation(FLOW_CONTROL_WORKFLOW_TYPE, {
      workflowId: flowControlId,
      taskQueue,
      workflowIdConflictPolicy: 'USE_EXISTING',
      args: [input],
    });
    try {
      const receipt = await client.workflow.executeUpdateWithStart(sendEventUpdate, {
        args: [{ id: eventId, args, ...(concurrency ? { concurrency } : {}) }],
        updateId: eventId,
        startWorkflowOperation,
      });
      return { ...receipt, eventId, key, flowControlId };
    } catch (err) {
      // The next attempt reaches the running flow control, or starts one; the same update id (and the
      // flow control's memory of answered events) keeps the event taken once.
      if (Date.now() >= deadline || !turnedAwayForNow(err)) throw err;
      const backoff = Math.min(2000, 50 * 2 ** Math.min(attempt, 6));
      await new Promise((r) => setTimeout(r, backoff / 2 + Math.random() * (backoff / 2)));
    }
  }
}

/**
 * True for the server's answers that say "not now" rather than "no": too many updates in flight, an
 * update aborted because its workflow continued as new or closed, a workflow that closed under the update,
 * a workflow task that failed before it took the update (the update was not taken: sent again, it is).
 * The one place these wire errors are read.
 */
function turnedAwayForNow(err: unknown): boolean {
  const messages: string[] = [];
  for (
    let e: unknown = err;
    e instanceof Error && messages.length < 5;
    e = (e as { cause?: unknown }).cause
  ) {
    messages.push(e.message);
  }
  return /in-flight updates|update was aborted|unexpected workflow task failure|already completed|workflow execution .*(closed|completed)/i.test(
    messages.join(' | '),
  );
}
