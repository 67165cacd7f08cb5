import { openSealedString } from '../../kit/crypto.ts';

/**
 * The plaintexts of the sealed token payloads opened last (issue 33). A token's payload is sealed once, when it is
 * issued, and never changes, while a resource server introspects the same token again and again: opening it
 * (AES-256-GCM set-up, base64url decoding, the tag check) was a tenth of an introspection's CPU. Only the opening is
 * remembered: the row itself, with its revocation and consumption, is read from the database on every request. An
 * entry is found by the whole sealed text (its random IV makes it unique) and used only with the same key and the
 * same context (the model and the id's hash it was bound to), so a payload copied into another row still fails to
 * open there. The plaintext holds no token value (the adapter takes the jti out before sealing).
 */
export class OpenedPayloads {
  private readonly entries = new Map<string, { key: Buffer; context: string; plaintext: string }>();
  private readonly maxEntries: number;

  constructor(maxEntries = 4096) {
    this.maxEntries = maxEntries;
  }

  open(key: Buffer, sealed: string, context: string): string {
    const hit = this.entries.get(sealed);
    if (hit && hit.key === key && hit.context === context) return hit.plaintext;
    const plaintext = openSealedString(key, sealed, context);
    // The oldest entry goes first: a token introspected often is opened again at most once per maxEntries others.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(sealed, { key, context, plaintext });
    return plaintext;
  }
}
