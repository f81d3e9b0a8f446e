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
  /** Activity that undoes this step; it receives the step's arguments followed by the step's result. */
  compensate: stepNameSchema.optional(),
  compensateRetry: retrySpecSchema.optional(),
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

/** A top-level node of a pipeline. New kinds may be added; existing ones never change meaning. */
export const nodeSpecSchema = z.discriminatedUnion('kind', [
  stepSpecSchema,
  parallelSpecSchema,
  mapSpecSchema,
]);
export type NodeSpec = z.infer<typeof nodeSpecSchema>;

/** A whole pipeline: what `pipelineWorkflow` receives in its input. Step ids are unique throughout. */
export const pipelineSpecSchema = z
  .object({
    version: z.literal(PIPELINE_SPEC_VERSION),
    name: z.string().min(1, 'a pipeline needs a name').max(200),
    timeoutMs: positiveMs.optional(),
    steps: z.array(nodeSpecSchema).min(1, 'a pipeline needs at least one step'),
    onFailure: stepNameSchema.optional(),
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
      } else {
        checkLocal(node, ['steps', i]);
      }
    });
  });
export type PipelineSpec = z.infer<typeof pipelineSpecSchema>;

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

/** Every activity step of a spec, in declaration order, including parallel branches and map nodes. */
export function activityNodesOf(spec: PipelineSpec): (StepSpec | MapSpec)[] {
  return spec.steps.flatMap((node) => (node.kind === 'parallel' ? node.branches.flat() : [node]));
}

/** Activity names a spec needs on the worker: steps, compensations and the failure hook. */
export function activitiesOf(spec: PipelineSpec): string[] {
  const names = new Set<string>();
  for (const step of activityNodesOf(spec)) {
    names.add(step.activity);
    if (step.compensate) names.add(step.compensate);
  }
  if (spec.onFailure) names.add(spec.onFailure);
  return [...names];
}
