import type { Command } from 'commander';
import { payloadCodecFromEnv, type TflowEnv } from '../config';
import { serveCodec } from '../codec/codec-server';
import { TemporalFlowError } from '../errors';
import { parsePort } from './server-commands';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `tflow codec-server`: Temporal's remote codec protocol over HTTP, with the keys of TFLOW_CODEC_KEYS. */
export function registerCodecCommand(program: Command, env: TflowEnv): void {
  program
    .command('codec-server')
    .description(
      'serve POST /encode and /decode (Temporal remote codec) with the keys of TFLOW_CODEC_KEYS, for the Web UI and `temporal --codec-endpoint`',
    )
    .option('--port <port>', 'HTTP port (0 = any free port)', parsePort, 8888)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option(
      '--cors-origin <origin>',
      'browser origin allowed to call it, e.g. the Temporal UI http://localhost:8233 (repeatable; * for any)',
      collect,
      [],
    )
    .action(async (opts: { port: number; host: string; corsOrigin: string[] }) => {
      const codec = payloadCodecFromEnv(env);
      if (!codec) {
        throw new TemporalFlowError(
          'INVALID_CONFIG',
          'TFLOW_CODEC_KEYS is not set: give the keys the workers use (<key id>:<base64 key>, comma-separated)',
        );
      }
      const server = await serveCodec({
        codec,
        port: opts.port,
        host: opts.host,
        corsOrigins: opts.corsOrigin,
      });
      console.log(`Codec server: ${server.url} (encrypting with key "${codec.currentKeyId}")`);
      console.log(
        opts.corsOrigin.length > 0
          ? `CORS origins: ${opts.corsOrigin.join(', ')}`
          : 'No CORS origin: browsers cannot call it (add --cors-origin for the Web UI).',
      );
      console.log('Press Ctrl-C to stop.');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}
