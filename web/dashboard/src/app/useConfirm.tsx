import { type ReactNode, useCallback, useState } from 'react';
import { ConfirmDialog } from './ModalDialog.tsx';

export interface Question {
  /** What is about to happen, as a question: "Delete the channel Pager?". */
  title: string;
  /** What follows from it. */
  body: ReactNode;
  /** The label of the button that does it. */
  confirm: string;
}

/**
 * Asks before an action that cannot be taken back in the console's own dialog (ConfirmDialog: the page's colours,
 * the focus on Cancel, Escape closes it), not the browser's `confirm()`, which drew a box of its own in neither theme
 * and named the site rather than the action. `ask` resolves true when the action's button is pressed, false when the
 * dialog closes any other way; `dialog` is rendered where the screen puts it.
 */
export function useConfirm(): [(q: Question) => Promise<boolean>, ReactNode] {
  const [open, setOpen] = useState<Question & { answer: (yes: boolean) => void }>();
  const ask = useCallback((q: Question) => new Promise<boolean>((answer) => setOpen({ ...q, answer })), []);
  const answer = (yes: boolean) => {
    open?.answer(yes);
    setOpen(undefined);
  };
  const dialog = open && (
    <ConfirmDialog
      title={open.title}
      confirm={open.confirm}
      busy={false}
      error={undefined}
      onConfirm={() => answer(true)}
      onClose={() => answer(false)}
    >
      <p>{open.body}</p>
    </ConfirmDialog>
  );
  return [ask, dialog];
}
