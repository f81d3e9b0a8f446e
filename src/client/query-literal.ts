/**
 * A string literal of Temporal's list filter language (visibility queries): single-quoted, with `\` and `'`
 * escaped by a backslash, in that order, so that no value can end the literal early or run on past it (a
 * value ending in `\` would otherwise escape the closing quote). The one quoting of every query we build.
 */
export function queryLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The list-filter clause that finds a Keyword attribute equal to `value`, or a wider one when no exact
 * clause can: Temporal's SQL visibility escapes the backslash of a value it parsed once more for SQLite
 * and PostgreSQL, so `attr = 'a\\b'` never matches the stored `a\b`. For a value with a backslash the clause
 * asks for the part before the first one (`STARTS_WITH`), or for nothing when that part is empty
 * (undefined); `exact` is false then, and the caller keeps only the rows whose attribute is `value`.
 */
export function keywordEquals(attr: string, value: string): { clause?: string; exact: boolean } {
  const cut = value.indexOf('\\');
  if (cut < 0) return { clause: `${attr} = ${queryLiteral(value)}`, exact: true };
  if (cut === 0) return { exact: false };
  return { clause: `${attr} STARTS_WITH ${queryLiteral(value.slice(0, cut))}`, exact: false };
}
