import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import './dialog.css';

const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';
/** A radio button Tab passes over: its group has another one chosen. */
const unselectedRadio = (el: HTMLElement) =>
  el instanceof HTMLInputElement &&
  el.type === 'radio' &&
  !el.checked &&
  el.form?.querySelector(`input[type="radio"][name="${CSS.escape(el.name)}"]:checked`) != null;

/**
 * A modal dialog: the browser's `<dialog>` opened with showModal, so the rest of the page is inert and the keyboard
 * stays inside it (Tab wraps from its last control to its first). When it opens the focus goes to the element marked `data-autofocus`, else to Cancel (never to the
 * action that changes something); Escape or Cancel closes it, and the focus goes back to what had it before (WCAG
 * 2.4.3), or to the screen's heading when that is gone. What went wrong is said inside it, in an alert.
 */
export function Dialog({
  open,
  title,
  confirm,
  danger = false,
  busy = false,
  error,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean;
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
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      d.showModal();
      (d.querySelector<HTMLElement>('[data-autofocus]') ?? cancel.current)?.focus();
    } else if (!open && d.open) {
      d.close();
    }
  }, [open]);

  const closed = () => {
    const back = opener.current;
    opener.current = null;
    const target =
      back instanceof HTMLElement && back.isConnected ? back : document.querySelector<HTMLElement>('main h1');
    target?.focus();
    if (open) onClose();
  };

  // The page behind is inert, but Tab would still leave for the browser's own controls: it wraps around instead.
  const wrap = (e: KeyboardEvent<HTMLDialogElement>) => {
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
  };

  return (
    <dialog ref={dialog} className="dialog" aria-labelledby={titleId} onClose={closed} onKeyDown={wrap}>
      {open && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            onConfirm();
          }}
        >
          <h2 id={titleId}>{title}</h2>
          {children}
          {error && (
            <p role="alert" className="error">
              {error}
            </p>
          )}
          <div className="actions">
            <button type="submit" className={danger ? 'danger' : undefined} disabled={busy}>
              {confirm}
            </button>
            <button type="button" className="secondary" ref={cancel} onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
