/** Identity's signing keys as the console reads them (src/identity/signing-keys/routes.ts). */
export type KeyState = 'signing' | 'next' | 'retired' | 'expired';

export interface ApiSigningKey {
  kid: string;
  alg: string;
  created_at: string;
  retired_at: string | null;
  publish_until: string | null;
  state: KeyState;
  published: boolean;
  served: boolean;
  signs_from: string | null;
}

export interface ApiSigningKeys {
  items: ApiSigningKey[];
  next: string | null;
  jwks_uri: string;
  propagation_seconds: number;
}

export interface ApiRotation {
  kid: string;
  retired: string[];
  signs_from: string;
}
