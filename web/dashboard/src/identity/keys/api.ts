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

/** `POST /signing-keys/rotate`'s answer: the new key, the keys it takes over from, and when it signs. */
export interface ApiRotation {
  kid: string;
  retired: string[];
  /** Now for an immediate rotation; after `propagation_seconds` for a staged one. */
  signs_from: string;
  /** It signs at once (a compromised key): verifiers may reject what it signs until they fetch the JWKS again. */
  immediately: boolean;
}
