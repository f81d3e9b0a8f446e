import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/*
 * Stand-in commands for the unit tests of the tool finders (test/unit/find-chromium.test.ts,
 * test/unit/find-promtool.test.ts): small shell scripts that log how they were called.
 */

/** Writes an executable shell script with `body` at `file` (creating its folder); returns `file`. */
export async function writeScript(file: string, body: string): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

/** The lines a stand-in logged to `file`; none when it was never called. */
export async function logLines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
}
