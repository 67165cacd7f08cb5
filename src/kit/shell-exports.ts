/**
 * `--export` output of the CLI: one `export NAME='value'` line per value, for `eval "$(platform ... --export)"`
 * in scripts and in the README's walk. Values are single-quoted, so no character of theirs reaches the shell.
 */
export function shellExports(values: Record<string, string>): string[] {
  return Object.entries(values).map(([name, value]) => `export ${name}='${value.replaceAll("'", `'\\''`)}'`);
}
