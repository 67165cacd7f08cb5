import { existsSync, readFileSync } from 'node:fs';
import { Type, type Static, type TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { lazyPackage } from '../../kit/lazy-package.ts';
import { CommandFailure } from '../../kit/cli-runner.ts';
import { CrawlOptions, Level, Version } from '../request/schema.ts';
import { SessionOptions } from '../session/schema.ts';

const yaml = lazyPackage<typeof import('yaml')>('yaml');

const Impact = Type.Union([
  Type.Literal('critical'),
  Type.Literal('serious'),
  Type.Literal('moderate'),
  Type.Literal('minor'),
]);

/**
 * The site file a team keeps in its repository (`.a11y.yml`), read by `platform audit run`: what to audit, how,
 * signed in how, and what the run must meet. Options on the command line win over it.
 */
export const SiteFile = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    level: Type.Optional(Level),
    version: Type.Optional(Version),
    crawl: Type.Optional(CrawlOptions),
    session: Type.Optional(SessionOptions),
    thresholds: Type.Optional(
      Type.Object(
        {
          minScore: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
          failOn: Type.Optional(Impact),
          newFailures: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
    baseline: Type.Optional(
      Type.Object(
        { file: Type.Optional(Type.String({ minLength: 1 })), branch: Type.Optional(Type.String({ minLength: 1 })) },
        { additionalProperties: false },
      ),
    ),
    ignore: Type.Optional(Type.String({ minLength: 1, description: 'The ignore file (default .a11y-ignore.yml)' })),
  },
  { additionalProperties: false },
);
export type SiteFile = Static<typeof SiteFile>;

/** The names looked for in the working directory when no file is named. */
export const DEFAULT_SITE_FILES = ['.a11y.yml', '.a11y.yaml', '.a11y.json'];

/** The named file, or the first default one present; an empty object when there is none. A named file must exist. */
export function readSiteFile(path: string | undefined): { file: SiteFile; path: string | null } {
  const chosen = path ?? DEFAULT_SITE_FILES.find((name) => existsSync(name));
  if (!chosen) return { file: {}, path: null };
  return { file: checkedFile(chosen, SiteFile, 'site file'), path: chosen };
}

/**
 * A YAML or JSON file checked against a schema; a problem becomes a CommandFailure naming the file and the field
 * (`.a11y.yml: thresholds.failOn must be one of "critical", "serious", "moderate", "minor"`).
 */
export function checkedFile<S extends TSchema>(path: string, schema: S, what: string): Static<S> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CommandFailure(
      `cannot read the ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = path.endsWith('.json') ? JSON.parse(text) : yaml().parse(text);
  } catch (err) {
    throw new CommandFailure(
      `${path} is not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  if (Value.Check(schema, value)) return value as Static<S>;
  throw new CommandFailure(`${path}: ${firstProblem(schema, value)}`);
}

/** The deepest problem Value finds, worded with its field's path. */
function firstProblem(schema: TSchema, value: unknown): string {
  // A union reports its own failure above its members', an unknown field a `false` schema below its object's.
  const errors = [...Value.Errors(schema, value)].filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'boolean');
  const first = errors.sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length)[0];
  if (!first) return 'does not have the expected shape';
  const at = fieldPath(first.instancePath);
  const params = first.params as { additionalProperties?: string[]; requiredProperties?: string[] };
  if (first.keyword === 'additionalProperties' && params.additionalProperties?.length)
    return `${at ? `${at}.` : ''}${params.additionalProperties[0]} is not a known field`;
  if (first.keyword === 'required' && params.requiredProperties?.length)
    return `${at ? `${at}.` : ''}${params.requiredProperties[0]} is required`;
  if (first.keyword === 'const') {
    const allowed = errors
      .filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath)
      .map((e) => JSON.stringify((e.params as { allowedValue?: unknown }).allowedValue));
    return `${at || 'the file'} must be one of ${allowed.join(', ')}`;
  }
  return `${at || 'the file'} ${first.message}`;
}

/** `/thresholds/failOn` → `thresholds.failOn`, `/session/steps/2` → `session.steps[2]`. */
function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}
