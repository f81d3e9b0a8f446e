import { z } from 'zod';
import { PipelineSpecError } from './errors';

/**
 * The serialisable form of a pipeline. It travels inside each run's input, so its shape is persisted in
 * workflow histories: add optional fields, never rename or remove one, and bump `version` for a change
 * that old interpreters could not read.
 */
export const PIPELINE_SPEC_VERSION = 1;

const positiveMs = z.number().int().positive();

export const retrySpecSchema = z
  .object({
    maximumAttempts: z.number().int().min(0).optional(),
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

export const stepSpecSchema = z
  .object({
    kind: z.literal('step'),
    /** Unique within the pipeline; the activity name unless the step was given an explicit `id`. */
    id: z.string().min(1),
    /** The activity type registered on the worker. */
    activity: stepNameSchema,
    retry: retrySpecSchema.optional(),
    startToCloseMs: positiveMs.optional(),
    scheduleToCloseMs: positiveMs.optional(),
    heartbeatMs: positiveMs.optional(),
    /** Activity that undoes this step; it receives this step's input and result. */
    compensate: stepNameSchema.optional(),
    compensateRetry: retrySpecSchema.optional(),
  })
  .strict();
export type StepSpec = z.infer<typeof stepSpecSchema>;

export const pipelineSpecSchema = z
  .object({
    version: z.literal(PIPELINE_SPEC_VERSION),
    name: z.string().min(1, 'a pipeline needs a name').max(200),
    timeoutMs: positiveMs.optional(),
    steps: z.array(stepSpecSchema).min(1, 'a pipeline needs at least one step'),
    onFailure: stepNameSchema.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const seen = new Set<string>();
    spec.steps.forEach((step, i) => {
      if (seen.has(step.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['steps', i, 'id'],
          message: `duplicate step id "${step.id}": give the repeated step its own { id }`,
        });
      }
      seen.add(step.id);
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
  const field = formatPath([...(prefix ? [prefix] : []), ...(issue?.path ?? [])]) || '(spec)';
  const detail =
    issue?.code === 'unrecognized_keys'
      ? `unknown option ${issue.keys.map((k) => `"${k}"`).join(', ')}`
      : (issue?.message ?? 'invalid');
  return new PipelineSpecError(field, `invalid pipeline: ${field}: ${detail}`, { cause: error });
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
