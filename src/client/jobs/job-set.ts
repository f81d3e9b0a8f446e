import { Pipeline, toPipelineSpec, type PipelineLike } from '../../pipeline/builder';
import { UnknownStepError } from '../../pipeline/errors';
import { describeValue, InvalidArgumentError, TemporalFlowError } from '../../errors';
import { prepareJob, type JobDefaults, type PreparedJob } from './job-compile';
import { checkJobFields, checkOptionsObject } from './store/job-options';
import { JobSetError } from './job-plan-errors';
import type {
  CheckedJobDefinition,
  JobDefinition,
  JobSet,
  JobSetDefinition,
  JobSetProblem,
} from './job-plan-types';

/*
 * A jobs file: jobs as data, checked offline. `defineJobs` checks what needs no scheduler (shape, ids,
 * pipelines, and each job's options with neutral defaults); `prepareJobSet` compiles each job with a
 * scheduler's defaults (time zone, DST policy, misfire grace, alerts, the worker's steps), through
 * prepareJob, the code schedule() runs. Every problem names its job and option, all are reported at once,
 * and a file with one bad entry is refused whole.
 */

const SET_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** Neutral defaults for checking a job without a scheduler (plan() checks again with the real ones). */
const OFFLINE_DEFAULTS: JobDefaults = {
  taskQueue: 'offline-check',
  timezone: 'UTC',
  dst: undefined,
  policies: {},
  misfireGraceMs: undefined,
  knownSteps: undefined,
  alerts: {},
  onError: undefined,
  watchdogTaskQueue: 'offline-check',
};

/** The option an error is about: its `field` when it has one. */
function fieldOf(err: unknown): string {
  if (err instanceof InvalidArgumentError) return err.field;
  if (err instanceof UnknownStepError) return err.field;
  return 'options';
}

/** Runs `check`, turning a typed error into a problem of job `jobId`; anything else is a bug: rethrown. */
function collect(
  problems: JobSetProblem[],
  where: Omit<JobSetProblem, 'field' | 'message'>,
  check: () => void,
) {
  try {
    check();
  } catch (err) {
    if (!(err instanceof TemporalFlowError)) throw err;
    problems.push({ ...where, field: fieldOf(err), message: err.message });
  }
}

/**
 * A pipeline as this copy of temporal-flow takes it. A jobs file may build its pipelines with another
 * copy (a TypeScript file loaded next to a CLI installed elsewhere): such a pipeline is not an instance of
 * this copy's class, so its spec is taken instead (a concurrencyKey function stays with that copy).
 */
function ownPipeline(p: PipelineLike): PipelineLike {
  if (p instanceof Pipeline) return p;
  const spec = (p as { spec?: unknown } | null)?.spec;
  return typeof spec === 'object' && spec !== null && 'version' in spec ? (spec as PipelineLike) : p;
}

/** The pipelines of a set, by name. */
function pipelinesByName(def: JobSetDefinition, problems: JobSetProblem[]): Map<string, PipelineLike> {
  const byName = new Map<string, PipelineLike>();
  if (def.pipelines === undefined) return byName;
  if (!Array.isArray(def.pipelines)) {
    problems.push({ field: 'pipelines', message: 'pipelines must be an array of pipelines' });
    return byName;
  }
  def.pipelines.forEach((p: PipelineLike, i: number) =>
    collect(problems, {}, () => {
      let name: string;
      try {
        name = toPipelineSpec(ownPipeline(p)).name;
      } catch (err) {
        if (err instanceof InvalidArgumentError) {
          throw new InvalidArgumentError(`pipelines[${i}]`, err.message, { cause: err });
        }
        throw err;
      }
      if (byName.has(name)) {
        throw new InvalidArgumentError(`pipelines[${i}]`, `two pipelines are named "${name}"`);
      }
      byName.set(name, ownPipeline(p));
    }),
  );
  return byName;
}

/** A job's pipeline: by name among the set's, or given itself. */
function resolvePipeline(value: unknown, byName: Map<string, PipelineLike>): PipelineLike {
  if (typeof value === 'string') {
    const p = byName.get(value);
    if (p) return p;
    const known = [...byName.keys()];
    throw new InvalidArgumentError(
      'pipeline',
      `no pipeline "${value}" in the set's pipelines (${known.length > 0 ? known.map((n) => `"${n}"`).join(', ') : 'none given'}): add it to \`pipelines\`, or fix the name`,
    );
  }
  if (value === undefined) {
    throw new InvalidArgumentError('pipeline', "pipeline is required: a pipeline's name or the pipeline");
  }
  const p = ownPipeline(value as PipelineLike);
  toPipelineSpec(p);
  return p;
}

