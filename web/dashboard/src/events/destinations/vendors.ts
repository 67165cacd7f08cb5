import type { DestinationKind } from '../admin-api.ts';

interface SecretField {
  name: string;
  label: string;
  required: boolean;
  hint?: string;
}

/** What the console asks for each kind of destination (docs/ingest.md, *Destinations*): its address and its secrets. */
export interface VendorForm {
  label: string;
  url: { label: string; required: boolean; hint: string };
  secrets: SecretField[];
}

export const VENDORS: Record<DestinationKind, VendorForm> = {
  webhook: {
    label: 'Webhook',
    url: {
      label: 'Receiving URL',
      required: true,
      hint: 'Events are POSTed here as {"events":[…]}, signed in X-Ingest-Signature. Kept sealed: only its host is shown.',
    },
    secrets: [
      {
        name: 'secret',
        label: 'Signing secret (optional)',
        required: false,
        hint: 'At least 16 characters. Left empty, one is made and shown once.',
      },
    ],
  },
  posthog: {
    label: 'PostHog',
    url: {
      label: 'API host (optional)',
      required: false,
      hint: 'Empty: https://us.i.posthog.com. The EU cloud or your own.',
    },
    secrets: [{ name: 'api_key', label: 'Project API key', required: true }],
  },
  segment: {
    label: 'Segment',
    url: { label: 'API host (optional)', required: false, hint: 'Empty: https://api.segment.io.' },
    secrets: [{ name: 'write_key', label: 'Write key', required: true }],
  },
  mixpanel: {
    label: 'Mixpanel',
    url: {
      label: 'API host (optional)',
      required: false,
      hint: 'Empty: https://api.mixpanel.com. The EU one is https://api-eu.mixpanel.com.',
    },
    secrets: [{ name: 'project_token', label: 'Project token', required: true }],
  },
  amplitude: {
    label: 'Amplitude',
    url: {
      label: 'API host (optional)',
      required: false,
      hint: 'Empty: https://api2.amplitude.com. The EU one is https://api.eu.amplitude.com.',
    },
    secrets: [{ name: 'api_key', label: 'API key', required: true }],
  },
};

export const vendorName = (kind: string): string => VENDORS[kind as DestinationKind]?.label ?? kind;
