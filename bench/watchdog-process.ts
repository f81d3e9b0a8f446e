/*
 * The alert worker of the benches that create jobs with alerts (jobs-at-rest, scheduler-ops), in a process
 * of its own (bench/jobs-at-rest-worker.ts, compiled for plain node against dist/ as a user runs it) so that
 * its RSS and CPU are its own and its load is off the bench's process. It runs until its stdin closes:
 * `child.stdin.end()`, or the bench dying. Builds dist/ first when its workflow bundle is missing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { compileForNode } from './compile-for-node';

const root = path.resolve(__dirname, '..');

/**
 * How the alert worker process is started: `default`, plain `node`; `tuned`, with a smaller young generation
 * in each V8 isolate and two glibc malloc arenas; `jemalloc`, the same young generation with jemalloc
 * preloaded in place of glibc's malloc (docs/operations.md: what a process of the alert worker alone is
 * advised to run with).
 */
export type AlertWorkerProcess = 'default' | 'tuned' | 'jemalloc';
export const TUNED_NODE_FLAGS = ['--max-semi-space-size=1'];
export const TUNED_ENV = { MALLOC_ARENA_MAX: '2' };

/** Where Debian's and most distributions' `libjemalloc2` package puts the library. */
const JEMALLOC_PATHS = [
  '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
  '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2',
  '/usr/lib64/libjemalloc.so.2',
  '/usr/lib/libjemalloc.so.2',
  '/usr/local/lib/libjemalloc.so.2',
];

/** The jemalloc library to preload, or undefined when none is installed (`apt-get install libjemalloc2`). */
export function jemallocPath(): string | undefined {
  return JEMALLOC_PATHS.find((p) => existsSync(p));
}

function processSettings(mode: AlertWorkerProcess): { flags: string[]; env: Record<string, string> } {
  if (mode === 'default') return { flags: [], env: {} };
  if (mode === 'tuned') return { flags: TUNED_NODE_FLAGS, env: TUNED_ENV };
  const lib = jemallocPath();
  if (!lib)
    throw new Error(
      'no libjemalloc.so.2 found: apt-get install libjemalloc2, or leave out the jemalloc mode',
    );
  return { flags: TUNED_NODE_FLAGS, env: { LD_PRELOAD: lib } };
}

/**
 * The alert worker process, once it polls `taskQueue`: bench/<script>.ts compiled (default
 * jobs-at-rest-worker, which prints nothing more; alert-storm-worker prints its checks).
 */
export async function startWatchdogWorker(
  address: string,
  taskQueue: string,
  script = 'jobs-at-rest-worker',
  mode: AlertWorkerProcess = 'default',
): Promise<ChildProcess> {
  if (!existsSync(path.join(root, 'dist/workflow-bundle.js'))) {
    console.log('dist/workflow-bundle.js is missing: running npm run build first');
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  }
  const js = await compileForNode(script);
  const { flags, env } = processSettings(mode);
  const child = spawn(process.execPath, [...flags, js, address, taskQueue], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const lines = out.split('\n');
      out = lines.pop()!;
      for (const line of lines) {
        if (line === 'ready') resolve();
        const heap = /^heap (\S+) (\S+) (\S+)$/.exec(line);
        if (heap)
          lastHeap.set(child, {
            usedMb: Number(heap[1]),
            totalMb: Number(heap[2]),
            externalMb: Number(heap[3]),
          });
      }
    });
    child.once('exit', (code) => reject(new Error(`the alert worker exited with ${code}`)));
  });
  return child;
}

/** V8's heap in an alert worker process, as it last printed it (jobs-at-rest-worker only). */
export interface WorkerHeap {
  usedMb: number;
  totalMb: number;
  externalMb: number;
}
const lastHeap = new WeakMap<ChildProcess, WorkerHeap>();

/** The heap `worker` last printed, if any. */
export function workerHeap(worker: ChildProcess): WorkerHeap | undefined {
  return lastHeap.get(worker);
}

/** Ends the alert worker process: closes its stdin (it shuts down), and kills it if it has not gone in 20 s. */
export async function stopWatchdogWorker(worker: ChildProcess | undefined): Promise<void> {
  if (!worker || worker.exitCode !== null) return;
  worker.stdin!.end();
  const exited = new Promise((r) => worker.once('exit', r));
  const killer = setTimeout(() => worker.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(killer);
}
