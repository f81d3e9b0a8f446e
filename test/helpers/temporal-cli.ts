import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { inject } from 'vitest';
import { PIPELINE_WORKFLOW_TYPE } from '../../src/workflows/run-types';

const exec = promisify(execFile);

/** The real `temporal` CLI against the suite's server, in `namespace`; its stdout. */
export async function temporalCli(namespace: string, args: string[]): Promise<string> {
  const { stdout } = await exec(inject('temporalCli'), [
    ...args,
    '--address',
    inject('temporalAddress'),
    '--namespace',
    namespace,
  ]);
  return stdout;
}

/** The job's runs' input as `temporal schedule describe` shows it, for `--input` of an update. */
export async function cliInputOf(client: Client, jobId: string): Promise<string> {
  const d = await client.schedule.getHandle(jobId).describe();
  return JSON.stringify(d.action.type === 'startWorkflow' ? d.action.args?.[0] : undefined);
}

/**
 * `temporal schedule update` in the form its help gives: schedule id, workflow id, task queue, type and
 * input (as `temporal schedule describe` shows it), then `extra` (the new spec, flags): no memo, no
 * schedule search attributes.
 */
export async function cliScheduleUpdate(
  client: Client,
  namespace: string,
  jobId: string,
  taskQueue: string,
  extra: string[],
): Promise<void> {
  await temporalCli(namespace, [
    'schedule',
    'update',
    '--schedule-id',
    jobId,
    '--workflow-id',
    `${jobId}-run`,
    '--task-queue',
    taskQueue,
    '--type',
    PIPELINE_WORKFLOW_TYPE,
    '--input',
    await cliInputOf(client, jobId),
    ...extra,
  ]);
}
