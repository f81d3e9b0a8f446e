import type { Connection } from '@temporalio/client';
import type { Command } from 'commander';
import { connectToTemporal } from '../client/connect';
import { translateServiceError } from '../client/errors';
import { connectionOptions, type TflowEnv } from '../config';

/** Address used when neither `--address` nor TEMPORAL_ADDRESS is given: the dev server's default. */
export const DEFAULT_ADDRESS = 'localhost:7233';

/** `--address` and `--namespace`, as every command that talks to a server takes them. */
export interface ConnectionFlags {
  address?: string;
  namespace?: string;
}

/** Adds `--address` and `--namespace` (defaults from the environment) to a command that talks to a server. */
export function withConnectionFlags(cmd: Command, env: TflowEnv): Command {
  return cmd
    .option('--address <host:port>', 'Temporal server', env.temporalAddress ?? DEFAULT_ADDRESS)
    .option('--namespace <name>', 'Temporal namespace', env.namespace);
}

/**
 * Connects to the server the flags (else the environment) name, runs `fn`, and closes the connection.
 * An unreachable server or a broken connection becomes one typed error naming the address.
 */
export async function withConnection<T>(
  env: TflowEnv,
  flags: ConnectionFlags,
  fn: (connection: Connection, namespace: string) => Promise<T>,
): Promise<T> {
  const options = connectionOptions(env, flags.address ?? env.temporalAddress ?? DEFAULT_ADDRESS);
  const connection = await connectToTemporal(options);
  try {
    return await fn(connection, flags.namespace ?? env.namespace);
  } catch (err) {
    translateServiceError(err, { address: options.address, tls: options.tls !== undefined });
  } finally {
    await connection.close();
  }
}
