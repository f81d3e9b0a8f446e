import { Client, type DataConverter, type ScheduleSummary } from '@temporalio/client';
import { ValueError, type Payload, type PayloadCodec, type PayloadConverter } from '@temporalio/common';
import { PayloadDecryptionError } from '../codec/errors';
import type { LoadedDataConverter } from '@temporalio/common/lib/converter/data-converter';

/**
 * Reads what it can and gives `undefined` for a payload it has no converter for: the memo of a schedule
 * written with payload encryption, listed by a client without that codec (`binary/encrypted`).
 */
function tolerantConverter(inner: PayloadConverter): PayloadConverter {
  return {
    toPayload: (value) => inner.toPayload(value),
    fromPayload<T>(payload: Payload): T {
      try {
        return inner.fromPayload<T>(payload);
      } catch (err) {
        if (err instanceof ValueError) return undefined as T;
        throw err;
      }
    },
  };
}

/**
 * Decodes what it can: a payload encrypted under a key this client holds under the same id with other
 * bytes (another environment's `k1`) is left encrypted, so that the converter above reads it as unknown,
 * instead of ending the whole listing.
 */
function tolerantCodec(inner: PayloadCodec): PayloadCodec {
  return {
    encode: (payloads) => inner.encode(payloads),
    async decode(payloads) {
      try {
        return await inner.decode(payloads);
      } catch (err) {
        if (err instanceof PayloadDecryptionError) return payloads;
        throw err;
      }
    },
  };
}

/**
 * A client on the same connection that reads what it can of each listed schedule or workflow: a memo this
 * client cannot decode (encrypted under a codec or a key it lacks) comes back undefined instead of ending the whole
 * listing with "Unknown encoding". Such an entry reads as not one of ours: listings, plans and repairs
 * leave it alone rather than fail for every other job of the namespace. For listings only.
 */
export function readingClient(client: Client): Client {
  const dc: LoadedDataConverter = client.options.loadedDataConverter;
  return new Client({
    connection: client.connection,
    namespace: client.options.namespace,
    // A loaded converter is taken as it is (BaseClient checks isLoadedDataConverter); the type says DataConverter.
    dataConverter: {
      ...dc,
      payloadConverter: tolerantConverter(dc.payloadConverter),
      payloadCodecs: dc.payloadCodecs.map(tolerantCodec),
    } satisfies LoadedDataConverter as unknown as DataConverter,
  });
}

/** The namespace's schedules, as `client.schedule.list()` gives them, read with {@link readingClient}. */
export function listSchedulesReadable(client: Client): AsyncIterable<ScheduleSummary> {
  return readingClient(client).schedule.list();
}
