/*
 * Names and shapes of the semaphore, shared by the semaphore workflow, the pipeline run that holds a slot
 * and the activities that ask for one. One workflow type serves two kinds of semaphore: one per job id
 * (`maxInstances: N > 1`, `acquireSlot`: refused when full) and one per pipeline and concurrency key
 * (`concurrencyKey`, `queueForSlot`: queued when full). Persisted in histories: never rename the type,
 * update or signal names (the type's value says "job" for the first kind only: it is kept as it was);
 * add optional fields only.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { WhenFull } from '../../pipeline/concurrency';

/** Workflow type of both kinds of semaphore (a job's, a concurrency key's): persisted, see above. */
export const SEMAPHORE_WORKFLOW_TYPE = 'jobSemaphoreWorkflow';

/**
 * The task queue semaphores run on, whatever queue the run that started one (or asks it) came from:
 * createWorker polls it beside the worker's own queue, so a semaphore is served as long as any worker of
 * the namespace runs. Before, a semaphore ran on the queue of the run that started it, and runs of the same
 * pipeline (or job) from another queue waited for good once that queue had no worker. Persisted (the queue
 * of running semaphores): never rename it.
 */
export const SEMAPHORE_TASK_QUEUE = 'tflow-semaphores';

/**
 * The semaphore queue of workers with a payload codec (createWorker's default when given `codec`): a worker
 * without the codec cannot read their semaphores' payloads, nor they a plain worker's. Persisted: never
 * rename it.
 */
export const CODEC_SEMAPHORE_TASK_QUEUE = 'tflow-semaphores-codec';

/** Workflow id of the semaphore of a job: one per job id, in the job's namespace. */
export function semaphoreWorkflowId(jobId: string): string {
  return `tflow-semaphore:${jobId}`;
}

/** A run holding (or asking for) a slot. */
export interface SlotHolder {
  workflowId: string;
  runId: string;
  /**
   * The run's concurrency key, in the one semaphore of a pipeline with `maxConcurrentTotal` (all its keys);
   * absent in a semaphore of one key or of a job. Persisted field name.
   */
  key?: string;
}

export interface SlotRequest extends SlotHolder {
  /**
   * How many slots the semaphore grants at most: the job's `maxInstances` (an `acquireSlot` beyond it is
   * refused) or the pipeline's `maxConcurrent` for a concurrency key (a `queueForSlot` beyond it waits in
   * line). Persisted field name.
   */
  max: number;
  /** The pipeline's `maxConcurrentTotal`: slots across all keys of the semaphore. Persisted field name. */
  total?: number;
  /** What the run does when it cannot have a slot now (absent: it queues). Persisted field name. */
  whenFull?: Exclude<WhenFull, 'queue'>;
  /**
   * The semaphore queue of the asking worker (its createWorker's `semaphoreTaskQueue`): a semaphore running
   * on another queue moves there (see {@link SEMAPHORE_OWN_QUEUE_PATCH}); absent from asks of workers from
   * before it. Persisted field name.
   */
  queue?: string;
}

/**
 * Workflow id of the semaphore of a pipeline's concurrency key (`pipeline(name, { concurrencyKey,
 * maxConcurrent })`): one per pipeline name and key, in the namespace, whatever started the run.
 */
export function concurrencySemaphoreId(pipeline: string, key: string): string {
  return `tflow-concurrency:${pipeline}:${key}`;
}

/**
 * Workflow id of the one semaphore of a pipeline with `maxConcurrentTotal`: every key of the pipeline asks
 * it, so that it can bound the total and serve the keys' lines round-robin.
 */
export function concurrencyTotalSemaphoreId(pipeline: string): string {
  return `tflow-concurrency-total:${pipeline}`;
}

/** State carried across continue-as-new. */
export interface SemaphoreState {
  holders: SlotHolder[];
  /** Runs waiting for a slot, first come first served (`queueForSlot`); absent before it existed. */
  waiting?: SlotRequest[];
  /**
   * When the next liveness check is due (epoch ms), so that a continue-as-new does not put it off;
   * absent before {@link SEMAPHORE_LIVENESS_PATCH}.
   */
  livenessCheckDueAt?: number;
  /** Keys with runs in line, the one served least recently first (round-robin); absent: one key. */
  rotation?: string[];
  /** Holders asked to cancel (`cancel-in-progress`) that have not given their slot back yet. */
  cancelling?: SlotHolder[];
}

/**
 * Patch of the semaphore's liveness check: a check frees only the runs it asked about and found dead (never
 * a run that asked or was granted a slot while it waited for the answer), one check runs at a time, a
 * check that cannot get an answer frees nothing, and checks run every minute counted
 * from the last one, whatever the traffic (before, every request or release put the check off again).
 */
