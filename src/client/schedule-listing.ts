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
 * A client on the same connection that reads what it can of each listed schedule or workflow: a memo this
 * client cannot decode (encrypted under a codec it lacks) comes back undefined instead of ending the whole
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
    } satisfies LoadedDataConverter as unknown as DataConverter,
  });
}

/** The namespace's schedules, as `client.schedule.list()` gives them, read with {@link readingClient}. */
export function listSchedulesReadable(client: Client): AsyncIterable<ScheduleSummary> {
  return readingClient(client).schedule.list();
}
