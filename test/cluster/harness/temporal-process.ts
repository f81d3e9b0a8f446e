import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { Connection } from '@temporalio/client';
import { waitFor } from '../../helpers/wait-for';

/** A Temporal server process of the harness; plain data, so that test files can kill and restart it. */
export interface TemporalLayout {
  binary: string;
  configFile: string;
  /** Holds the pid of the running server; the process may belong to another process than ours. */
  pidFile: string;
  logFile: string;
  /** `127.0.0.1:<port>` of the frontend. */
  address: string;
}

/**
 * Starts the server detached (its own process group, output appended to the log) and records its pid,
 * so that it outlives the test process that started it and whoever holds the layout can stop it.
 */
export async function startTemporal(layout: TemporalLayout, timeoutMs = 120_000): Promise<void> {
  const log = openSync(layout.logFile, 'a');
  const child = spawn(layout.binary, ['--config-file', layout.configFile, '--allow-no-auth', 'start'], {
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = `exited with ${signal ?? `code ${code}`}`));
  child.unref();
  await writeFile(layout.pidFile, String(child.pid));
  const deadline = Date.now() + timeoutMs;
  let failure: string | undefined;
  for (;;) {
    if (exited) failure = exited;
    else if (await serverAnswers(layout.address)) return;
    else if (Date.now() > deadline) failure = `no answer on ${layout.address} within ${timeoutMs} ms`;
    if (failure) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const tail = (await readFile(layout.logFile, 'utf8').catch(() => '')).split('\n').slice(-30).join('\n');
  throw new Error(`Temporal server did not start (${failure}); log ${layout.logFile}:\n${tail}`);
}

/** True when the frontend answers a system-info call. */
export async function serverAnswers(address: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 }).catch(() => undefined);
  if (!connection) return false;
  try {
    await connection.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  } finally {
    await connection.close();
  }
}

/** Pid of the recorded server when it still runs (and is a temporal-server, not a reused pid). */
export function runningPid(layout: TemporalLayout): number | undefined {
  if (!existsSync(layout.pidFile)) return undefined;
  const pid = Number(readFileSync(layout.pidFile, 'utf8'));
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return cmdline.includes(layout.binary) && state !== 'Z' ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Sends `signal` to the server and waits until it is gone (SIGKILL after 15 s for a SIGTERM). */
export async function stopTemporal(layout: TemporalLayout, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  const pid = runningPid(layout);
  if (pid === undefined) return;
  process.kill(pid, signal);
  try {
    await waitFor(
      'Temporal server to exit',
      async () => (runningPid(layout) === undefined ? true : undefined),
      15_000,
    );
  } catch {
    process.kill(pid, 'SIGKILL');
    await waitFor(
      'Temporal server to exit',
      async () => (runningPid(layout) === undefined ? true : undefined),
      10_000,
    );
  }
  await rm(layout.pidFile, { force: true });
}
