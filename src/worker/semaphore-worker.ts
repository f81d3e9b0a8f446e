import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { slotActivitiesOn } from '../activities/semaphore/slot-activities';

/*
 * The worker of the namespace's semaphores (a job's `maxInstances`, a pipeline's `concurrencyKey`) on the
 * semaphore queue (`tflow-semaphores` by default), which createWorker runs beside every worker: a semaphore
 * is then served as long as any worker of the namespace runs, whatever queue its runs come from. The SDK
 * refuses two workers of one connection on the same namespace and queue, so the workers createWorker makes
 * on one connection share one semaphore worker: it runs while any of them runs.
 */

/** What the semaphore worker is made of: the options of the first worker that needs it. */
export type SemaphoreWorkerOptions = Omit<
  WorkerOptions,
  'activities' | 'workflowsPath' | 'bundlerOptions'
> & { connection: NativeConnection; namespace: string };

/** A worker's share of its connection's semaphore worker, run and shut down with it (withCompanions). */
export interface SemaphoreWorkerShare {
  /** Runs the semaphore worker if no other share runs it; resolves once this share is shut down. */
  run(): Promise<void>;
  shutdown(): void;
  getState(): 'INITIALIZED' | 'RUNNING' | 'STOPPED';
}

/** A semaphore worker and its run(), until it ends. */
interface Running {
  worker: Worker;
  done: Promise<void>;
}

/** One connection, namespace and queue's semaphore worker and the shares that run it. */
interface Shared {
  running: number;
  /** The worker being created or running; cleared when its run ends. */
  current?: Promise<Running>;
}

/** By connection, then by namespace and queue. */
const sharedByConnection = new WeakMap<NativeConnection, Map<string, Shared>>();

function sharedFor({ connection, namespace, taskQueue }: SemaphoreWorkerOptions): Shared {
  let byQueue = sharedByConnection.get(connection);
  if (!byQueue) sharedByConnection.set(connection, (byQueue = new Map<string, Shared>()));
  const at = JSON.stringify([namespace, taskQueue]);
  let shared = byQueue.get(at);
  if (!shared) byQueue.set(at, (shared = { running: 0 }));
  return shared;
}

/** The running semaphore worker, started unless it runs (after the end of one still stopping). */
async function ensureRunning(shared: Shared, options: SemaphoreWorkerOptions): Promise<Running> {
  for (;;) {
    if (!shared.current) break;
    const running = await shared.current;
    if (running.worker.getState() === 'RUNNING') return running;
    await running.done.catch(() => undefined);
  }
  const current = (async (): Promise<Running> => {
    const worker = await Worker.create({ ...options, activities: slotActivitiesOn(options.taskQueue) });
    const done = worker.run().finally(() => {
      if (shared.current === current) shared.current = undefined;
    });
    return { worker, done };
  })();
  shared.current = current;
  current.catch(() => {
    if (shared.current === current) shared.current = undefined;
  });
  return current;
}

/**
 * A share of the semaphore worker of `options.connection`, namespace and task queue: the first share to run starts it
 * (with its options), the last to shut down stops it and waits for its end, and a failure of the semaphore
 * worker fails every share's run().
 */
export function shareSemaphoreWorker(options: SemaphoreWorkerOptions): SemaphoreWorkerShare {
  const shared = sharedFor(options);
  let state: ReturnType<SemaphoreWorkerShare['getState']> = 'INITIALIZED';
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    getState: () => state,
    async run() {
      if (state !== 'INITIALIZED') throw new Error('a semaphore worker share runs once');
      state = 'RUNNING';
      shared.running++;
      try {
        const { done } = await ensureRunning(shared, options);
        // Shut down with its worker, or ended with the semaphore worker (a failure is thrown).
        await Promise.race([released, done]);
      } finally {
        state = 'STOPPED';
        if (--shared.running === 0 && shared.current) {
          const last = await shared.current.catch(() => undefined);
          // Unless a share started to run meanwhile. A worker already stopping (the SDK's runtime shuts
          // every worker down on SIGINT itself) is waited for too: else this run() returned before the
          // semaphore worker let go of the connection, and closing it threw "Cannot close connection while
          // Workers hold a reference to it" (npm start stopped with Ctrl-C soon after it started).
          if (shared.running === 0 && last) {
            if (last.worker.getState() === 'RUNNING') last.worker.shutdown();
            // So that the connection can be closed once the worker's run() returns.
            await last.done.catch(() => undefined);
          }
        }
      }
    },
    shutdown() {
      release();
    },
  };
}
