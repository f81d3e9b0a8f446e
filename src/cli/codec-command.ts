import type { Command } from 'commander';
import { payloadCodecFromEnv, type TflowEnv } from '../config';
import { serveCodec } from '../codec/codec-server';
import { TemporalFlowError } from '../errors';
import { parsePort } from './server-commands';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

interface CodecServerFlags {
  port: number;
  host: string;
  corsOrigin: string[];
  allowedHost: string[];
  encode?: boolean;
}

/** `tflow codec-server`: Temporal's remote codec protocol over HTTP, with the keys of TFLOW_CODEC_KEYS. */
export function registerCodecCommand(program: Command, env: TflowEnv): void {
  program
    .command('codec-server')
    .description(
      'serve POST /encode and /decode (Temporal remote codec) with the keys of TFLOW_CODEC_KEYS, for the Web UI and `temporal --codec-endpoint`; with TFLOW_CODEC_TOKEN set, every call needs Authorization: Bearer <token>',
    )
    .option('--port <port>', 'HTTP port (0 = any free port)', parsePort, 8888)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option(
      '--cors-origin <origin>',
      "browser origin allowed to call it, exactly as the browser sends it, e.g. the Temporal UI http://localhost:8233 (repeatable); '*' for any, only with TFLOW_CODEC_TOKEN, and then without cookies",
      collect,
      [],
    )
    .option(
      '--allowed-host <name>',
      'another name clients reach it by (a reverse proxy, a DNS name), checked against the Host header (repeatable)',
      collect,
      [],
    )
    .option('--encode', 'serve /encode without a token too (default: only with TFLOW_CODEC_TOKEN)')
    .option('--no-encode', 'never serve /encode, even with a token')
    .action(async (opts: CodecServerFlags) => {
      const codec = payloadCodecFromEnv(env);
      if (!codec) {
        throw new TemporalFlowError(
          'INVALID_CONFIG',
          'TFLOW_CODEC_KEYS is not set: give the keys the workers use (<key id>:<base64 key>, comma-separated)',
        );
      }
      const token = env.codecToken;
      const server = await serveCodec({
        codec,
        port: opts.port,
        host: opts.host,
        corsOrigins: opts.corsOrigin,
        allowedHosts: opts.allowedHost,
        ...(token !== undefined ? { token } : {}),
        ...(opts.encode !== undefined ? { encode: opts.encode } : {}),
      });
      for (const line of startLines(server.url, codec.currentKeyId, opts, token !== undefined))
        console.log(line);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}

/** What the server prints at start: where it is, who may call it, and what it serves. */
function startLines(url: string, keyId: string, opts: CodecServerFlags, token: boolean): string[] {
  const encode = opts.encode ?? token;
  return [
    `Codec server: ${url} (encrypting with key "${keyId}")`,
    opts.corsOrigin.length > 0
      ? `CORS origins: ${opts.corsOrigin.join(', ')}`
      : 'No CORS origin: browsers cannot call it (add --cors-origin for the Web UI).',
    token
      ? 'Token: required (TFLOW_CODEC_TOKEN): send Authorization: Bearer <token> (temporal --codec-auth "Bearer <token>").'
      : `No token: whoever can reach ${opts.host} can decode (set TFLOW_CODEC_TOKEN to require one).`,
    encode
      ? token
        ? '/encode: on, with the token.'
        : '/encode: on without a token (--encode): whoever can reach it can write payloads under the current key.'
      : `/encode: off (${token ? '--no-encode' : 'only with TFLOW_CODEC_TOKEN, or --encode'}).`,
    'Press Ctrl-C to stop.',
  ];
}
