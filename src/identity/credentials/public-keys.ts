import { importSPKI, type CryptoKey } from 'jose';

/** Imported keys by algorithm and PEM: a registered key never changes, so one import serves every assertion it signs. */
const imported = new Map<string, Promise<CryptoKey>>();
// Bounded: forgetting a key only costs its next assertion one more import.
const MAX_KEYS = 10_000;

/**
 * A registered public key ready to verify with. Importing parses the PEM and checks the curve or modulus, which cost a
 * key-pair token ~8% of its CPU when done per assertion (issue 14). A failed import is not kept.
 */
export function publicKeyOf(pem: string, algorithm: string): Promise<CryptoKey> {
  const id = `${algorithm}\n${pem}`;
  let key = imported.get(id);
  if (!key) {
    if (imported.size >= MAX_KEYS) imported.clear();
    key = importSPKI(pem, algorithm);
    imported.set(id, key);
    key.catch(() => imported.delete(id));
  }
  return key;
}
