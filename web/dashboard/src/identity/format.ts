const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A moment to the second, in the person's time zone: for activity, where minutes are too coarse. */
export const at = (iso: string | null | undefined): string => (iso ? dateTime.format(new Date(iso)) : 'never');

const languages = new Intl.DisplayNames(undefined, { type: 'language' });

/** A language tag as people read it, "English (en)"; a tag the browser cannot name (any text identity holds) as is. */
export const language = (tag: string): string => {
  try {
    const name = languages.of(tag);
    return name && name !== tag ? `${name} (${tag})` : tag;
  } catch {
    return tag;
  }
};
