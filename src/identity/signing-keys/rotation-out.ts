import type { Rotation } from '../oidc/signing-keys.ts';

/** A rotation as the management API answers it and `platform identity keys rotate --json` prints it. */
export interface RotationOut {
  kid: string;
  retired: string[];
  signs_from: string;
  immediately: boolean;
}

export function rotationOut(r: Rotation): RotationOut {
  return { kid: r.kid, retired: r.retired, signs_from: r.signsFrom, immediately: r.immediately };
}
