const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A moment to the second, in the person's time zone: for activity, where minutes are too coarse. */
export const at = (iso: string | null | undefined): string => (iso ? dateTime.format(new Date(iso)) : 'never');
