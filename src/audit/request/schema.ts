import { Type } from 'typebox';
import { IgnoreRules } from '../ignore/schema.ts';
import type { IgnoreRule } from '../ignore/rules.ts';
import { SessionOptions, type RequestedSession } from '../session/schema.ts';

// Bodies are not coerced (src/kit/validation.ts), so the JSON numbers a caller naturally writes (`2.1`, and
// `2.0`, which JSON parses as 2) are accepted here by name and read as the string (resolveConfig).
export const Version = Type.Union(
  [
    Type.Literal('2.0'),
    Type.Literal('2.1'),
    Type.Literal('2.2'),
    Type.Literal(2),
    Type.Literal(2.1),
    Type.Literal(2.2),
  ],
  {
    description:
      'WCAG version: 2.0, 2.1 or 2.2, as a string or a JSON number (default 2.2, AUDIT_DEFAULT_WCAG_VERSION)',
  },
);
export const Level = Type.Union(
  [
    Type.Literal('A'),
    Type.Literal('AA'),
    Type.Literal('AAA'),
    Type.Literal('a'),
    Type.Literal('aa'),
    Type.Literal('aaa'),
  ],
  { description: 'Conformance level: A, AA or AAA, any case (default AA, AUDIT_DEFAULT_WCAG_LEVEL)' },
);

export const CrawlOptions = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'Follow same-origin links and sitemap pages from the URL (default true when a crawl object is given, so `crawl: {maxPages: 5}` crawls; without a crawl object only the URL is audited)',
      }),
    ),
    depth: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Link hops followed from the URL (default 2, at most AUDIT_MAX_DEPTH); the sitemaps' pages are audited at any depth, so 0 is the URL and its sitemap pages",
      }),
    ),
    maxPages: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Pages audited at most, the first included (default 25, at most AUDIT_MAX_PAGES)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const LlmOptions = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'Ask a language model about what axe cannot judge; required with an llm object (400 without it), since true sends page content to the provider; without an llm object no model is asked',
      }),
    ),
    provider: Type.Optional(Type.Union([Type.Literal('openai'), Type.Literal('anthropic')])),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._:/@-]*$' })),
  },
  { additionalProperties: false },
);

export const Deep = Type.Boolean({
  description:
    'Also run the checks that need a real browser after axe: a keyboard walk (traps, focus visible and not hidden, focus order, keyboard activation), the page at 320 CSS px wide, text at 200 % and with WCAG text spacing, orientation, sound that plays on its own, motion (default AUDIT_DEEP_DEFAULT, off). Several seconds more a page; see docs/audit.md',
});
export const BestPractices = Type.Boolean({
  description:
    "Also run axe-core's best-practice rules (empty headings, landmarks, heading levels, …), reported apart in `bestPractices`; they never change findings, score, conformance or OpenACR (default false)",
});

export const AuditUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'The page to audit: an absolute http or https URL',
});

/** `config` of `POST /api/v1/audits`: Document 3's `{level, version}`, plus the crawl and LLM options of `POST /audit`. */
export const JobConfig = Type.Object(
  {
    level: Type.Optional(Level),
    version: Type.Optional(Version),
    crawl: Type.Optional(CrawlOptions),
    llm: Type.Optional(LlmOptions),
    session: Type.Optional(SessionOptions),
    ignore: Type.Optional(IgnoreRules),
    deep: Type.Optional(Deep),
    bestPractices: Type.Optional(BestPractices),
  },
  { additionalProperties: false },
);

/** A version-control branch name, as CI systems give it. */
export const BranchName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[^\\x00-\\x1f\\x7f]+$',
  description: 'The branch a CI run audits, so a later run can compare with the last completed run of a branch',
});

export const CreateJobBody = Type.Object(
  { url: AuditUrl, config: Type.Optional(JobConfig), branch: Type.Optional(BranchName) },
  { additionalProperties: false },
);

/** `POST /audit`: the same options at the top level. */
export const LegacyAuditBody = Type.Object(
  {
    url: AuditUrl,
    level: Type.Optional(Level),
    version: Type.Optional(Version),
    crawl: Type.Optional(CrawlOptions),
    llm: Type.Optional(LlmOptions),
    session: Type.Optional(SessionOptions),
    ignore: Type.Optional(IgnoreRules),
    deep: Type.Optional(Deep),
    bestPractices: Type.Optional(BestPractices),
  },
  { additionalProperties: false },
);

export interface RequestedConfig {
  level?: string | undefined;
  version?: string | number | undefined;
  crawl?: { enabled?: boolean | undefined; depth?: number | undefined; maxPages?: number | undefined } | undefined;
  llm?:
    | { enabled?: boolean | undefined; provider?: 'openai' | 'anthropic' | undefined; model?: string | undefined }
    | undefined;
  session?: RequestedSession | undefined;
  ignore?: IgnoreRule[] | undefined;
  deep?: boolean | undefined;
  bestPractices?: boolean | undefined;
}
