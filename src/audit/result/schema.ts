import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';

/** The JSON Schema of AuditResult (types.ts), for the OpenAPI document and the serialiser. Keep the two in step. */
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const Str = Type.String();
const Int = Type.Integer();
const Level = Type.Union([Type.Literal('A'), Type.Literal('AA'), Type.Literal('AAA')]);
const Version = Type.Union([Type.Literal('2.0'), Type.Literal('2.1'), Type.Literal('2.2')]);
const Provider = Type.Union([Type.Literal('openai'), Type.Literal('anthropic')]);
const Impact = Type.Union([
  Type.Literal('critical'),
  Type.Literal('serious'),
  Type.Literal('moderate'),
  Type.Literal('minor'),
]);
const Target = Type.Array(Type.Union([Type.String(), Type.Array(Type.String())]));

const elementFields = {
  id: Str,
  ruleId: Str,
  description: Str,
  level: Level,
  element: Type.String({ description: 'Element name, e.g. img' }),
  selector: Type.String({ description: 'CSS selector; ` >>> ` enters a frame, ` >> ` an open shadow root' }),
  target: Target,
  html: Str,
  successCriteria: Type.Array(Type.String(), { description: 'WCAG success criteria, e.g. 1.4.3' }),
  help: Type.String({ description: "URL of the rule's help page" }),
  summary: Str,
  pageUrl: Str,
  actRules: Type.Optional(
    Type.Array(Type.String(), { description: 'ACT rule ids the rule implements (W3C ACT Rules), when any' }),
  ),
};

const IgnoreRuleFields = {
  rule: Type.Optional(Str),
  selector: Type.Optional(Str),
  url: Type.Optional(Str),
  reason: Str,
  expires: Type.String({ format: 'date', description: 'The last day (UTC) the rule applies' }),
};
const IgnoreRuleSchema = Type.Object(IgnoreRuleFields);

export const FindingSchema = Type.Object({
  ...elementFields,
  impact: Impact,
  fix: Type.String({ description: 'How to fix this element' }),
  screenshot: Type.Optional(
    Type.String({
      pattern: '^data:image/jpeg;base64,',
      description:
        "A deep audit's cropped JPEG of the element outlined in red, as a data: URI (at most 10 a page, 20 KB each)",
    }),
  ),
  ignored: Type.Optional(
    Type.Object(
      { rule: Type.Integer({ description: 'Its index in config.ignore' }), reason: Str, expires: Str },
      { description: 'An ignore rule in force matches this failure: a CI gate does not count it' },
    ),
  ),
});
export const NeedsReviewSchema = Type.Object({
  ...elementFields,
  impact: Type.Union([Impact, Type.Null()]),
  reason: Str,
  question: Type.Optional(Type.String({ description: 'The question a person must answer about the element' })),
  howToCheck: Type.Optional(Type.String({ description: 'How to answer it by hand' })),
});

const PageStats = Type.Object({
  findings: Int,
  critical: Int,
  serious: Int,
  moderate: Int,
  minor: Int,
  needsReview: Int,
});

const Page = Type.Object({
  url: Str,
  requestedUrl: Str,
  depth: Int,
  status: Type.Union([Type.Literal('audited'), Type.Literal('failed')]),
  httpStatus: Type.Union([Int, Type.Null()]),
  title: Nullable(Str),
  error: Nullable(Str),
  score: Type.Union([Int, Type.Null()]),
  stats: PageStats,
  durationMs: Int,
  mergedUrls: Type.Optional(
    Type.Array(
      Type.Object({
        url: Str,
        reason: Type.Union([Type.Literal('same-url'), Type.Literal('canonical'), Type.Literal('same-content')], {
          description:
            "same-url: it redirects to this page's URL; canonical: its link rel=canonical names this page, or this page's names it; same-content: its settled document is this page's",
        }),
      }),
      {
        description:
          'Other URLs the crawl found that are this same page: audited and counted once, here (absent in results stored before merging existed)',
      },
    ),
  ),
});

const Omitted = Type.Object({
  pageUrl: Str,
  ruleId: Str,
  successCriteria: Type.Array(Str),
  findings: Type.Integer({
    description: 'Failing elements of this rule on this page not listed in findings (counted in stats)',
  }),
  needsReview: Type.Integer({ description: 'Elements needing review not listed in needsReview (counted in stats)' }),
});

const Rule = Type.Object({
  ruleId: Str,
  successCriteria: Type.Array(Str),
  level: Level,
  failedPages: Int,
  passedPages: Int,
  inapplicablePages: Int,
  needsReviewPages: Int,
});

