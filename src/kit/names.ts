/**
 * White space only, counting the zero-width characters that print as nothing: such a name shows as an empty cell
 * in every list, so a project, key or destination with one could not be told apart or picked out.
 */
const BLANK = /^[\s\u200B-\u200D\u2060]*$/;

export const isBlank = (name: string): boolean => BLANK.test(name);
