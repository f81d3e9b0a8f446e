import type { MapSpec, NodeSpec, RetrySpec, StepSpec } from '../../pipeline/spec';
import { formatDuration } from '../../parse/duration';
import type { PipelineRunInput } from '../../workflows/run-types';

/*
 * Temporal's user metadata of a run (and of a schedule's action, which every scheduled run inherits): the
 * static summary the UI's run list shows instead of the bare `pipelineWorkflow`, and the static details
 * (Markdown) its run page shows: the pipeline's steps. The run's current step is the workflow's own
 * current details (src/workflows/run/current-details.ts).
 */

/** Longest summary kept: the UI shows one line. */
const MAX_SUMMARY = 200;
/** Longest details kept: far below Temporal's metadata limits, and more than anyone reads. */
const MAX_DETAILS = 8_000;

/** What a workflow start (or a schedule action) gets as user metadata. */
export interface RunMetadata {
  staticSummary: string;
  staticDetails: string;
}

/**
 * The metadata of a run of `input`: `nightly-etl (job etl-nightly)`, `nightly-etl (redrive of <id> from
 * load)` or `nightly-etl`, and the steps with their options as a numbered Markdown list.
 */
export function runMetadata(input: PipelineRunInput): RunMetadata {
  const { spec, job, redrive } = input;
  // A plain run's metadata says only what its spec says: written once per spec (a pipeline's spec is
  // compiled once and kept), not at every start.
  if (!job && !redrive) {
    let metadata = plainMetadata.get(spec);
    if (!metadata) plainMetadata.set(spec, (metadata = describeRun(input)));
    return metadata;
  }
  return describeRun(input);
}

const plainMetadata = new WeakMap<PipelineRunInput['spec'], RunMetadata>();

function describeRun(input: PipelineRunInput): RunMetadata {
  const { spec, job, redrive } = input;
  const context = job
    ? ` (job ${job.jobId})`
    : redrive
      ? ` (redrive of ${redrive.workflowId} from ${redrive.fromStep})`
      : '';
  const lines = [
    `**Pipeline** ${spec.name}${job ? ` · **job** ${job.jobId}` : ''}${spec.timeoutMs !== undefined ? ` · timeout ${formatDuration(spec.timeoutMs)}` : ''}`,
    '',
    ...spec.steps.map((node, i) => `${i + 1}. ${describeNode(node)}`),
  ];
  if (spec.onFailure) lines.push('', `On failure: ${spec.onFailure}`);
  for (const chain of spec.then ?? []) {
    const delay = chain.delayMs !== undefined ? ` after ${formatDuration(chain.delayMs)}` : '';
    lines.push('', `Then: ${chain.pipeline.name}${delay}`);
  }
  if (redrive) lines.push('', `Redrive of ${redrive.workflowId}, from step ${redrive.fromStep}`);
  return {
    staticSummary: cut(`${spec.name}${context}`, MAX_SUMMARY),
    staticDetails: cut(lines.join('\n'), MAX_DETAILS),
  };
}

function describeNode(node: NodeSpec): string {
  switch (node.kind) {
    case 'step':
      return describeStep(node);
    case 'parallel':
      return `${node.id}: in parallel ${node.branches.map((b) => `[${b.map(describeStep).join(' → ')}]`).join(' ')}`;
    case 'map':
      return `${describeStep(node)}, for each item, ${node.concurrency} at a time`;
    case 'pipeline':
      return `${node.id}: child pipeline ${node.pipeline.name}${node.compensate ? `, undo: ${node.compensate}` : ''}`;
    case 'sleep':
      return `${node.id}: sleep ${formatDuration(node.durationMs)}`;
    case 'waitFor':
      return `${node.id}: wait for signal "${node.signal}"${node.timeoutMs !== undefined ? ` up to ${formatDuration(node.timeoutMs)}, then ${node.onTimeout}` : ''}`;
  }
}

function describeStep(step: StepSpec | MapSpec): string {
  const name = step.id === step.activity ? step.id : `${step.id} (${step.activity})`;
  const options = [
    ...(step.retry ? [describeRetry(step.retry)] : []),
    ...(step.startToCloseMs !== undefined ? [`timeout ${formatDuration(step.startToCloseMs)}`] : []),
    ...(step.compensate ? [`undo: ${step.compensate}`] : []),
  ];
  return options.length > 0 ? `${name}: ${options.join(', ')}` : name;
}

function describeRetry(retry: RetrySpec): string {
  if (retry.maximumAttempts === undefined || retry.maximumAttempts === 0) return 'retried';
  return retry.maximumAttempts === 1 ? 'no retry' : `${retry.maximumAttempts} attempts`;
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