const LlmFinding = Type.Object({
  id: Str,
  source: Type.Literal('llm'),
  check: Type.Union([Type.Literal('image-alt'), Type.Literal('link-purpose'), Type.Literal('page-title')]),
  provider: Provider,
  model: Str,
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  description: Str,
  suggestion: Nullable(Str),
  successCriteria: Type.Array(Str),
  level: Level,
  element: Str,
  selector: Str,
  html: Str,
  pageUrl: Str,
});

const LlmOutcome = Type.Object({
  provider: Provider,
  model: Str,
  status: Type.Union([Type.Literal('completed'), Type.Literal('partial'), Type.Literal('failed')]),
  error: Nullable(Str),
  findings: Type.Array(LlmFinding, {
    description: 'Judgements for a person to check: never counted in stats, score or conformant',
  }),
});

const SecretField = Type.Object({ name: Str, secret: Type.String({ description: 'The name of a stored secret' }) });
/** A session as resolved (src/audit/session/types.ts): each step carries only its action's fields. */
const SessionSchema = Type.Object(
  {
    steps: Type.Array(
      Type.Union([
        Type.Object({ action: Type.Literal('goto'), url: Str }),
        Type.Object({ action: Type.Literal('fill'), selector: Str, value: Str }),
        Type.Object({ action: Type.Literal('fill'), selector: Str, secret: Str }),
        Type.Object({ action: Type.Literal('click'), selector: Str }),
        Type.Object({ action: Type.Literal('waitForSelector'), selector: Str }),
        Type.Object({ action: Type.Literal('waitForUrl'), url: Str }),
      ]),
    ),
    cookies: Type.Array(SecretField),
    headers: Type.Array(SecretField),
    signOut: Type.Array(Str),
  },
  { description: 'Sign-in steps, cookies and headers; secrets by name, never their values' },
);

export const AuditConfigSchema = Type.Object({
  wcagVersion: Version,
  wcagLevel: Level,
  crawl: Type.Object({ enabled: Type.Boolean(), depth: Int, maxPages: Int }),
  llm: Type.Object({ enabled: Type.Boolean(), provider: Type.Union([Provider, Type.Null()]), model: Nullable(Str) }),
  axeTags: Type.Array(Str),
  session: Type.Optional(Type.Union([SessionSchema, Type.Null()])),
  ignore: Type.Optional(Type.Array(IgnoreRuleSchema, { description: "The team's ignore rules" })),
  deep: Type.Optional(Type.Boolean({ description: 'The checks that need a real browser ran after axe' })),
  bestPractices: Type.Optional(Type.Boolean({ description: "axe's best-practice rules ran, reported apart" })),
});

export const AuditStatsSchema = Type.Object({
  totalPages: Int,
  totalFindings: Int,
  critical: Int,
  serious: Int,
  moderate: Int,
  minor: Int,
  needsReview: Int,
  failedPages: Int,
  ignored: Type.Optional(Type.Integer({ description: 'Findings an ignore rule in force matches (counted above too)' })),
});

export const AuditResultSchema = Type.Object({
  url: Str,
  targetUrl: Str,
  wcagVersion: Version,
  wcagLevel: Level,
  score: Type.Integer({ minimum: 0, maximum: 100 }),
  conformant: Type.Boolean(),
  stats: AuditStatsSchema,
  findings: Type.Array(FindingSchema),
  needsReview: Type.Array(NeedsReviewSchema),
  omitted: Type.Optional(
    Type.Array(Omitted, {
      description: 'Elements beyond engine.maxElementsPerRule per rule and page: counted in stats, not listed',
    }),
  ),
  pages: Type.Array(Page),
  rules: Type.Array(Rule),
  bestPractices: Type.Optional(
    Type.Object(
      {
        findings: Type.Array(FindingSchema),
        passed: Type.Array(Type.String(), { description: 'Best-practice rules that checked elements and failed none' }),
      },
      {
        description:
          "axe-core's best-practice rules, when the audit asked for them: never counted in stats, score, conformance or OpenACR",
      },
    ),
  ),
  llm: Type.Union([LlmOutcome, Type.Null()], { description: 'The LLM review when the audit asked for one' }),
  ignoreRules: Type.Optional(
    Type.Array(
      Type.Object({
        ...IgnoreRuleFields,
        status: Type.Union([Type.Literal('active'), Type.Literal('expired')]),
        matched: Type.Integer({ description: 'Findings it matches; for an expired rule, those it no longer hides' }),
      }),
    ),
  ),
  config: AuditConfigSchema,
  engine: Type.Object({
    axeVersion: Str,
    browser: Str,
    maxElementsPerRule: Type.Optional(
      Type.Integer({ description: 'Elements listed at most per rule, page and outcome' }),
    ),
  }),
  startedAt: Timestamp,
  finishedAt: Timestamp,
});
