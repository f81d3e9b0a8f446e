/*
 * The dead-letter queue: a failed run is kept as a dead letter until it is redriven or discarded, even
 * after the namespace's retention removed its history (simulated here by deleting it).
 *
 *   npx tsx examples/dead-letters.ts          # TEMPORAL_ADDRESS=... to use a running server
 */
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/client';
import { PipelineClient, pipeline } from 'temporal-flow';
import { runExample } from './example-env';

let paymentsUp = false;
const steps = {
  async fetchOrder(id: string) {
    return { id, amount: 42 };
  },
  async charge(order: { id: string; amount: number }) {
    if (!paymentsUp) throw ApplicationFailure.nonRetryable('payment service down', 'Down');
    return `charged ${order.amount} for ${order.id}`;
  },
};
const checkout = pipeline('example-checkout', { steps }).step('fetchOrder').step('charge');

async function waitUntil(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

if (require.main === module) {
  void runExample('dead-letters', async ({ client, taskQueue, namespace, withWorker }) => {
    const pipelines = new PipelineClient(client, { taskQueue, steps });
    await withWorker({ steps }, async () => {
      const workflowId = `checkout-${Date.now()}`;
      await pipelines.run(checkout, ['order-7'], { workflowId }).catch((err: Error) => {
        console.log(`run failed: ${err.cause instanceof Error ? err.cause.message : err.message}`);
      });
      await waitUntil('the dead letter', async () =>
        (await pipelines.listDeadLetters()).some((d) => d.workflowId === workflowId),
      );
      const [letter] = await pipelines.listDeadLetters({ pipeline: 'example-checkout' });
      console.log(`dead letter: ${letter!.workflowId} failed at ${letter!.failedStep}: ${letter!.message}`);

      // What the namespace's retention does to a closed run: its history is deleted.
      const { runId } = await client.workflow.getHandle(workflowId).describe();
      await client.workflowService.deleteWorkflowExecution({
        namespace,
        workflowExecution: { workflowId, runId },
      });
      await waitUntil('the history deleted', () =>
        client.workflow
          .getHandle(workflowId)
          .describe()
          .then(
            () => false,
            (err: unknown) => err instanceof WorkflowNotFoundError,
          ),
      );
      console.log('failed run history deleted');

      paymentsUp = true;
      const handle = await pipelines.redrive(workflowId);
      console.log(`redriven: ${String((await handle.result()).output)}`);
      await waitUntil('the letter out of the queue', async () =>
        (await pipelines.listDeadLetters()).every((d) => d.workflowId !== workflowId),
      );
      console.log('the letter left the queue');
    });
  }).catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
