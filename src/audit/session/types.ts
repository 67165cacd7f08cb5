/**
 * What an audit does before its first page so that it sees a site as a signed-in person does: steps run in the
 * audit's browser, cookies and headers sent to the audited site. Values that are secrets are never written here:
 * a step, cookie or header names a stored secret (`secret`), and the audit is given its value when it runs.
 */
export type SessionStep =
  | { action: 'goto'; url: string }
  | { action: 'fill'; selector: string; value: string }
  | { action: 'fill'; selector: string; secret: string }
  | { action: 'click'; selector: string }
  | { action: 'waitForSelector'; selector: string }
  | { action: 'waitForUrl'; url: string };

/** A cookie or header whose value is the stored secret `secret`. */
export interface SecretField {
  name: string;
  secret: string;
}

export interface SessionConfig {
  /** Run in order, in one page of the audit's browser context, before the first page is audited. */
  steps: SessionStep[];
  /** Set for the audited URL's site before the steps run. */
  cookies: SecretField[];
  /** Sent with every request to the audited URL's origin, never to another origin (nor after a redirect there). */
  headers: SecretField[];
  /** URL patterns (`*` any characters) of links the crawl never follows, besides the sign-out links it knows. */
  signOut: string[];
}

/** The values of the secrets an audit's session names, by name; given to the audit when it runs, never stored with it. */
export type SecretValues = ReadonlyMap<string, string>;
