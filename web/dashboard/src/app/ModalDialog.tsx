import { useEffect, useId, useRef, type ReactNode } from 'react';
import './console-screens.css';

/**
 * A modal dialog on the browser's own `<dialog>`: `showModal()` makes the rest of the page inert (the keyboard stays
 * inside), Escape closes it, and closing gives the focus back to what had it when it opened (the button that opened
 * it), or to `fallback` when that is gone (a row removed by the dialog's action). Rendered only while open. The element
 * marked `data-autofocus` takes the focus first (React does not pass `autoFocus` on to the DOM).
 */
export function ModalDialog({
  title,
  onClose,
  children,
  fallback,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  fallback?: () => HTMLElement | null | undefined;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const close = useRef(onClose);
  close.current = onClose;
  const fallbackRef = useRef(fallback);
  fallbackRef.current = fallback;
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    const cancel = (e: Event) => {
      e.preventDefault();
      close.current();
    };
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('cancel', cancel);
      if (dialog.open) dialog.close();
      const back = opener?.isConnected ? opener : (fallbackRef.current?.() ?? document.querySelector('main h1'));
      if (back instanceof HTMLElement) {
        if (back.tabIndex < 0 && !back.hasAttribute('tabindex')) back.tabIndex = -1;
        back.focus();
      }
    };
  }, []);
  return (
    <dialog ref={ref} className="modal" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/**
 * "Are you sure?" for an action that cannot be taken back (remove, revoke, rotate): says what will happen, and runs
 * `onConfirm` only on the explicit button. A refusal is said inside the dialog, which stays open; the focus starts on
 * Cancel, the safe choice.
 */
export function ConfirmDialog({
  title,
  children,
  confirm,
  busy,
  error,
  onConfirm,
  onClose,
  fallback,
}: {
  title: string;
  children: ReactNode;
  confirm: string;
  busy: boolean;
  error: string | undefined;
  onConfirm: () => void;
  onClose: () => void;
  fallback?: () => HTMLElement | null | undefined;
}) {
  return (
    <ModalDialog title={title} onClose={onClose} {...(fallback ? { fallback } : {})}>
      <div className="dialog-body">{children}</div>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="actions">
        <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" className="secondary" data-autofocus onClick={onClose}>
          Cancel
        </button>
      </div>
    </ModalDialog>
  );
}
