import { Connection } from '@temporalio/client';
import type { TemporalConnectionOptions } from '../config';
import { fromWireError } from './errors';

/**
 * How long a connection attempt waits for the server. A server that is up answers in milliseconds, even
 * across an ocean; waiting the SDK's 10 s only delays the message that says where to look.
 */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Connects a client `Connection` and checks that the server answers, turning the SDK's bare
 * `Failed to connect before the deadline` into {@link ServerUnreachableError} (with the address and the
 * variable to set) and a refused API key or certificate into {@link CredentialsRejectedError}.
 */
export async function connectToTemporal(
  options: TemporalConnectionOptions,
  opts: { connectTimeoutMs?: number } = {},
): Promise<Connection> {
  const ctx = { address: options.address, tls: options.tls !== undefined && options.tls !== false };
  let connection: Connection;
  try {
    connection = await Connection.connect({
      ...options,
      connectTimeout: opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    });
  } catch (err) {
    throw fromWireError(err, ctx) ?? err;
  }
  try {
    // Connecting proves a TCP and TLS handshake; a call proves the credentials are accepted.
    await connection.workflowService.getSystemInfo({});
  } catch (err) {
    await connection.close();
    throw fromWireError(err, ctx) ?? err;
  }
  return connection;
}