export const SEMAPHORE_LIVENESS_PATCH = 'tflow-semaphore-liveness-checked';

/**
 * Patch of a run waiting in a concurrency key's line: it waits for `slotGranted` at most
 * a minute, then asks the semaphore again (before, it waited for good). Asking again is
 * idempotent: a run in line keeps its place, a run granted meanwhile gets `granted`, a run the semaphore
 * does not know (a semaphore terminated or reset by hand) is queued again, by a new semaphore if need be.
 */
export const SLOT_REASK_PATCH = 'tflow-concurrency-slot-reask';

/**
 * Patch of the semaphore's liveness check as a local activity (before, a regular activity on the worker's
 * task queue): the runs that ask for a slot wait for the answer inside an activity of their own, so when
 * every activity slot of the worker is taken by runs asking a full semaphore, a check queued behind them
 * could not run until their asks timed out, again and again under a flood of runs. A local activity runs
 * in the worker's local-activity slots, beside the semaphore's workflow task.
 */
export const SEMAPHORE_LOCAL_CHECK_PATCH = 'tflow-semaphore-local-check';

/**
 * Patch of the semaphore's liveness check as a regular activity on the semaphore's own task queue again
 * (after {@link SEMAPHORE_LOCAL_CHECK_PATCH}): since {@link SEMAPHORE_TASK_QUEUE} the check runs on the
 * semaphore worker, whose activity slots the asking runs never take, so the reason for the local activity
 * is gone, and the local activity made the semaphore's history unreplayable: a check that ran past the
 * workflow task's heartbeat (8 s of its 10 s timeout: a long line on a loaded worker) left the task it
 * started in, and replay ordered the commands of the handlers that ran meanwhile (grants, update answers)
 * and of the main loop (its timer) differently, so every later workflow task failed with a
 * nondeterminism error (`Signal external WF machine does not handle this event: ... TimerCanceled`,
 * `Update machine does not handle ... TimerCanceled`) once the semaphore was replayed (a worker restarted
 * or killed, its cache evicted): its runs waited for good. A regular activity's answer is an event of its
 * own, which replay reads in place.
 */
export const SEMAPHORE_CHECK_ACTIVITY_PATCH = 'tflow-semaphore-check-activity';

/**
 * Patch of a semaphore asked by a worker whose semaphore queue ({@link SlotRequest.queue}) is not the one it
 * runs on (a semaphore started on a run's own queue by a worker from before {@link SEMAPHORE_TASK_QUEUE}):
 * once the ask is answered, it continues as new on that queue, its holders, lines and liveness clock
 * carried over (before, it stayed on the queue that started it).
 */
export const SEMAPHORE_OWN_QUEUE_PATCH = 'tflow-semaphore-own-queue';

/** Update: true when the slot is granted (idempotent for a holder that has it), false when the job is full. */
export const acquireSlotUpdate = defineUpdate<boolean, [SlotRequest]>('acquireSlot');
/** Signal: the run gives its slot back (sent from its `finally`, even on failure or cancellation). */
export const releaseSlotSignal = defineSignal<[SlotHolder]>('releaseSlot');
/** Query: the runs holding a slot now. */
export const holdersQuery = defineQuery<SlotHolder[]>('holders');
/**
 * Update: a slot now (`granted`), or a place in the queue (`queued`): the semaphore then signals
 * {@link slotGrantedSignal} to the run when a slot frees up, in the order the runs of a key queued and
 * round-robin across keys. `refused`: full, and the request says `whenFull: 'skip' | 'cancel-newest'`.
 */
export const queueForSlotUpdate = defineUpdate<SlotAnswer, [SlotRequest]>('queueForSlot');

/** The answer of {@link queueForSlotUpdate}. */
export type SlotAnswer = 'granted' | 'queued' | 'refused';
/** Signal to a queued run: it holds a slot now. */
export const slotGrantedSignal = defineSignal('slotGranted');
/** Query: the runs waiting for a slot, first in line first. */
export const waitingQuery = defineQuery<SlotHolder[]>('waiting');

/**
 * The semaphore's activities (activities/semaphore/slot-activities.ts implements them, the worker registers
 * them with schedulerActivities; persisted names: never rename one).
 */
export interface SemaphoreActivities {
  /** A slot of a job's semaphore, starting the semaphore if it is not running. */
  tflowAcquireSlot: (req: SlotRequest & { jobId: string }) => Promise<boolean>;
  /** A slot of a concurrency key's semaphore, or a place in its queue. */
  tflowQueueForSlot: (req: SlotRequest & { semaphoreId: string }) => Promise<SlotAnswer>;
  /** Which of these holders still run (`<workflowId>/<runId>`). */
  tflowLiveHolders: (holders: SlotHolder[]) => Promise<string[]>;
}
