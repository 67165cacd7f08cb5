import { Type } from 'typebox';
import { Timestamp } from '../../kit/schemas.ts';
import type { Database } from '../../kit/db.ts';
import { HttpError } from '../../kit/errors.ts';
import { callerOf } from '../../kit/auth/admin-guard.ts';
import { ADMIN, PERSON, PUBLIC } from '../access/rules.ts';
import { personCaller } from '../access/person.ts';
import { decodeCursor, pageOf, toPage } from '../../kit/paging.ts';
import type { App } from '../../kit/app.ts';
import { ByTime, Errors, Nullable, Page, Security, Uuid } from '../api/schemas.ts';
import type { TypedScope } from '../api/scope.ts';
import { existingOrganization } from '../organizations/store.ts';
import { sendInvite, type InviteDeps } from './send.ts';
import {
  acceptInvite,
  createInvite,
  declineInvite,
  findInvite,
  listInvites,
  resendInvite,
  revokeInvite,
} from './store.ts';

const Status = Type.Union([
  Type.Literal('pending'),
  Type.Literal('accepted'),
  Type.Literal('declined'),
  Type.Literal('expired'),
  Type.Literal('revoked'),
]);
const InviteOut = Type.Object(
  {
    id: Uuid,
    organization_id: Uuid,
    email: Type.String(),
    role: Type.String(),
    status: Status,
    message: Nullable(Type.String()),
    expires_at: Timestamp,
    accepted_at: Nullable(Timestamp),
    accepted_by_principal_id: Nullable(Uuid),
    resend_count: Type.Integer(),
    last_sent_at: Nullable(Timestamp),
    inviter_principal_id: Nullable(Uuid),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { description: 'An invitation; its token is never shown here.' },
);
const Issued = Type.Object({
  invite: InviteOut,
  link: Type.String({
    description: 'Shown once: the link that carries the token (also mailed when IDENTITY_SMTP_URL is set).',
  }),
  mailed: Type.Boolean(),
});
const Role = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.:-]+$' });

const tags = ['management'];
const security = Security;
const Params = Type.Object({ id: Uuid });
const InviteParams = Type.Object({ id: Uuid, inviteId: Uuid });

/** Invitations of an organization under /api/v1/organizations/:id/invites (each route declares ADMIN access). */
export async function registerInviteRoutes(scope: TypedScope, deps: InviteDeps): Promise<void> {
  createInviteRoute(scope, deps);
  listInvitesRoute(scope, deps);
  getInviteRoute(scope, deps);
  resendInviteRoute(scope, deps);
  revokeInviteRoute(scope, deps);
}

const TokenBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

/**
 * The invitee's side, beside the management API but not behind its admin check: `POST /api/v1/invitations/accept` with
 * the signed-in person's access token (PERSON access: any app, any scope, a DPoP-bound one with a proof by its key, never
 * an agent's: joining an organization is the person's own decision) and `POST /api/v1/invitations/decline`, public, which
 * the invitation's token in the body alone allows.
 */
export async function registerInviteeRoutes(app: App, deps: { db: Database }): Promise<void> {
  const tags = ['invitations'];
  app.post(
    '/api/v1/invitations/accept',
    {
      config: { access: PERSON },
      schema: {
        operationId: 'acceptInvite',
        tags,
        summary:
          'Accept an invitation as the signed-in person whose verified email it names; the membership is made at once',
        security: [{ personToken: [] }],
        body: TokenBody,
        response: { 200: Type.Object({ invite: InviteOut, membership_id: Uuid }), ...Errors },
      },
    },
    async (request) => {
      const { invite, membershipId } = await acceptInvite(deps.db, request.body.token, personCaller(request).subject);
      return { invite, membership_id: membershipId };
    },
  );
  app.post(
    '/api/v1/invitations/decline',
    {
      config: { access: PUBLIC },
      schema: {
        operationId: 'declineInvite',
        tags,
        summary: 'Decline an invitation (the token in the link is enough)',
        body: TokenBody,
        response: { 200: InviteOut, ...Errors },
      },
    },
    async (request) => declineInvite(deps.db, request.body.token),
  );
}

