import { Type } from 'typebox';
import { MAX_ERASURE_USER_LENGTH } from './store.ts';

const Time = (description: string) => Type.String({ description });
const MaybeTime = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

/** An erasure as the admin API answers it (routes.ts); the console reads its type (src/ingest/api-types.ts). */
export const Erasure = Type.Object({
  id: Type.String({ description: '`ers_…`: what the service log names it by (never by the user id)' }),
  project_id: Type.String(),
  user_id: Type.Union([Type.String(), Type.Null()], {
    description:
      'The `user.id` whose events are erased; null once the erasure is completed with no suppression holding: the record then keeps only a keyed digest of it, which the list’s `user_id` filter matches',
  }),
  suppress: Type.Boolean({ description: 'Whether the request asked for the user’s later events to be dropped' }),
  suppressed: Type.Boolean({ description: 'Whether this erasure’s suppression holds now (not lifted)' }),
  status: Type.Union([Type.Literal('pending'), Type.Literal('running'), Type.Literal('completed')], {
    description:
      '`pending` until a worker takes it, `running` while it deletes (and until no event accepted before the request can still arrive), then `completed`',
  }),
  deleted: Type.Integer({ description: 'Events deleted so far' }),
  requested_by: Type.String({
    description:
      'Who asked: `person:<sub>` for a person’s access token, `app:<client_id>` for an app’s own, `admin-token` for INGEST_ADMIN_TOKEN, `command` for `platform ingest erasures request`',
  }),
  requested_at: Time('When it was asked for'),
  started_at: MaybeTime('When a worker first took it'),
  finished_at: MaybeTime('When it completed'),
  suppression_lifted_at: MaybeTime('When the user’s suppression was lifted'),
});

export const ErasureRequest = Type.Object(
  {
    user_id: Type.String({
      minLength: 1,
      maxLength: MAX_ERASURE_USER_LENGTH,
      description:
        'The `user.id` exactly as events carry it (capitals and spaces included); events without a `user.id`, or another one, are kept',
    }),
    suppress: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Also drop the user’s later events on arrival, until lifted (`DELETE …/erasures/{erasureId}/suppression`). They are answered as accepted and never stored',
      }),
    ),
  },
  { additionalProperties: false },
);
