import * as oidc from 'openid-client';
import { TestBrowser } from './browser.ts';
import { authorizeInBrowser, CALLBACK } from './dance.ts';
import { basic, form, type Server } from './support.ts';

export const USER_URN = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const PATCH_URN = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_URN = 'urn:ietf:params:scim:api:messages:2.0:Error';

export interface ScimAnswer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/**
 * A SCIM client as a directory is one: `application/scim+json` bodies with a connection's bearer token. `raw` sends a
 * body as it is (malformed JSON, another content type).
 */
export function scimClient(issuer: () => string, token: () => string) {
  return async (
    path: string,
    init: {
      method?: string;
      body?: unknown;
      raw?: string;
      contentType?: string;
      token?: string | null;
    } = {},
  ): Promise<ScimAnswer> => {
    const bearer = init.token === undefined ? token() : init.token;
    const headers: Record<string, string> = {
      accept: 'application/scim+json',
      ...(bearer !== null ? { authorization: `Bearer ${bearer}` } : {}),
    };
    let body: string | undefined;
    if (init.raw !== undefined || init.body !== undefined) {
      headers['content-type'] = init.contentType ?? 'application/scim+json';
      body = init.raw ?? JSON.stringify(init.body);
    }
    const r = await fetch(`${issuer()}/scim/v2${path}`, { method: init.method ?? 'GET', headers, body });
    const text = await r.text();
    let parsed: any;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: r.status, body: parsed, text, headers: r.headers };
  };
}

/** A User as Okta sends it at assignment. */
export function oktaUser(email: string, more: Record<string, unknown> = {}) {
  return {
    schemas: [USER_URN],
    userName: email,
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ primary: true, value: email, type: 'work' }],
    displayName: 'Ada Lovelace',
    locale: 'en-US',
    externalId: `00u${email.length}abc`,
    groups: [],
    active: true,
    ...more,
  };
}

export const patchOf = (...Operations: unknown[]) => ({ schemas: [PATCH_URN], Operations });

/**
 * A person's tokens through the authorization code flow, signed in with their password in a browser of their own:
 * what stops counting when the person is deactivated.
 */
export async function signedInTokens(server: Server, who: { email: string; password: string }) {
  const web = await server.registerApp({
    name: `App of ${who.email}`,
    appType: 'web',
    redirectUris: [CALLBACK],
    firstParty: true,
    allowedScopes: ['openid', 'email'],
  });
  const config = await oidc.discovery(
    new URL(server.issuer),
    web.clientId,
    web.secret,
    oidc.ClientSecretBasic(web.secret!),
    { execute: [oidc.allowInsecureRequests] },
  );
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: 'openid email',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const browser = new TestBrowser();
  const { callback } = await authorizeInBrowser(server.issuer, browser, url.href, who);
  const tokens = await oidc.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier });
  return { web, tokens, browser };
}

export function introspector(server: Server, app: { clientId: string; secret: string | undefined }) {
  return async (token: string) =>
    (await form(`${server.issuer}/oauth/introspect`, { token }, { authorization: basic(app.clientId, app.secret!) }))
      .json;
}
