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
