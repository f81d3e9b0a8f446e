/*
 * A temporal-flow verb run by a client process (client-verb-process.ts) that the checker SIGKILLs a few
 * hundred milliseconds into it: a writer that dies between two calls of one verb. The call is recorded as
 * failed unless the verb returned first; the model then leaves its effect open, as for any failed call.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Call } from './history';

export interface VerbTarget {
  address: string;
  namespace: string;
  taskQueue: string;
  watchdogTaskQueue: string;
}

export async function killedVerb(
  target: VerbTarget,
  verb: 'pause' | 'resume' | 'modify',
  jobId: string,
  args: string[],
  afterMs: number,
  readyTimeoutMs: number,
): Promise<Call> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(__dirname, 'client-verb-process.ts'),
      target.address,
      target.namespace,
      target.taskQueue,
      target.watchdogTaskQueue,
      verb,
      jobId,
      ...args,
    ],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let out = '';
  let doneAt: number | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), readyTimeoutMs);
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('ready')) {
        clearTimeout(timer);
        resolve(true);
      }
      if (out.includes('done')) doneAt ??= Date.now();
    });
    void exited.then(() => resolve(false));
  });
  if (!(await ready)) {
    child.kill('SIGKILL');
    await exited;
    // Never sent: nothing of the verb reached the server.
    return { t0: Date.now(), t1: Date.now(), ok: false, error: 'client process not ready' };
  }
  const t0 = Date.now();
  child.stdin.write('go\n');
  const timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
  await exited;
  clearTimeout(timer);
  return doneAt !== undefined
    ? { t0, t1: doneAt, ok: true }
    : { t0, t1: Date.now(), ok: false, error: `client SIGKILLed ${afterMs} ms into ${verb}` };
}
