import type { ScheduleOverlapPolicy } from '@temporalio/client';

/*
 * Temporal's rules for a schedule's buffer of starts (the server's ProcessBuffer, service/worker/scheduler
 * buffer.go), read, not copied: ALLOW_ALL starts all at once; with nothing running the first other start
 * goes; the rest follow their policy: SKIP drops, BUFFER_ONE keeps the first, BUFFER_ALL keeps all,
 * CANCEL_OTHER / TERMINATE_OTHER keep it and end what runs (or replace the one about to start). An
 * entry's own policy (a trigger's or a backfill's) wins over the schedule's.
 */

/** One start waiting in the buffer. */
export interface BufferedStart<T> {
  overlap: ScheduleOverlapPolicy;
  item: T;
}

/** What one pass over the buffer decides. */
export interface BufferAction<T> {
  overlapping: T[];
  nonOverlapping: T | undefined;
  buffer: BufferedStart<T>[];
  skipped: T[];
  needCancel: boolean;
  needTerminate: boolean;
}

/** One pass over `buffer`, given whether a run the schedule tracks is open. */
export function processBuffer<T>(buffer: readonly BufferedStart<T>[], isRunning: boolean): BufferAction<T> {
  const a: BufferAction<T> = {
    overlapping: [],
    nonOverlapping: undefined,
    buffer: [],
    skipped: [],
    needCancel: false,
    needTerminate: false,
  };
  for (const start of buffer) {
    if (start.overlap === 'ALLOW_ALL') {
      a.overlapping.push(start.item);
      continue;
    }
    if (!isRunning && a.nonOverlapping === undefined) {
      a.nonOverlapping = start.item;
      continue;
    }
    switch (start.overlap) {
      case 'SKIP':
        a.skipped.push(start.item);
        break;
      case 'BUFFER_ONE':
        if (a.buffer.length === 0) a.buffer.push(start);
        else a.skipped.push(start.item);
        break;
      case 'BUFFER_ALL':
        a.buffer.push(start);
        break;
      case 'CANCEL_OTHER':
      case 'TERMINATE_OTHER':
        if (isRunning) {
          if (start.overlap === 'CANCEL_OTHER') a.needCancel = true;
          else a.needTerminate = true;
          a.buffer.push(start);
        } else {
          if (a.nonOverlapping !== undefined) a.skipped.push(a.nonOverlapping);
          a.nonOverlapping = start.item;
        }
        break;
    }
  }
  if (a.needCancel || a.needTerminate) a.overlapping = [];
  return a;
}