function createInviteRoute(scope: TypedScope, deps: InviteDeps): void {
  scope.post(
    '/organizations/:id/invites',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'createInvite',
        tags,
        security,
        summary: 'Invite an email address to an organization; the link (with the token) is mailed and shown once',
        params: Params,
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 320 }),
            role: Type.Optional(Role),
            message: Type.Optional(Type.String({ maxLength: 2000 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Issued, ...Errors },
      },
    },
    async (request, reply) => {
      const org = await existingOrganization(deps.db, request.params.id);
      if (!org.active) throw new HttpError(409, 'CONFLICT', 'the organization is deactivated');
      const caller = callerOf(request);
      const { invite, token } = await createInvite(deps.db, {
        organizationId: org.id,
        email: request.body.email,
        role: request.body.role ?? 'member',
        message: request.body.message,
        ttlSeconds: deps.inviteTtl,
        inviterId: caller?.kind === 'access-token' ? caller.subject : undefined,
      });
      const issued = await sendInvite(deps, invite, token, org.name);
      return reply.code(201).send(issued);
    },
  );
}

function listInvitesRoute(scope: TypedScope, deps: InviteDeps): void {
  scope.get(
    '/organizations/:id/invites',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'listInvites',
        tags,
        security,
        summary: "An organization's invitations, oldest first",
        params: Params,
        querystring: Type.Object(
          { ...Page.properties, status: Type.Optional(Status) },
          { additionalProperties: false },
        ),
        response: { 200: pageOf(InviteOut), ...Errors },
      },
    },
    async (request) => {
      await existingOrganization(deps.db, request.params.id);
      const { limit, cursor, status } = request.query;
      const rows = await listInvites(deps.db, request.params.id, {
        status,
        limit: limit + 1,
        after: decodeCursor(cursor, ByTime),
      });
      return toPage(
        rows,
        limit,
        (i) => i.position,
        ({ position: _, ...i }) => i,
      );
    },
  );
}

function getInviteRoute(scope: TypedScope, deps: InviteDeps): void {
  scope.get(
    '/organizations/:id/invites/:inviteId',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'getInvite',
        tags,
        security,
        summary: 'One invitation',
        params: InviteParams,
        response: { 200: InviteOut, ...Errors },
      },
    },
    async (request) => {
      const invite = await findInvite(deps.db, request.params.id, request.params.inviteId);
      if (!invite) throw new HttpError(404, 'NOT_FOUND', 'no invitation with this id in this organization');
      return invite;
    },
  );
}

function resendInviteRoute(scope: TypedScope, deps: InviteDeps): void {
  scope.post(
    '/organizations/:id/invites/:inviteId/resend',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'resendInvite',
        tags,
        security,
        summary: 'Re-issue a pending invitation: a new token and expiry (the old link stops working), mailed again',
        params: InviteParams,
        response: { 200: Issued, ...Errors },
      },
    },
    async (request) => {
      const org = await existingOrganization(deps.db, request.params.id);
      const issued = await resendInvite(deps.db, org.id, request.params.inviteId, deps.inviteTtl);
      if (!issued) throw new HttpError(404, 'NOT_FOUND', 'no invitation with this id in this organization');
      return sendInvite(deps, issued.invite, issued.token, org.name);
    },
  );
}

function revokeInviteRoute(scope: TypedScope, deps: InviteDeps): void {
  scope.post(
    '/organizations/:id/invites/:inviteId/revoke',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'revokeInvite',
        tags,
        security,
        summary: 'Revoke a pending invitation (409 from any other state)',
        params: InviteParams,
        response: { 200: InviteOut, ...Errors },
      },
    },
    async (request) => {
      const invite = await revokeInvite(deps.db, request.params.id, request.params.inviteId);
      if (!invite) throw new HttpError(404, 'NOT_FOUND', 'no invitation with this id in this organization');
      return invite;
    },
  );
}
