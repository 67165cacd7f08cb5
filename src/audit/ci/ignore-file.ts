import { existsSync } from 'node:fs';
import { CommandFailure } from '../../kit/cli-runner.ts';
import { resolveIgnoreRules, type IgnoreRule } from '../ignore/rules.ts';
import { IgnoreRules } from '../ignore/schema.ts';
import { checkedFile } from './site-file.ts';

/** The names looked for in the working directory when neither the command line nor the site file names one. */
export const DEFAULT_IGNORE_FILES = ['.a11y-ignore.yml', '.a11y-ignore.yaml', '.a11y-ignore.json'];

/**
 * The team's ignore rules: a YAML or JSON list in its repository, each rule with what it matches (rule, selector,
 * url), a reason and an expiry date. A named file must exist; without one, the default file if present, else none.
 */
export function readIgnoreFile(path: string | undefined): { rules: IgnoreRule[]; path: string | null } {
  const chosen = path ?? DEFAULT_IGNORE_FILES.find((name) => existsSync(name));
  if (!chosen) return { rules: [], path: null };
  const listed = checkedFile(chosen, IgnoreRules, 'ignore file');
  try {
    return { rules: resolveIgnoreRules(listed), path: chosen };
  } catch (err) {
    throw new CommandFailure(`${chosen}: ${(err as Error).message}`);
  }
}
