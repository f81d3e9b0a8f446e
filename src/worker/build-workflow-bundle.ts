/*
 * `npm run build`'s second half: writes the workflow bundle into dist/workflow-bundle.js, next to the
 * compiled code it was bundled from (run as `node dist/worker/build-workflow-bundle.js` after tsc).
 */
import { writeFile } from 'node:fs/promises';
import { buildWorkflowBundle, PREBUILT_WORKFLOW_BUNDLE_PATH } from './workflow-bundle';

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
  const { code } = await buildWorkflowBundle(logger);
  await writeFile(PREBUILT_WORKFLOW_BUNDLE_PATH, code);
  console.log(`workflow bundle: ${PREBUILT_WORKFLOW_BUNDLE_PATH} (${(code.length / 1024).toFixed(0)} KiB)`);
}

if (require.main === module) {
  void main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
