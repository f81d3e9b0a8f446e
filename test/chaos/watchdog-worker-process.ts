/*
 * An alert worker in its own process (createWatchdogWorker: it runs its queue's shared alert evaluator and
 * the deliveries), so that test/chaos/watchdog-faults.test.ts can SIGKILL it, start it without the
 * codec key, or start it against a server it then kills:
 *
 *   node --import tsx test/chaos/watchdog-worker-process.ts <address> <namespace> <alertQueue> <bundlePath> [<keyId>:<keyHex>]
 *
 * With a key, the worker has the codec of the jobs' clients (AES-GCM, that one key); without, none. The
 * evaluator waves every second (heartbeat timeout 3 s: a killed worker's evaluation is retried elsewhere
 * 3 s after its last heartbeat). Prints `ready` once polling. Alerts go to the jobs' webhooks.
 */
import { AesGcmPayloadCodec } from '../../src/codec';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { runWorkerProcess } from '../helpers/worker-process-main';

const [address, namespace, taskQueue, bundlePath, key] = process.argv.slice(2);
if (!address || !namespace || !taskQueue || !bundlePath) {
  throw new Error(
    'usage: watchdog-worker-process.ts <address> <namespace> <alertQueue> <bundlePath> [<keyId>:<keyHex>]',
  );
}
const [keyId, keyHex] = key ? key.split(':') : [];
const codec =
  keyId && keyHex ? new AesGcmPayloadCodec({ keys: { [keyId]: Buffer.from(keyHex, 'hex') } }) : undefined;

runWorkerProcess(address, (connection) =>
  createWatchdogWorker({
    connection,
    namespace,
    taskQueue,
    workflowBundle: { codePath: bundlePath },
    ...(codec ? { codec } : {}),
    evaluator: { waveMs: 1_000, heartbeatTimeoutMs: 3_000 },
    // A killed worker's sticky queue is abandoned: fall back to the shared queue after 1 s, not 10 s.
    workerOptions: { stickyQueueScheduleToStartTimeout: '1s' },
  }),
);
