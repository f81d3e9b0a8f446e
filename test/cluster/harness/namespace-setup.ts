import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { PIPELINE_SEARCH_ATTRIBUTE } from '../../../src/workflows/search-attributes';
import { waitFor } from '../../helpers/wait-for';
import { REPO_ROOT } from './cluster-versions';
import { run } from './commands';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates `namespace` when it does not exist, as an operator would (`temporal operator namespace create`,
 * its default retention of 3 days: `tflow setup` then sets ours), and waits until the server serves it.
 */
export async function ensureNamespace(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const exists = await connection.workflowService.describeNamespace({ namespace }).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await connection.workflowService.registerNamespace({
        namespace,
        workflowExecutionRetentionPeriod: msToTs(3 * DAY_MS),
      });
    }
    // describeNamespace reads the database; other calls go through each service's namespace cache,
    // refreshed every few seconds: wait until one of them knows the namespace too.
    await waitFor(`namespace ${namespace} to be served`, async () => {
      await connection.operatorService.listSearchAttributes({ namespace });
      return true;
    });
  } finally {
    await connection.close();
  }
}

/**
 * Runs `tflow setup` (the CLI, as a user would) on the namespace: registers our search attributes and
 * sets the retention. Returns what it printed.
 */
export async function tflowSetup(address: string, namespace: string, retentionDays: number): Promise<string> {
  return run(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(REPO_ROOT, 'src', 'cli', 'main.ts'),
      'setup',
      '--address',
      address,
      '--namespace',
      namespace,
      '--retention',
      `${retentionDays}d`,
    ],
    { cwd: REPO_ROOT, timeoutMs: 120_000 },
  );
}

/** Throws unless the namespace keeps closed runs `retentionDays` days. */
export async function confirmRetention(
  address: string,
  namespace: string,
  retentionDays: number,
): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const d = await connection.workflowService.describeNamespace({ namespace });
    const days = Number(d.config?.workflowExecutionRetentionTtl?.seconds ?? 0) / (DAY_MS / 1000);
    if (days !== retentionDays)
      throw new Error(`namespace ${namespace} keeps runs ${days} days, not ${retentionDays}`);
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
