import { Type, type Static } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const EmailAddress = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: '^[^\\s@<>(),;:"]+@[^\\s@<>(),;:"]+\\.[^\\s@<>(),;:"]+$',
  description: 'An address a notice is mailed to',
});

export const NotifyBody = Type.Object(
  {
    emails: Type.Array(EmailAddress, { maxItems: 10, description: 'Addresses mailed (at most 10; empty: no mail)' }),
    webhookUrl: nullable(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          'An http or https URL POSTed each notice, signed per Standard Webhooks; null: none. Internal addresses are refused unless AUDIT_WEBHOOK_ALLOW_HOSTS lets them through',
      }),
    ),
    onScoreDrop: Type.Boolean({ description: 'Notify when a run scores lower than the site’s previous run' }),
    onNewFailures: Type.Boolean({
      description: 'Notify when a run finds serious or critical failures the previous run did not',
    }),
    newSecret: Type.Optional(
      Type.Boolean({ description: 'Make a new webhook signing secret (answered once, in this answer)' }),
    ),
  },
  { additionalProperties: false },
);

export const NotifyOut = Type.Object({
  emails: Type.Array(Type.String()),
  webhookUrl: nullable(Type.String()),
  onScoreDrop: Type.Boolean(),
  onNewFailures: Type.Boolean(),
  hasWebhookSecret: Type.Boolean(),
  webhookSecret: Type.Optional(
    Type.String({
      description:
        'The webhook’s signing secret (whsec_…), answered only when it was made: when a webhook is first set, or with newSecret. Stored encrypted; no endpoint answers it again',
    }),
  ),
  updatedAt: nullable(Timestamp),
});

export const TestOut = Type.Object({
  results: Type.Array(
    Type.Object({
      channel: Type.Union([Type.Literal('email'), Type.Literal('webhook')]),
      target: Type.String(),
      delivered: Type.Boolean(),
      error: nullable(Type.String()),
    }),
  ),
});

export const DeliveryList = Type.Object({
  items: Type.Array(
    Type.Object({
      id: Type.String({ description: 'The webhook-id of the notice' }),
      channel: Type.Union([Type.Literal('email'), Type.Literal('webhook')]),
      target: Type.String(),
      event: Type.String(),
      status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
      attempts: Type.Integer(),
      lastError: nullable(Type.String()),
      createdAt: Timestamp,
      deliveredAt: nullable(Timestamp),
      nextAttemptAt: nullable({ ...Timestamp, description: 'When a pending notice is tried next' }),
    }),
  ),
});

export type ApiNotify = Static<typeof NotifyOut>;
export type ApiNotifyBody = Static<typeof NotifyBody>;
export type ApiNoticeTest = Static<typeof TestOut>;
export type ApiNotices = Static<typeof DeliveryList>;
