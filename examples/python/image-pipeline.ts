/*
 * An image pipeline whose middle steps are served by the Python worker of this folder (worker.py,
 * image_steps.py): fetchImage and the compensations run in TypeScript, resize and publish in Python, on
 * the task queue the pipeline declares for them. docs/python-steps.md walks through it.
 */
import { ApplicationFailure } from '@temporalio/common';
import { pipeline } from 'temporal-flow';

/** An image to process: the run's one argument. */
export interface Image {
  url: string;
  width: number;
}

/** What the TypeScript worker serves (createWorker({ steps: imageSteps })). `undone` records compensations. */
export function imageSteps(undone: string[] = []) {
  return {
    async fetchImage(image: Image): Promise<Image & { fetched: true }> {
      if (!image.url.startsWith('https://')) {
        throw ApplicationFailure.nonRetryable(`not an https URL: ${image.url}`, 'BadImageUrl');
      }
      return { ...image, fetched: true };
    },
    async discardImage(image: Image): Promise<void> {
      undone.push(`discardImage ${image.url}`);
    },
    /** Undoes Python's resize: called with resize's argument, then its result. */
    async unresize(_image: Image, resized: { thumbnail: string }): Promise<void> {
      undone.push(`unresize ${resized.thumbnail}`);
    },
  };
}

/** The task queue of the Python worker (its TFLOW_PY_TASK_QUEUE). */
export const PY_STEPS = 'py-steps';

/** fetch (TypeScript) -> resize, publish (Python); a failure undoes resize and fetch in TypeScript. */
export function imagePipeline(pyQueue = PY_STEPS, name = 'images') {
  return pipeline(name, { steps: imageSteps(), remote: { resize: pyQueue, publish: pyQueue } })
    .step('fetchImage', { compensate: 'discardImage' })
    .step('resize', { compensate: 'unresize', heartbeat: '30s', retry: { maximumAttempts: 3 } })
    .step('publish', { retry: { maximumAttempts: 2, initialInterval: '200ms' } });
}
