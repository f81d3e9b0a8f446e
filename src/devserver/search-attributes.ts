import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TFLOW_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
const typeCodes: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
};

/**
 * Registers temporal-flow's search attributes that the namespace lacks. Idempotent; used by the dev
 * server and by `tflow setup` against any cluster.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<string[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const have = new Set(Object.keys(existing.customAttributes ?? {}));
  const missing = Object.entries(TFLOW_SEARCH_ATTRIBUTES).filter(([name]) => !have.has(name));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, typeCodes[type]!])),
  });
  return missing.map(([name]) => name);
}
