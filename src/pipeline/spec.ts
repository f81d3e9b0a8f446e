import { prioritySpecSchema, type PrioritySpec } from './priority';
import { z } from 'zod';
import { PipelineSpecError } from './errors';

import { PIPELINE_SPEC_VERSION } from './version';

/*
 * The serialisable form of a pipeline. It travels inside each run's input, so its shape is persisted in
 * workflow histories: add optional fields or new node kinds, never rename or remove one, and bump
 * PIPELINE_SPEC_VERSION (version.ts) for a change that old interpreters could not read.
 */
export { PIPELINE_SPEC_VERSION };

const positiveMs = z
  .number()
  .int('must be whole milliseconds')
  .positive('must be greater than zero (a duration such as 500 or "30s")');

/** Retry policy of a step, durations in milliseconds. */
export const retrySpecSchema = z
  .object({
    maximumAttempts: z.number().int().min(0, 'must be 0 (unlimited) or more').optional(),
    initialIntervalMs: positiveMs.optional(),
    backoffCoefficient: z.number().min(1, 'backoffCoefficient must be 1 or more').optional(),
    maximumIntervalMs: positiveMs.optional(),
    nonRetryableErrorTypes: z.array(z.string().min(1)).optional(),
  })
  .strict();
export type RetrySpec = z.infer<typeof retrySpecSchema>;

const stepNameSchema = z
  .string()
  .min(1, 'a step name cannot be empty')
  .max(200)
  .regex(
    /^[A-Za-z_$][\w$.-]*$/,
    'a step name must start with a letter, _ or $ and use only letters, digits, _ $ . -',
  );

/**
 * A task queue that other workers serve (a Python or Go worker, say): any name Temporal accepts. Absent
 * means the run's own queue, so specs written before the field carry none and replay as they did.
 */
const taskQueueSchema = z
  .string()
  .min(1, 'a task queue name cannot be empty')
  .max(1000)
  .refine((q) => q.trim() === q, 'a task queue name cannot start or end with a space');

/** Fields shared by a plain step and a `map` node: which activity runs, and how it is retried. */
const activityFields = {
  /** Unique within the pipeline; the activity name unless the step was given an explicit `id`. */
  id: z.string().min(1, 'a step id cannot be empty'),
  /** The activity type registered on the worker. */
  activity: stepNameSchema,
  retry: retrySpecSchema.optional(),
  startToCloseMs: positiveMs.optional(),
  scheduleToCloseMs: positiveMs.optional(),
  heartbeatMs: positiveMs.optional(),
  /**
   * Runs as a Temporal local activity, in the worker that runs the workflow task (no heartbeat, no
   * schedule-to-start). Absent means a regular activity; runs recorded before this field never have it.
   */
  local: z.boolean().optional(),
  /**
   * Task queue of the workers that serve this activity, when it is not the run's own (a step served by a
   * worker in another language, see docs/python-steps.md). Never set on a local step.
   */
  taskQueue: taskQueueSchema.optional(),
  /** Activity that undoes this step; it receives the step's arguments followed by the step's result. */
  compensate: stepNameSchema.optional(),
  compensateRetry: retrySpecSchema.optional(),
  /** Task queue of the compensation's workers, when it is not the run's own (it may differ from the step's). */
  compensateTaskQueue: taskQueueSchema.optional(),
  /**
   * At most this many attempts start per second, across all workers: the step runs on a task queue of its
   * own (see src/workflows/run/rate-limit.ts) whose pollers set Temporal's task-queue rate limit.
   */
  rateLimitPerSecond: z.number().positive('must be greater than zero').optional(),
  /** Temporal priority and fairness of this step's activity (priority.ts); absent: the run's. */
  priority: prioritySpecSchema.optional(),
};

/** One activity call: receives the previous node's output (or the run's args). */
export const stepSpecSchema = z.object({ kind: z.literal('step'), ...activityFields }).strict();
export type StepSpec = z.infer<typeof stepSpecSchema>;

