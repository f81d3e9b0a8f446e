import type { DataConverter, PayloadCodec } from '@temporalio/common';

/**
 * The `dataConverter` option of a Temporal `Client` (or `Worker`) that runs payloads through `codec`:
 *
 * ```ts
 * const codec = new AesGcmPayloadCodec({ keys: { '2025-01': key } });
 * const client = new Client({ connection, dataConverter: codecDataConverter(codec) });
 * const pipelines = new PipelineClient(client, { taskQueue: 'pipelines' });
 * ```
 *
 * `base` keeps a custom payload or failure converter, with the codec after its own codecs.
 */
export function codecDataConverter(codec: PayloadCodec, base: DataConverter = {}): DataConverter {
  return { ...base, payloadCodecs: [...(base.payloadCodecs ?? []), codec] };
}
