import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureTemporalCli, findTemporalCli, projectCliPath } from '../../src/devserver/find-cli';
import { TemporalCliNotFoundError } from '../../src/devserver/errors';

let dir: string;

/** A stand-in `temporal` that answers `--version` like the real one, saying where it lives. */
async function fakeCli(file: string, version = 'temporal version 9.9.9'): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\necho "${version} (${file})"\n`);
  await chmod(file, 0o755);
  return file;
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tflow-cli-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('findTemporalCli: TEMPORAL_CLI, then PATH, then the project-local install', () => {
  it('prefers TEMPORAL_CLI over PATH and the project', async () => {
    const explicit = await fakeCli(path.join(dir, 'explicit', 'temporal'));
    const onPath = await fakeCli(path.join(dir, 'bin', 'temporal'));
    await fakeCli(projectCliPath(path.join(dir, 'home')));
    const { cli } = await findTemporalCli({
      explicitPath: explicit,
      searchPath: path.dirname(onPath),
      home: path.join(dir, 'home'),
    });
    expect(cli).toEqual({
      path: explicit,
      source: 'TEMPORAL_CLI',
      version: `temporal version 9.9.9 (${explicit})`,
    });
  });

  it('uses PATH when TEMPORAL_CLI is not set', async () => {
    const onPath = await fakeCli(path.join(dir, 'bin', 'temporal'));
    const { cli, tried } = await findTemporalCli({
      searchPath: `/nonexistent${path.delimiter}${path.dirname(onPath)}`,
      home: dir,
    });
    expect(cli?.source).toBe('PATH');
    expect(cli?.path).toBe(onPath);
    expect(tried).toEqual(['TEMPORAL_CLI: not set']);
  });

  it('falls back to the project-local install, and says what it tried before', async () => {
    const home = path.join(dir, 'home');
    const local = await fakeCli(projectCliPath(home));
    const { cli, tried } = await findTemporalCli({
      explicitPath: path.join(dir, 'missing'),
      searchPath: '/nonexistent',
      home,
    });
    expect(cli).toMatchObject({ path: local, source: 'project' });
    expect(tried).toEqual([
      'PATH: no "temporal" in 1 folders',
      `TEMPORAL_CLI: ${path.join(dir, 'missing')} does not exist or is not executable`,
    ]);
  });

  it('skips a candidate that does not run', async () => {
    const broken = path.join(dir, 'bin', 'temporal');
    await mkdir(path.dirname(broken), { recursive: true });
    await writeFile(broken, '#!/bin/sh\nexit 3\n');
    await chmod(broken, 0o755);
    const { cli, tried } = await findTemporalCli({ searchPath: path.dirname(broken), home: dir });
    expect(cli).toBeUndefined();
    expect(tried[1]).toMatch(/^PATH: .*temporal --version failed: Command failed/);
  });

  it('throws a typed error listing every attempt and the ways out when nothing is found', async () => {
    const err = await ensureTemporalCli({ searchPath: '/nonexistent', home: dir, install: false }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TemporalCliNotFoundError);
    const e = err as TemporalCliNotFoundError;
    expect(e.code).toBe('TEMPORAL_CLI_NOT_FOUND');
    expect(e.attempts).toEqual([
      'TEMPORAL_CLI: not set',
      'PATH: no "temporal" in 1 folders',
      `project: ${projectCliPath(dir)} does not exist or is not executable`,
    ]);
    expect(e.message).toContain('npx tflow install-server');
    expect(e.message).toContain('TEMPORAL_ADDRESS');
  });
});