/**
 * Branches run at the same time, each receiving the group's input; a branch is a sequence of steps.
 * The group's output is the array of the branches' outputs, in branch order.
 */
export const parallelSpecSchema = z
  .object({
    kind: z.literal('parallel'),
    id: z.string().min(1, 'a parallel group id cannot be empty'),
    branches: z
      .array(z.array(stepSpecSchema).min(1, 'a branch needs at least one step'))
      .min(1, 'a parallel group needs at least one branch'),
  })
  .strict();
export type ParallelSpec = z.infer<typeof parallelSpecSchema>;

/**
 * Runs the activity once per item of its input array, at most `concurrency` at a time. The output is the
 * array of the items' results, in input order.
 */
export const mapSpecSchema = z
  .object({
    kind: z.literal('map'),
    ...activityFields,
    concurrency: z.number().int('must be a whole number').min(1, 'concurrency must be 1 or more'),
  })
  .strict();
export type MapSpec = z.infer<typeof mapSpecSchema>;

/** A durable timer: the run waits `durationMs`, then the next node receives this node's input unchanged. */
export const sleepSpecSchema = z
  .object({
    kind: z.literal('sleep'),
    id: z.string().min(1, 'a sleep id cannot be empty'),
    durationMs: positiveMs,
  })
  .strict();
export type SleepSpec = z.infer<typeof sleepSpecSchema>;

/**
 * Waits for the signal `signal` (sent with `PipelineClient.signal()` or `tflow runs signal`); its payload is
 * the node's output. After `timeoutMs` without one, `onTimeout: 'fail'` fails the run (saga as for a step),
 * `'continue'` goes on with this node's input unchanged.
 */
export const waitForSpecSchema = z
  .object({
    kind: z.literal('waitFor'),
    id: z.string().min(1, 'a waitFor id cannot be empty'),
    signal: z
      .string()
      .min(1, 'a signal name cannot be empty')
      .max(200)
      .regex(/^[\w$.:-]+$/, 'a signal name uses only letters, digits, _ $ . : -'),
    timeoutMs: positiveMs.optional(),
    onTimeout: z.enum(['fail', 'continue']),
  })
  .strict();
export type WaitForSpec = z.infer<typeof waitForSpecSchema>;

/** Fields of a compensation, on the nodes that can have one besides activity steps (a child pipeline). */
const compensationFields = {
  compensate: stepNameSchema.optional(),
  compensateRetry: retrySpecSchema.optional(),
  compensateTaskQueue: taskQueueSchema.optional(),
};

/**
 * A whole pipeline: what `pipelineWorkflow` receives in its input. Step ids are unique throughout (a child
 * pipeline's own ids are its own: it runs as a separate workflow).
 */
export interface PipelineSpec {
  version: typeof PIPELINE_SPEC_VERSION;
  name: string;
  timeoutMs?: number | undefined;
  steps: NodeSpec[];
  onFailure?: string | undefined;
  /** Task queue of the `onFailure` hook's workers, when it is not the run's own. */
  onFailureTaskQueue?: string | undefined;
  /** Runs started when this one completes, in order (see {@link ChainSpec}). */
  then?: ChainSpec[] | undefined;
  /** Temporal priority and fairness of the pipeline's runs (priority.ts); a run's start may override it. */
  priority?: PrioritySpec | undefined;
}

/**
 * Another pipeline run as a child workflow (its own history, shown as a child in the Temporal UI): it
 * receives this node's input as its args, its output is this node's output. Its failure fails this node
 * (after its own saga); `compensate` undoes a completed child when a later node fails.
 */
export type ChildPipelineSpec = z.infer<typeof childPipelineSpecSchema>;

/**
 * A run started when this one completes: a new run of `pipeline` whose args are this run's output, started
 * `delayMs` later (a durable timer in the new run), with the workflow id `workflowId` (a template, see
 * `renderWorkflowId`) when given.
 */
