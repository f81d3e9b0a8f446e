/*
 * What waits in the flow controls (debounce, batch, throttle, dedupe): the running flow-control workflows,
 * each asked its `tflowPending` query. Read by `tflow flows` and the worker's flow metrics.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  FLOW_CONTROL_WORKFLOW_TYPE,
  pendingQuery,
  type FlowPending,
} from '../../workflows/flow-control/flow-defs';

/** One flow control and what waits in it. */
export interface FlowControlSummary extends FlowPending {
  /** The flow control's workflow id (`tflow-flow:<pipeline>:<key>`). */
  workflowId: string;
}

/**
 * A running flow control that did not answer its query within {@link QUERY_DEADLINE_MS} (no worker polls
 * its task queue, or the worker is overloaded): listed apart, so that one of them does not hide the others.
 */
export interface UnreadableFlowControl {
  workflowId: string;
  /** Why it could not be read (the query's error). */
  unreadable: string;
}

/** What {@link listFlowControls} returns. */
export interface FlowControlListing {
  flows: FlowControlSummary[];
  unreadable: UnreadableFlowControl[];
}

/** Options of {@link listFlowControls}. */
export interface FlowListOptions {
  /** Only the flow controls of this pipeline. */
  pipeline?: string;
  /** Most flow controls read (one query each). @default 1000 */
  limit?: number;
}

/** Flow controls asked at once. */
const QUERIES_AT_ONCE = 10;
/** How long a flow control's query may take: a query waits for a worker of its task queue. */
const QUERY_DEADLINE_MS = 5000;

/**
 * The running flow controls, with what waits in each (events not yet in a run, when the next run is due,
 * runs started), and apart those that did not answer in time. A flow control that ends between the
 * listing and its query is left out.
 */
export async function listFlowControls(
  client: Client,
  opts: FlowListOptions = {},
): Promise<FlowControlListing> {
  const limit = opts.limit ?? 1000;
  const prefix = opts.pipeline !== undefined ? `tflow-flow:${opts.pipeline}:` : undefined;
  const ids: string[] = [];
  const query = `WorkflowType = '${FLOW_CONTROL_WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'`;
  for await (const wf of client.workflow.list({ query })) {
    if (prefix && !wf.workflowId.startsWith(prefix)) continue;
    ids.push(wf.workflowId);
    if (ids.length >= limit) break;
  }
  const flows: FlowControlSummary[] = [];
  const unreadable: UnreadableFlowControl[] = [];
  for (let i = 0; i < ids.length; i += QUERIES_AT_ONCE) {
    await Promise.all(
      ids.slice(i, i + QUERIES_AT_ONCE).map(async (workflowId) => {
        try {
          const pending = await client.connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, () =>
            client.workflow.getHandle(workflowId).query(pendingQuery),
          );
          flows.push({ workflowId, ...pending });
        } catch (err) {
          // Ended (idle) since the listing: nothing waits in it.
          if (err instanceof WorkflowNotFoundError || /closed|completed/i.test(String(err))) return;
          unreadable.push({ workflowId, unreadable: err instanceof Error ? err.message : String(err) });
        }
      }),
    );
  }
  flows.sort((a, b) => b.events - a.events || a.workflowId.localeCompare(b.workflowId));
  unreadable.sort((a, b) => a.workflowId.localeCompare(b.workflowId));
  return { flows, unreadable };
}
