import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import './console-screens.css';

const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';
/** A radio button Tab passes over: its group has another one chosen. */
const unselectedRadio = (el: HTMLElement) =>
  el instanceof HTMLInputElement &&
  el.type === 'radio' &&
  !el.checked &&
  el.form?.querySelector(`input[type="radio"][name="${CSS.escape(el.name)}"]:checked`) != null;

/** The page behind is inert, but Tab would still leave for the browser's own controls: it wraps around instead. */
function wrapTab(e: KeyboardEvent<HTMLDialogElement>): void {
  if (e.key !== 'Tab') return;
  const stops = [...e.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => !el.matches(':disabled') && el.getClientRects().length > 0 && !unselectedRadio(el),
  );
  const first = stops[0];
  const last = stops.at(-1);
  if (!first || !last) return;
  if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  } else if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  }
}

/**
 * A modal dialog on the browser's own `<dialog>`: `showModal()` makes the rest of the page inert, Tab wraps from its
 * last control to its first, Escape closes it, and closing gives the focus back to what had it when it opened (the
 * button that opened it), or to `fallback` when that is gone (a row removed by the dialog's action). Rendered only
 * while open. The first element marked `data-autofocus` takes the focus (React does not pass `autoFocus` on to the DOM).
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
    <dialog ref={ref} className="modal" aria-labelledby={titleId} onKeyDown={wrapTab}>
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
      <DialogEnd error={error} onClose={onClose}>
        <button type="button" className="danger" disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
      </DialogEnd>
    </ModalDialog>
  );
}

/**
 * A dialog that asks for a few details before an action (why a secret is revoked, how long the old one lasts): a form
 * whose submit runs `onConfirm`. A refusal is said inside it, which stays open; the focus starts on the field marked
 * `data-autofocus`, else on Cancel (never on the action that changes something).
 */
export function FormDialog({
  title,
  confirm,
  danger = false,
  busy = false,
  error,
  onConfirm,
  onClose,
  children,
}: {
  title: string;
  /** The label of the button that does it. */
  confirm: string;
  danger?: boolean;
  busy?: boolean;
  error?: string | undefined;
  onConfirm: () => void;
  onClose: () => void;
  children?: ReactNode;
}) {
  return (
    <ModalDialog title={title} onClose={onClose}>
      <form
        className="dialog-form"
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm();
        }}
      >
        {children}
        <DialogEnd error={error} onClose={onClose}>
          <button type="submit" className={danger ? 'danger' : undefined} disabled={busy}>
            {confirm}
          </button>
        </DialogEnd>
      </form>
    </ModalDialog>
  );
}

/**
 * The end of a dialog that asks before an action: its refusal, in an alert, then the action and Cancel, which takes the
 * focus first (the safe choice) unless a field is marked `data-autofocus` before it. Every dialog's form ends with it.
 */
export function DialogEnd({
  error,
  onClose,
  children,
}: {
  error: string | undefined;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="actions">
        {children}
        <button type="button" className="secondary" data-autofocus onClick={onClose}>
          Cancel
        </button>
      </div>
    </>
  );
}
