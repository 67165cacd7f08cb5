import type { Link } from '../engine/page-reads.ts';
import { urlPatternMatcher } from '../url-pattern.ts';
import type { SessionConfig } from './types.ts';

/** log out, logout, log_off, sign-out, signoff… as a word of a URL's path or query. */
const SIGN_OUT_URL = /(?:^|[^a-z])(?:log|sign)[-_ ]?(?:out|off)(?:[^a-z]|$)/i;
/** A link that says it signs out, whatever its address (`/session/end`). */
const SIGN_OUT_TEXT = /^\s*(?:log|sign)\s*-?\s*(?:out|off)\s*$/i;

/**
 * Whether following a link would end the audit's session: its address or text says it signs out, or it matches
 * one of the session's own patterns. Without a session every link may be followed.
 */
export function signOutFilter(session: SessionConfig | null | undefined): (link: Link) => boolean {
  if (!session) return () => false;
  const own = session.signOut.map(urlPatternMatcher);
  return (link) => {
    if (SIGN_OUT_TEXT.test(link.text)) return true;
    if (own.some((matches) => matches(link.url))) return true;
    try {
      const url = new URL(link.url);
      return SIGN_OUT_URL.test(decodeURIComponent(url.pathname + url.search));
    } catch {
      return false;
    }
  };
}