/** Checks one job entry's own shape (its options are compiled after). */
function checkEntry(
  entry: JobDefinition,
  byName: Map<string, PipelineLike>,
): CheckedJobDefinition['pipeline'] {
  checkOptionsObject(entry);
  if (entry.jobId === undefined) {
    throw new InvalidArgumentError('jobId', 'jobId is required: it is how the file and the namespace meet');
  }
  checkJobFields({ jobId: entry.jobId });
  if ('replaceExisting' in entry) {
    throw new InvalidArgumentError(
      'replaceExisting',
      'replaceExisting has no place in a jobs file: apply creates the jobs that do not exist and updates the others',
    );
  }
  if ('runAt' in entry) {
    throw new InvalidArgumentError(
      'runAt',
      'one-off jobs (runAt) have no place in a jobs file: once run they are deleted, and the next apply would create them again; use scheduleAt()',
    );
  }
  return resolvePipeline(entry.pipeline, byName);
}

/**
 * A jobs file: jobs as data, each with a required `jobId`, its pipeline (by name among `pipelines`, or
 * the pipeline itself) and the options of `schedule()`/`scheduleInterval()`. Checked now, offline, by the
 * code `schedule()` runs; `PipelineScheduler.plan()` checks again with its own defaults.
 *
 * ```ts
 * export default defineJobs({
 *   set: 'billing',
 *   pipelines: [invoices],
 *   jobs: [{ jobId: 'invoices-nightly', pipeline: 'invoices', cron: '0 2 * * *', timezone: 'Europe/Paris' }],
 * });
 * ```
 *
 * @throws JobSetError listing every problem, each with its job and option.
 */
export function defineJobs(def: JobSetDefinition): JobSet {
  const problems: JobSetProblem[] = [];
  if (typeof def !== 'object' || def === null || Array.isArray(def)) {
    throw new JobSetError(undefined, [
      {
        field: 'set',
        message: `a jobs file is an object { set, pipelines, jobs }, got ${describeValue(def)}`,
      },
    ]);
  }
  const set = typeof def.set === 'string' && SET_NAME.test(def.set) ? def.set : undefined;
  if (!set) {
    problems.push({
      field: 'set',
      message: `set must name the set: letters, digits, ".", "_" or "-", at most 100, got ${describeValue(def.set)}`,
    });
  }
  const byName = pipelinesByName(def, problems);
  if (!Array.isArray(def.jobs)) {
    problems.push({
      field: 'jobs',
      message: `jobs must be an array of jobs, got ${describeValue(def.jobs)}`,
    });
    throw new JobSetError(set, problems);
  }
  const jobs: CheckedJobDefinition[] = [];
  const seen = new Set<string>();
  def.jobs.forEach((entry: JobDefinition, index: number) => {
    const id = typeof entry?.jobId === 'string' && entry.jobId.trim() !== '' ? entry.jobId : undefined;
    const where = { ...(id !== undefined ? { jobId: id } : {}), index };
    const before = problems.length;
    let pipeline: PipelineLike | undefined;
    collect(problems, where, () => {
      pipeline = checkEntry(entry, byName);
    });
    if (problems.length > before || !pipeline || id === undefined) return;
    if (seen.has(id)) {
      problems.push({ ...where, field: 'jobId', message: `jobId "${id}" is listed twice` });
      return;
    }
    seen.add(id);
    const { pipeline: _p, ...options } = entry;
    const checked = { jobId: id, pipeline, options, index };
    collect(problems, where, () => {
      compileEntry(checked, OFFLINE_DEFAULTS);
    });
    jobs.push(checked);
  });
  if (problems.length > 0 || !set) throw new JobSetError(set, problems);
  return Object.defineProperty({ set, jobs }, JOB_SET_BRAND, { value: true });
}

function compileEntry(job: CheckedJobDefinition, defaults: JobDefaults): PreparedJob {
  return prepareJob(job.pipeline, job.options, defaults);
}

/**
 * Compiles every job of a checked set with a scheduler's defaults.
 *
 * @throws JobSetError listing every job that this scheduler refuses (an unknown step, say).
 */
export function prepareJobSet(set: JobSet, defaults: JobDefaults): Map<string, PreparedJob> {
  const problems: JobSetProblem[] = [];
  const prepared = new Map<string, PreparedJob>();
  for (const job of set.jobs) {
    collect(problems, { jobId: job.jobId, index: job.index }, () => {
      prepared.set(job.jobId, compileEntry(job, defaults));
    });
  }
  if (problems.length > 0) throw new JobSetError(set.set, problems);
  return prepared;
}

/** Marks the sets defineJobs made (a symbol of the global registry: a jobs file may load another copy). */
const JOB_SET_BRAND = Symbol.for('temporal-flow.job-set');

/** Whether a value is a set made by {@link defineJobs}. */
export function isJobSet(value: unknown): value is JobSet {
  return typeof value === 'object' && value !== null && JOB_SET_BRAND in value;
}

/** A set made by defineJobs, or a definition checked now (a JSON or YAML jobs file). */
export function toJobSet(value: JobSet | JobSetDefinition): JobSet {
  if (!isJobSet(value)) return defineJobs(value);
  // Made by defineJobs, perhaps of another copy: its pipelines as this copy takes them.
  const jobs = value.jobs.map((j) => ({ ...j, pipeline: ownPipeline(j.pipeline) }));
  return Object.defineProperty({ set: value.set, jobs }, JOB_SET_BRAND, { value: true });
}
