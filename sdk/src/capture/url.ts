/** A URL without its query string and fragment, which can carry tokens (`/reset?token=…`) and are never captured. */
export const withoutQuery = (url: string): string => url.replace(/[?#][\s\S]*$/, '');
