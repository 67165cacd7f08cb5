/**
 * The `:name` parameters a statement uses, for input fields. Strings, quoted names and comments are skipped
 * and `::type` casts are not parameters; the service's own lexer is the authority when the query runs.
 */
export function parameterNames(sql: string): string[] {
  const code = sql.replace(/'(?:[^']|'')*'|"(?:[^"])*"|`[^`]*`|--[^\n]*|\/\*[\s\S]*?\*\//g, ' ');
  const names = new Set<string>();
  for (const m of code.matchAll(/(?<![:\w]):([A-Za-z_][A-Za-z0-9_]*)/g)) names.add(m[1]!);
  return [...names];
}
