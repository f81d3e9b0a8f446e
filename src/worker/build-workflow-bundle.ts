/*
 * `npm run build`'s second half: writes the workflow bundles into dist/workflow-bundle.js (and
 * dist/workflow-bundle-traced.js, for `tracing`; dist/alert-workflow-bundle.js, the alert worker's), next to the compiled code it was bundled from (run as `node dist/worker/build-workflow-bundle.js` after tsc).
 */
import { writeFile } from 'node:fs/promises';
import {
  buildAlertWorkflowBundle,
  buildWorkflowBundle,
  PREBUILT_ALERT_WORKFLOW_BUNDLE_PATH,
  PREBUILT_TRACED_WORKFLOW_BUNDLE_PATH,
  PREBUILT_WORKFLOW_BUNDLE_PATH,
} from './workflow-bundle';

async function main(): Promise<void> {
  const quiet = () => undefined;
  const logger = {
    trace: quiet,
    debug: quiet,
    info: quiet,
    log: quiet,
    warn: console.warn,
    error: console.error,
  };
  // The plain bundle, and the one of a worker with `tracing` (Temporal's OpenTelemetry interceptors too).
  for (const [traced, file] of [
    [false, PREBUILT_WORKFLOW_BUNDLE_PATH],
    [true, PREBUILT_TRACED_WORKFLOW_BUNDLE_PATH],
  ] as const) {
    const { code } = await buildWorkflowBundle(logger, { traced });
    await writeFile(file, code);
    console.log(`workflow bundle: ${file} (${(code.length / 1024).toFixed(0)} KiB)`);
  }
  // The alert worker's: its workflows only.
  const { code } = await buildAlertWorkflowBundle(logger);
  await writeFile(PREBUILT_ALERT_WORKFLOW_BUNDLE_PATH, code);
  console.log(
    `workflow bundle: ${PREBUILT_ALERT_WORKFLOW_BUNDLE_PATH} (${(code.length / 1024).toFixed(0)} KiB)`,
  );
}

if (require.main === module) {
  void main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
