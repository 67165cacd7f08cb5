import { Type } from 'typebox';

/**
 * One ignore rule as a team writes it in its repository (`.a11y-ignore.yml`) and a job carries it: which failures
 * (by rule id, selector and page URL pattern; at least one), why, and until when.
 */
export const IgnoreRuleInput = Type.Object(
  {
    rule: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'axe rule id, e.g. color-contrast' })),
    selector: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: "The finding's selector, exactly as the result gives it",
      }),
    ),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: "The page's URL: * for any characters; starting with / the path and query only",
      }),
    ),
    reason: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'Why the failure is ignored (shown in reports)',
    }),
    expires: Type.String({
      pattern: '^\\d{4}-\\d{2}-\\d{2}$',
      description: 'The last day (UTC, YYYY-MM-DD) the rule applies; after it, its failures count again',
    }),
  },
  { additionalProperties: false },
);

export const IgnoreRules = Type.Array(IgnoreRuleInput, { maxItems: 500 });
