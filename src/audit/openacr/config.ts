import { optionalStr, str } from '../../kit/config.ts';

/** The author an OpenACR report names when the caller gives none. */
export const openAcrVariables = {
  openAcrAuthorName: str('AUDIT_OPENACR_AUTHOR_NAME', {
    default: 'Platform accessibility audit (automated)',
    doc: 'Author name of OpenACR reports when the request gives no `author_name`.',
  }),
  openAcrAuthorEmail: optionalStr('AUDIT_OPENACR_AUTHOR_EMAIL', {
    doc: "Author email of OpenACR reports when the request gives no `author_email`. Unset: an empty string (GSA's schema requires the field).",
  }),
};
