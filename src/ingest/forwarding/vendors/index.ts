import { randomToken } from '../../../kit/crypto.ts';
import { amplitudeAdapter } from './amplitude.ts';
import { mixpanelAdapter } from './mixpanel.ts';
import { posthogAdapter } from './posthog.ts';
import { segmentAdapter } from './segment.ts';
import type { VendorAdapter } from './types.ts';
import { webhookAdapter } from './webhook.ts';

import { DESTINATION_KINDS, type DestinationKind } from './kinds.ts';

export { DESTINATION_KINDS, type DestinationKind };

export interface KindDefinition {
  adapter: VendorAdapter;
  /** The vendor's public endpoint; a destination may set its own (EU region, self-hosted, a test server). */
  defaultBaseUrl: string | undefined;
  /**
   * Checks the credentials and settings given at creation and returns the credentials to seal, with the one
   * value (if any) the caller must be shown once because it was generated here. Throws a message on bad input.
   */
  prepare(
    credentials: Record<string, unknown>,
    settings: Record<string, unknown>,
  ): { credentials: Record<string, string>; shownOnce?: Record<string, string> };
}

function requireString(credentials: Record<string, unknown>, name: string, kind: string): string {
  const v = credentials[name];
  if (typeof v !== 'string' || v.trim() === '')
    throw new Error(`credentials.${name}: required for ${kind} destinations`);
  return v;
}

function only(credentials: Record<string, unknown>, allowed: string[], kind: string): void {
  for (const k of Object.keys(credentials))
    if (!allowed.includes(k))
      throw new Error(`credentials.${k}: not a credential of ${kind} destinations (expected ${allowed.join(', ')})`);
}

export const KINDS: Record<DestinationKind, KindDefinition> = {
  webhook: {
    adapter: webhookAdapter,
    defaultBaseUrl: undefined,
    prepare(credentials) {
      only(credentials, ['secret'], 'webhook');
      if (credentials.secret === undefined) {
        const secret = `whsec_${randomToken(32)}`;
        return { credentials: { secret }, shownOnce: { secret } };
      }
      const secret = requireString(credentials, 'secret', 'webhook');
      if (secret.length < 16) throw new Error('credentials.secret: must be at least 16 characters');
      return { credentials: { secret } };
    },
  },
  posthog: {
    adapter: posthogAdapter,
    defaultBaseUrl: 'https://us.i.posthog.com',
    prepare(credentials) {
      only(credentials, ['api_key'], 'posthog');
      return { credentials: { api_key: requireString(credentials, 'api_key', 'posthog') } };
    },
  },
  segment: {
    adapter: segmentAdapter,
    defaultBaseUrl: 'https://api.segment.io',
    prepare(credentials) {
      only(credentials, ['write_key'], 'segment');
      return { credentials: { write_key: requireString(credentials, 'write_key', 'segment') } };
    },
  },
  mixpanel: {
    adapter: mixpanelAdapter,
    defaultBaseUrl: 'https://api.mixpanel.com',
    prepare(credentials, settings): { credentials: Record<string, string> } {
      only(credentials, ['project_token', 'service_account_username', 'service_account_secret'], 'mixpanel');
      if (credentials.service_account_username !== undefined || credentials.service_account_secret !== undefined) {
        const username = requireString(credentials, 'service_account_username', 'mixpanel service account');
        const secret = requireString(credentials, 'service_account_secret', 'mixpanel service account');
        if (typeof settings.project_id !== 'string' && typeof settings.project_id !== 'number')
          throw new Error('settings.project_id: required with a mixpanel service account');
        return { credentials: { service_account_username: username, service_account_secret: secret } };
      }
      return {
        credentials: {
          project_token: requireString(
            credentials,
            'project_token',
            'mixpanel (or service_account_username and service_account_secret)',
          ),
        },
      };
    },
  },
  amplitude: {
    adapter: amplitudeAdapter,
    defaultBaseUrl: 'https://api2.amplitude.com',
    prepare(credentials, settings) {
      only(credentials, ['api_key'], 'amplitude');
      if (
        settings.min_id_length !== undefined &&
        !(Number.isInteger(settings.min_id_length) && (settings.min_id_length as number) >= 1)
      )
        throw new Error('settings.min_id_length: must be a positive integer');
      return { credentials: { api_key: requireString(credentials, 'api_key', 'amplitude') } };
    },
  },
};

export function isDestinationKind(v: string): v is DestinationKind {
  return (DESTINATION_KINDS as readonly string[]).includes(v);
}
