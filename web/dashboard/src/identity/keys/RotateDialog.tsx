import { ConfirmDialog } from '../../app/ModalDialog.tsx';

/** A staged rotation (the new key signs after the wait) or an immediate one, for a compromised key. */
export type RotationKind = 'staged' | 'immediately';

/**
 * What a rotation does, said plainly before it is confirmed. The immediate one says its cost: apps holding a copy of
 * the JWKS without the new key reject what it signs until they fetch the JWKS again, which is what the wait avoids.
 */
export function RotateDialog({
  kind,
  wait,
  pending,
  busy,
  error,
  onConfirm,
  onClose,
}: {
  kind: RotationKind;
  /** How long a staged rotation waits, in words ("60 seconds"). */
  wait: string;
  /** A staged rotation's key is waiting to sign: an immediate rotation retires it too. */
  pending: boolean;
  busy: boolean;
  error: string | undefined;
  onConfirm: () => void;
  onClose: () => void;
}) {
  if (kind === 'staged') {
    return (
      <ConfirmDialog
        title="Rotate the signing key?"
        confirm="Rotate"
        busy={busy}
        error={error}
        onConfirm={onConfirm}
        onClose={onClose}
      >
        <p>
          A new key is published now and signs ID tokens in about {wait}, once every instance of identity serves it. The
          current key signs until then, and stays published until the ID tokens it signed have expired.
        </p>
      </ConfirmDialog>
    );
  }
  return (
    <ConfirmDialog
      title="Rotate the signing key immediately?"
      confirm="Rotate now"
      busy={busy}
      error={error}
      onConfirm={onConfirm}
      onClose={onClose}
    >
      <p>Only for a compromised key. A new key signs ID tokens from now on, without the usual wait of about {wait}.</p>
      <p>
        Apps that cached the published keys (the JWKS) may reject the ID tokens the new key signs, and so fail sign-ins,
        until they fetch the JWKS again.
      </p>
      <p>
        The current key stops signing now but stays published until the ID tokens it signed have expired, so those
        tokens keep verifying until then.
        {pending && ' The key waiting to sign from the last rotation is retired as well.'}
      </p>
    </ConfirmDialog>
  );
}
