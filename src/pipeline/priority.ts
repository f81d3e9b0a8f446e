import { z } from 'zod';
import { describeValue } from '../errors';

/*
 * Temporal's Priority and Fairness (server 1.31+) as a pipeline, a step, a run or a job asks for it: a
 * priority from 1 (first) to 5 (last), and a fairness key with its weight, which shares a task queue's
 * dispatch among keys (tenants) in proportion to their weights instead of first come first served.
 * Mapped one to one onto Temporal's `Priority` of the run's workflow and of each step's activity; a run's
 * activities and child workflows inherit the run's unless they set their own (Temporal's rule).
 * Persisted in run inputs (the spec): add fields only.
 */

/** Priority and fairness as users give them. */
export interface PriorityOptions {
  /** 1 (dispatched first) to 5 (last). @default Temporal's: 3 */
  priority?: number;
  /**
   * The fairness key, e.g. a tenant id: tasks of one key do not starve those of another; each key gets a
   * share of dispatch in proportion to its weight. At most 64 bytes. @default none (one shared key)
   */
  fairnessKey?: string;
  /** This key's weight, from 0.001 to 1000. @default 1 */
  fairnessWeight?: number;
}

/** Temporal's lowest and highest priority with its default server configuration. */
const MIN_PRIORITY = 1;
const MAX_PRIORITY = 5;
const MAX_FAIRNESS_KEY_BYTES = 64;

/** Priority and fairness as the spec holds them: the names of Temporal's `Priority`. */
export const prioritySpecSchema = z
  .object({
    priorityKey: z
      .number()
      .int('priority must be a whole number')
      .min(MIN_PRIORITY, `priority must be ${MIN_PRIORITY} to ${MAX_PRIORITY}`)
      .max(MAX_PRIORITY, `priority must be ${MIN_PRIORITY} to ${MAX_PRIORITY}`)
      .optional(),
    fairnessKey: z
      .string()
      .min(1, 'a fairness key cannot be empty')
      .refine((k) => Buffer.byteLength(k, 'utf8') <= MAX_FAIRNESS_KEY_BYTES, {
        message: `a fairness key holds at most ${MAX_FAIRNESS_KEY_BYTES} bytes`,
      })
      .optional(),
    fairnessWeight: z
      .number()
      .min(0.001, 'fairnessWeight must be 0.001 to 1000')
      .max(1000, 'fairnessWeight must be 0.001 to 1000')
      .optional(),
  })
  .strict();
export type PrioritySpec = z.infer<typeof prioritySpecSchema>;

const KEYS = ['priority', 'fairnessKey', 'fairnessWeight'] as const;

/**
 * Checks priority options and compiles them to the spec's form; undefined when none is set.
 *
 * @param field the option's name in errors (`priority`, `step("load").priority`, ...).
 * @param fail builds the error to throw (the caller's error class), from the offending field and the message.
 */
export function compilePriority(
  options: unknown,
  field: string,
  fail: (field: string, message: string) => Error,
): PrioritySpec | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw fail(
      field,
      `${field} must be an object such as { priority: 2, fairnessKey: 'tenant-a' }, got ${describeValue(options)}`,
    );
  }
  for (const key of Object.keys(options)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      throw fail(`${field}.${key}`, `${field} has only ${KEYS.join(', ')}, got "${key}"`);
    }
  }
  const given = options as PriorityOptions;
  const spec = {
    ...(given.priority !== undefined ? { priorityKey: given.priority } : {}),
    ...(given.fairnessKey !== undefined ? { fairnessKey: given.fairnessKey } : {}),
    ...(given.fairnessWeight !== undefined ? { fairnessWeight: given.fairnessWeight } : {}),
  };
  const parsed = prioritySpecSchema.safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0]) === 'priorityKey' ? 'priority' : String(issue.path[0]);
    throw fail(
      `${field}.${key}`,
      `${field}.${key}: ${issue.message}, got ${describeValue(spec[issue.path[0] as keyof typeof spec])}`,
    );
  }
  return Object.keys(spec).length > 0 ? spec : undefined;
}
