import { Client, type DataConverter, type ScheduleSummary } from '@temporalio/client';
import { ValueError, type Payload, type PayloadConverter } from '@temporalio/common';
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
 * The namespace's schedules, as `client.schedule.list()` gives them, except that a schedule whose memo
 * this client cannot decode (encrypted under a codec it lacks) comes with that memo undefined instead of
 * ending the whole listing with "Unknown encoding". Such a schedule reads as not one of ours: listings,
 * plans and repairs leave it alone rather than fail for every other job of the namespace.
 */
export function listSchedulesReadable(client: Client): AsyncIterable<ScheduleSummary> {
  const dc: LoadedDataConverter = client.options.loadedDataConverter;
  const reader = new Client({
    connection: client.connection,
    namespace: client.options.namespace,
    // A loaded converter is taken as it is (BaseClient checks isLoadedDataConverter); the type says DataConverter.
    dataConverter: {
      ...dc,
      payloadConverter: tolerantConverter(dc.payloadConverter),
    } satisfies LoadedDataConverter as unknown as DataConverter,
  });
  return reader.schedule.list();
}
