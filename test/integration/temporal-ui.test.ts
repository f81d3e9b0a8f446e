import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { readEnv } from '../../src/config';
import { DevServer } from '../../src/devserver';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { pipeline } from '../../src/pipeline';
import { createWorker } from '../../src/worker/create-worker';
import { APT_TIMEOUT_MS, launchChromium } from '../helpers/chromium';
import { connectTest, type TestContext } from '../helpers/temporal';

/*
 * The Temporal Web UI tells a run's story: a dev server of the test's own with its UI (the suite's server
 * is headless), a run held in its second step, and the run page loaded in headless Chromium (CHROMIUM, then
 * PATH, then Debian's `chromium` installed when root: test/helpers/chromium.ts; without one the test fails
 * saying why). The screenshot is kept in test-artifacts/ (gitignored).
 */
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');

let suite: TestContext;
let server: DevServer;
let nativeConnection: NativeConnection;
let connection: Connection;
let worker: Worker;
let running: Promise<void>;
let browser: Browser;
let release: () => void;
const held = new Promise<void>((resolve) => (release = resolve));

const steps = {
  async extract(region: string) {
    return `${region}-rows`;
  },
  async transform(rows: string) {
    await held;
    return rows.toUpperCase();
  },
  async load(rows: string) {
    return rows.length;
  },
};

// Its own hook and deadline: installing Debian's package takes minutes on a machine without a browser.
beforeAll(
  async () => {
    browser = await launchChromium();
  },
  3 * APT_TIMEOUT_MS + 60_000,
);

beforeAll(async () => {
  suite = await connectTest('ui'); // installs the quiet logger shared by the suite's tests
  const env = readEnv();
  server = await DevServer.start({
    home: env.home,
    cliPath: inject('temporalCli'),
    searchPath: env.path,
    db: 'memory',
    port: 0,
    uiPort: 0,
  });
  nativeConnection = await NativeConnection.connect({ address: server.address });
  connection = await Connection.connect({ address: server.address });
  worker = await createWorker({
    connection: nativeConnection,
    taskQueue: 'ui',
    steps,
    workflowBundle: { codePath: inject('workflowBundlePath') },
  });
  running = worker.run();
}, 180_000);

afterAll(async () => {
  release?.();
  await browser?.close();
  if (worker?.getState() === 'RUNNING') worker.shutdown();
  await running;
  await nativeConnection?.close();
  await connection?.close();
  await server?.stop();
  await suite?.close();
});

describe('the Temporal UI', () => {
  it("shows a run's pipeline, its steps and its current step on the run page", async () => {
    const client = new PipelineClient(new Client({ connection }), { taskQueue: 'ui', steps });
    const etl = pipeline('nightly-etl', { steps })
      .step('extract', { retry: { maximumAttempts: 5 } })
      .step('transform')
      .step('load');
    const handle = await client.start(etl, ['eu'], { workflowId: 'ui-nightly-etl' });
    // Wait until the run is held in its second step.
    await expect
      .poll(async () => (await handle.query<{ currentStep: string | null }>('progress')).currentStep, {
        timeout: 20_000,
      })
      .toBe('transform');
    const { runId } = await handle.describe();

    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    await page.goto(`${server.uiUrl}/namespaces/default/workflows/${handle.workflowId}/${runId}/history`);
    // The page's text, with that of the frames the UI renders Markdown in.
    const frameTexts = () =>
      Promise.all(
        page.frames().map(async (f) =>
          (
            await f
              .locator('body')
              .innerText({ timeout: 5_000 })
              .catch(() => '')
          ).trim(),
        ),
      );
    const pageText = async () => (await frameTexts()).join('\n');
    // The run page's history names each step: a step named as its activity by its activity type (it has no
    // summary of its own since eb57bfd: the type says it).
    await expect.poll(pageText, { timeout: 30_000 }).toMatch(/Activity Type\s+transform/);
    // Its User Metadata tab: the static summary and steps, and the workflow's current details (a query).
    await page.getByText('User Metadata', { exact: true }).click();
    await expect.poll(pageText, { timeout: 30_000 }).toContain('Current step: transform');
    const text = await pageText();
    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'temporal-ui-run-page.png'), fullPage: true });
    expect(await frameTexts()).toContain('nightly-etl'); // the summary, a frame of its own
    expect(text).toMatch(/Pipeline nightly-etl/);
    expect(text).toMatch(/extract: 5 attempts\s+transform\s+load/); // an ordered list: its numbers are not text
    expect(text).toMatch(/Pipeline: nightly-etl\s+Status: running\s+Current step: transform\s+Done: extract/);
    await page.close();

    release();
    await handle.result();
  });
});