export interface ChainSpec {
  pipeline: PipelineSpec;
  delayMs?: number | undefined;
  workflowId?: string | undefined;
}

export const childPipelineSpecSchema = z
  .object({
    kind: z.literal('pipeline'),
    id: z.string().min(1, 'a child pipeline id cannot be empty'),
    get pipeline() {
      return pipelineSpecSchema;
    },
    ...compensationFields,
  })
  .strict();

export const chainSpecSchema: z.ZodType<ChainSpec> = z
  .object({
    get pipeline() {
      return pipelineSpecSchema;
    },
    delayMs: positiveMs.optional(),
    workflowId: z.string().min(1, 'a workflow id template cannot be empty').max(400).optional(),
  })
  .strict();

/** A top-level node of a pipeline. New kinds may be added; existing ones never change meaning. */
export const nodeSpecSchema = z.discriminatedUnion('kind', [
  stepSpecSchema,
  parallelSpecSchema,
  mapSpecSchema,
  sleepSpecSchema,
  waitForSpecSchema,
  childPipelineSpecSchema,
]);
export type NodeSpec = z.infer<typeof nodeSpecSchema>;

export const pipelineSpecSchema: z.ZodType<PipelineSpec> = z
  .object({
    version: z.literal(PIPELINE_SPEC_VERSION),
    name: z.string().min(1, 'a pipeline needs a name').max(200),
    timeoutMs: positiveMs.optional(),
    get steps() {
      return z.array(nodeSpecSchema).min(1, 'a pipeline needs at least one step');
    },
    onFailure: stepNameSchema.optional(),
    onFailureTaskQueue: taskQueueSchema.optional(),
    get then() {
      return z.array(chainSpecSchema).optional();
    },
    priority: prioritySpecSchema.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const seen = new Set<string>();
    const check = (id: string, path: (string | number)[]) => {
      if (seen.has(id)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `duplicate step id "${id}": give the repeated step its own { id }`,
        });
      }
      seen.add(id);
    };
    const checkLocal = (step: StepSpec | MapSpec, path: (string | number)[]) => {
      if (step.local && step.heartbeatMs !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [...path, 'heartbeatMs'],
          message: `step "${step.id}" is local: a local activity has no heartbeat timeout; drop heartbeatMs or local`,
        });
      }
      if (step.local && (step.taskQueue !== undefined || step.compensateTaskQueue !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: [...path, step.taskQueue !== undefined ? 'taskQueue' : 'compensateTaskQueue'],
          message: `step "${step.id}" is local: a local activity runs in the worker that runs the workflow, on no task queue; drop the task queue or local`,
        });
      }
      if (step.local && step.priority !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [...path, 'priority'],
          message: `step "${step.id}" is local: a local activity waits on no task queue for a priority to order; drop priority or local`,
        });
      }
      if (step.local && step.rateLimitPerSecond !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [...path, 'rateLimitPerSecond'],
          message: `step "${step.id}" is local: a local activity has no task queue a rate limit could hold; drop rateLimitPerSecond or local`,
        });
      }
    };
    spec.steps.forEach((node, i) => {
      check(node.id, ['steps', i, 'id']);
      if (node.kind === 'parallel') {
        node.branches.forEach((branch, b) =>
          branch.forEach((step, s) => {
            check(step.id, ['steps', i, 'branches', b, s, 'id']);
            checkLocal(step, ['steps', i, 'branches', b, s]);
          }),
        );
      } else if (node.kind === 'step' || node.kind === 'map') {
        checkLocal(node, ['steps', i]);
      }
    });
  });

