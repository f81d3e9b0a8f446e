import path from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/*
 * The import fence of eslint.config.mjs (layers, features, the workflow sandbox), held against probe
 * files at real places of the tree: each forbidden import is an error, each allowed one is not. Only the
 * fence's rule is kept (no type-aware rules), so the probes need not exist on disk.
 */
const root = path.resolve(__dirname, '../..');

async function fenceLinter(): Promise<ESLint> {
  const { default: config } = (await import(path.join(root, 'eslint.config.mjs'))) as {
    default: Linter.Config[];
  };
  const fence = config
    .filter((c) => c.rules?.['no-restricted-imports'])
    .map((c) => ({ ...c, rules: { 'no-restricted-imports': c.rules!['no-restricted-imports']! } }));
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, ...fence],
  });
}

async function errorsOf(file: string, code: string): Promise<string[]> {
  const [result] = await (await fenceLinter()).lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

describe('the import fence', () => {
  it.each([
    ['runs never use jobs', 'src/client/runs/probe.ts', "import { listJobRuns } from '../jobs/job-history';"],
    [
      'dead letters use no feature',
      'src/client/dead-letters/probe.ts',
      "import { startRun } from '../runs/run-start';",
    ],
    [
      'the store never uses the jobs files above it',
      'src/client/jobs/store/probe.ts',
      "import type { JobStats } from '../job-types';",
    ],
    [
      'the client root uses no feature',
      'src/client/probe.ts',
      "import type { JobRun } from './runs/run-types';",
    ],
    [
      'the interpreter never uses a guard',
      'src/workflows/run/probe.ts',
      "import { judgedOccurrence } from '../guards/coalesce';",
    ],
    [
      'no workflow feature imports the entry point',
      'src/workflows/alerts/probe.ts',
      "import { pipelineWorkflow } from '../pipeline-workflow';",
    ],
    [
      'workflows never import activities, not even types',
      'src/workflows/guards/probe.ts',
      "import type { schedulerActivities } from '../../activities/scheduler-activities';",
    ],
    [
      'workflow code never imports a Node built-in',
      'src/workflows/semaphore/probe.ts',
      "import { readFileSync } from 'node:fs';",
    ],
    [
      'parse/ never imports schedule/ (a higher layer)',
      'src/parse/probe.ts',
      "import { ZoneClock } from '../schedule/zone-clock';",
    ],
    [
      'config.ts never imports devserver/',
      'src/config.ts',
      "import { devServerDynamicConfig } from './devserver/dynamic-config';",
    ],
    [
      'activities never import the worker',
      'src/activities/alerts/probe.ts',
      "import { logEvent } from '../../worker/run-events';",
    ],
    [
      'activity features never import each other',
      'src/activities/alerts/probe.ts',
      "import { slotActivities } from '../semaphore/slot-activities';",
    ],
  ])('refuses: %s', async (_what, file, code) => {
    const errors = await errorsOf(file, code);
    expect(errors.length).toBe(1);
    expect(errors[0]).toMatch(/^no-restricted-imports: /);
  });

  it.each([
    ['jobs use runs', 'src/client/jobs/probe.ts', "import { toRun } from '../runs/run-visibility';"],
    [
      'the store uses runs',
      'src/client/jobs/store/probe.ts',
      "import { startRun } from '../../runs/run-start';",
    ],
    [
      'a feature uses its role root',
      'src/client/runs/probe.ts',
      "import { RunNotFoundError } from '../errors';",
    ],
    [
      'guards use run/ and the semaphore',
      'src/workflows/guards/probe.ts',
      "import { runPipeline } from '../run/interpreter';\nimport { semaphoreWorkflowId } from '../semaphore/semaphore-defs';",
    ],
    [
      'the workflows entry point uses its features',
      'src/workflows/index.ts',
      "export { jobSemaphoreWorkflow } from './semaphore/semaphore-workflow';",
    ],
    [
      'workflow code imports a lower layer',
      'src/workflows/run/probe.ts',
      "import type { PipelineSpec } from '../../pipeline/spec';",
    ],
    [
      'the worker imports activities',
      'src/worker/probe.ts',
      "import { schedulerActivities } from '../activities/scheduler-activities';",
    ],
  ])('allows: %s', async (_what, file, code) => {
    expect(await errorsOf(file, code)).toEqual([]);
  });
});
