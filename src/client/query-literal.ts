/**
 * A string literal of Temporal's list filter language (visibility queries): single-quoted, with `\` and `'`
 * escaped by a backslash, in that order, so that no value can end the literal early or run on past it (a
 * value ending in `\` would otherwise escape the closing quote). The one quoting of every query we build.
 */
export function queryLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
