import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TFLOW_SEARCH_ATTRIBUTES } from '../workflows/search-attributes';

type AttributeType = (typeof TFLOW_SEARCH_ATTRIBUTES)[string];
const IndexedValueType = temporal.api.enums.v1.IndexedValueType;

const typeCodes: Record<AttributeType, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
};

/** `INDEXED_VALUE_TYPE_KEYWORD_LIST` -> `KeywordList`: the name the `temporal` CLI uses. */
function typeName(code: temporal.api.enums.v1.IndexedValueType): string {
  const raw = IndexedValueType[code] ?? `type ${code}`;
  return raw
    .replace(/^INDEXED_VALUE_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
}

/** One of temporal-flow's search attributes as the namespace has it. */
export interface SearchAttributeStatus {
  name: string;
  /** The type temporal-flow needs. */
  expected: AttributeType;
  /** The type the namespace has, or `undefined` when the attribute is missing. */
  actual: string | undefined;
}

/** Reads temporal-flow's search attributes from the namespace: present (with their type) or missing. */
export async function readSearchAttributes(
  connection: Connection,
  namespace: string,
): Promise<SearchAttributeStatus[]> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const have = existing.customAttributes ?? {};
  return Object.entries(TFLOW_SEARCH_ATTRIBUTES).map(([name, expected]) => {
    const code = have[name];
    return { name, expected, actual: code === undefined || code === null ? undefined : typeName(code) };
  });
}

/** Registers these search attributes (with their expected types) in one call. */
export async function addSearchAttributes(
  connection: Connection,
  namespace: string,
  attributes: readonly SearchAttributeStatus[],
): Promise<void> {
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(attributes.map((a) => [a.name, typeCodes[a.expected]])),
  });
}
