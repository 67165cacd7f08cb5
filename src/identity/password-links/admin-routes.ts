import { ADMIN } from '../access/rules.ts';
import { Type } from 'typebox';
import type { Database } from '../../kit/db.ts';
import type { TypedScope } from '../api/scope.ts';
import { Errors, Security, Uuid } from '../api/schemas.ts';
import { issueSetupLink } from './issue.ts';
import { passwordLinkUrl } from './store.ts';

export interface PasswordLinkAdminDeps {
  db: Database;
  issuer: string;
  /** IDENTITY_PASSWORD_LINK_TTL, in seconds. */
  passwordLinkTtl: number;
}

const LinkOut = Type.Object({
  link: Type.String({
    format: 'uri',
    description:
      'The one-time page where the person chooses a password; answered this once, kept only as the SHA-256 of its token.',
  }),
  expires_at: Type.String({
    format: 'date-time',
    description: 'IDENTITY_PASSWORD_LINK_TTL after now (7 days by default).',
  }),
  principal_id: Uuid,
  email: Type.String(),
});

/** `POST /api/v1/principals/:id/password-link` (each route declares ADMIN access). */
export async function registerPasswordLinkAdminRoutes(scope: TypedScope, deps: PasswordLinkAdminDeps): Promise<void> {
  scope.post(
    '/principals/:id/password-link',
    {
      config: { access: ADMIN },
      schema: {
        operationId: 'issuePasswordLink',
        tags: ['management'],
        security: Security,
        summary:
          'A new one-time "choose your password" link for a human with no way to sign in yet; the older unused ones stop working',
        description:
          'For a person who never chose a password (their link expired or was lost). 409 when they already have a password, a passkey or a linked account, or are deactivated; 400 for a principal that is not a human.',
        params: Type.Object({ id: Uuid }),
        response: { 201: LinkOut, ...Errors },
      },
    },
    async (request, reply) => {
      const made = await issueSetupLink(deps.db, {
        who: { principalId: request.params.id },
        ttlSeconds: deps.passwordLinkTtl,
      });
      // A credential until used: no cache may keep it.
      reply.header('cache-control', 'no-store');
      return reply.code(201).send({
        link: passwordLinkUrl(deps.issuer, made.token),
        expires_at: made.expiresAt,
        principal_id: made.principalId,
        email: made.email,
      });
    },
  );
}
