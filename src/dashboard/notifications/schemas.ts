import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import { DisplayText, Email } from '../schemas.ts';

const Kind = Type.Union([Type.Literal('email'), Type.Literal('webhook'), Type.Literal('slack')], {
  description:
    'email (SMTP), webhook (signed per Standard Webhooks, retried) or slack (a Slack-compatible incoming webhook)',
});
const Addresses = Type.Array(Email, { minItems: 1, maxItems: 50, uniqueItems: true });
const Url = Type.String({
  minLength: 8,
  maxLength: 2000,
  pattern: '^https?://[^\\s]+$',
  description: 'http(s) URL; it may not point to a private network unless DASHBOARD_WEBHOOK_ALLOW_HOSTS lets it',
});

/** A channel as answered: a webhook's or Slack's URL is never answered (a Slack URL is a credential), only its origin. */
export const Channel = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  kind: Kind,
  addresses: Type.Array(Type.String()),
  target: Type.Union([Type.String(), Type.Null()], { description: "the URL's origin (webhook, slack)" }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreatedChannel = Type.Object({
  ...Channel.properties,
  secret: Type.Optional(
    Type.String({ description: 'webhook only: the signing secret (whsec_…), shown this once and never again' }),
  ),
});

export const CreateChannelBody = Type.Object(
  { name: DisplayText(200), kind: Kind, addresses: Type.Optional(Addresses), url: Type.Optional(Url) },
  { additionalProperties: false },
);

export const UpdateChannelBody = Type.Object(
  { name: DisplayText(200), addresses: Type.Optional(Addresses), url: Type.Optional(Url) },
  { additionalProperties: false },
);

export const TestResult = Type.Object({
  ok: Type.Boolean(),
  detail: Type.String({ description: 'what the receiver answered, or why nothing was sent' }),
});
