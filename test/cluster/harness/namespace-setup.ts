import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { registerSearchAttributes } from '../../../src/devserver/search-attributes';
import { PIPELINE_SEARCH_ATTRIBUTE } from '../../../src/workflows/search-attributes';
import { waitFor } from '../../helpers/wait-for';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates `namespace` with `retentionDays` of retention, or sets that retention on an existing one, and
 * waits until the server serves it.
 */
export async function ensureNamespace(
  address: string,
  namespace: string,
  retentionDays: number,
): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const retention = msToTs(retentionDays * DAY_MS);
    const retentionSeconds = (retentionDays * DAY_MS) / 1000;
    const existing = await connection.workflowService.describeNamespace({ namespace }).catch(() => undefined);
    if (!existing) {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: retention,
      });
    } else if (Number(existing.config?.workflowExecutionRetentionTtl?.seconds ?? 0) !== retentionSeconds) {
      await connection.workflowService.updateNamespace({
        namespace,
        config: { workflowExecutionRetentionTtl: retention },
      });
    }
    // describeNamespace reads the database; other calls go through each service's namespace cache,
    // refreshed every few seconds: wait until one of them knows the namespace too.
    await waitFor(`namespace ${namespace} to be served`, async () => {
      const d = await connection.workflowService.describeNamespace({ namespace });
      if (Number(d.config?.workflowExecutionRetentionTtl?.seconds) !== retentionSeconds) return undefined;
      await connection.operatorService.listSearchAttributes({ namespace });
      return true;
    });
  } finally {
    await connection.close();
  }
}

/** Registers temporal-flow's search attributes (what `tflow setup` does) and returns those it added. */
export async function setupSearchAttributes(address: string, namespace: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    return await registerSearchAttributes(connection, namespace);
  } finally {
    await connection.close();
  }
}

/**
 * Proves the cluster is ready for the suite: a workflow started with our search attribute (frontend
 * validation, history, the namespace cache) becomes visible to a query on it (SQL visibility). No worker
 * runs it; it is terminated once seen.
 */
export async function probeRunsAreVisible(
  address: string,
  namespace: string,
  timeoutMs = 90_000,
): Promise<void> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  const workflowId = `tflow-cluster-probe-${Date.now()}`;
  try {
    const handle = await waitFor(
      'a workflow with TflowPipeline to start',
      () =>
        client.workflow.start('tflowClusterProbe', {
          workflowId,
          taskQueue: 'tflow-cluster-probe',
          workflowExecutionTimeout: '1 minute',
          typedSearchAttributes: [{ key: PIPELINE_SEARCH_ATTRIBUTE, value: 'cluster-probe' }],
        }),
      timeoutMs,
    );
    await waitFor(
      'the probe workflow to be visible by TflowPipeline',
      async () => {
        const query = `TflowPipeline = 'cluster-probe' AND WorkflowId = '${workflowId}'`;
        for await (const _ of client.workflow.list({ query })) return true;
        return undefined;
      },
      timeoutMs,
    );
    await handle.terminate('cluster probe seen');
  } finally {
    await connection.close();
  }
}
