/*
 * History files: protobufjs's own object form (`History.toObject` with longs, enums and bytes as
 * strings), which round-trips exactly through `History.fromObject`.
 *
 * Why not the SDK's `historyToJSON`/`historyFromJSON` (the `temporal workflow show -o json` format)?
 * In this install @temporalio/common 1.24.0 carries its own protobufjs 8 while @temporalio/proto uses
 * protobufjs 7, and both helpers throw "type must be a Type". Replaying a `History` object avoids them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;
const HistoryType = temporal.api.history.v1.History;

export async function writeHistoryFile(file: string, history: History): Promise<void> {
  const object = HistoryType.toObject(HistoryType.fromObject(history), {
    longs: String,
    enums: String,
    bytes: String,
  });
  await writeFile(file, `${JSON.stringify(object, null, 1)}\n`);
}

export async function readHistoryFile(file: string): Promise<temporal.api.history.v1.History> {
  return HistoryType.fromObject(JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>);
}