/** Formats a zod issue path as `steps[1].retry.backoffCoefficient`. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
    '',
  );
}

/** Turns the first zod issue into a {@link PipelineSpecError} naming the field. */
export function toSpecError(error: z.ZodError, prefix = ''): PipelineSpecError {
  const issue = error.issues[0];
  const base = [...(prefix ? [prefix] : []), ...(issue?.path ?? [])];
  if (issue?.code === 'unrecognized_keys') {
    // Name the unknown key itself, so that `steps[0].retryy` points at the typo.
    const field = formatPath([...base, issue.keys[0] ?? '']);
    return new PipelineSpecError(
      field,
      `invalid pipeline: ${field}: unknown option ${issue.keys.map((k) => `"${k}"`).join(', ')}`,
      { cause: error },
    );
  }
  const field = formatPath(base) || '(spec)';
  return new PipelineSpecError(field, `invalid pipeline: ${field}: ${issue?.message ?? 'invalid'}`, {
    cause: error,
  });
}

/**
 * Validates an untrusted spec (from a run's input, a file, or a hand-written object).
 *
 * @throws PipelineSpecError naming the first invalid field.
 */
export function parsePipelineSpec(input: unknown): PipelineSpec {
  const result = pipelineSpecSchema.safeParse(input);
  if (!result.success) throw toSpecError(result.error);
  return result.data;
}

/**
 * Every activity step of a spec, in declaration order, including parallel branches and map nodes (not
 * those of child or chained pipelines: they run as other workflows).
 */
export function activityNodesOf(spec: PipelineSpec): (StepSpec | MapSpec)[] {
  return spec.steps.flatMap((node) =>
    node.kind === 'parallel'
      ? node.branches.flat()
      : node.kind === 'step' || node.kind === 'map'
        ? [node]
        : [],
  );
}

/** One activity a spec calls, and the task queue that serves it (undefined: the run's own queue). */
export interface ActivityUse {
  activity: string;
  taskQueue: string | undefined;
  /** A rate-limited step: it runs on the queue's `--rate--<activity>` companion (workflows/run/rate-limit.ts). */
  rateLimited: boolean;
}

/**
 * Every activity a spec calls, with its queue: steps, compensations and the failure hook, with those of
 * its child and chained pipelines (they run on the run's task queue, their steps where they say).
 */
export function activityUsesOf(spec: PipelineSpec): ActivityUse[] {
  const uses = new Map<string, ActivityUse>();
  const add = (activity: string, taskQueue: string | undefined, rateLimited = false) => {
    uses.set(`${taskQueue ?? ''}\u0000${activity}\u0000${rateLimited}`, { activity, taskQueue, rateLimited });
  };
  for (const step of activityNodesOf(spec)) {
    add(step.activity, step.taskQueue, step.rateLimitPerSecond !== undefined);
    if (step.compensate) add(step.compensate, step.compensateTaskQueue);
  }
  if (spec.onFailure) add(spec.onFailure, spec.onFailureTaskQueue);
  for (const node of spec.steps) {
    if (node.kind !== 'pipeline') continue;
    if (node.compensate) add(node.compensate, node.compensateTaskQueue);
    activityUsesOf(node.pipeline).forEach((u) => add(u.activity, u.taskQueue, u.rateLimited));
  }
  for (const chain of spec.then ?? []) {
    activityUsesOf(chain.pipeline).forEach((u) => add(u.activity, u.taskQueue, u.rateLimited));
  }
  return [...uses.values()];
}

/**
 * Activity names a spec needs on the run's own workers: steps, compensations and the failure hook, with
 * those of its child and chained pipelines; not those served on another task queue.
 */
export function activitiesOf(spec: PipelineSpec): string[] {
  return [...new Set(activityUsesOf(spec).flatMap((u) => (u.taskQueue === undefined ? [u.activity] : [])))];
}

/** The task queues other than the run's own that a spec's activities need a worker on, sorted. */
export function remoteTaskQueuesOf(spec: PipelineSpec): string[] {
  return [
    ...new Set(activityUsesOf(spec).flatMap((u) => (u.taskQueue === undefined ? [] : [u.taskQueue]))),
  ].sort();
}
