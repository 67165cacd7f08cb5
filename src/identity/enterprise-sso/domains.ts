import { HttpError } from '../../kit/errors.ts';

const DOMAIN = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * Mail services anyone can have an address at: binding one would send strangers to one organization's IdP (and make
 * its IdP authoritative for them). A short list of the largest, not a complete one; the admin vouches for the rest.
 */
export const PUBLIC_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'yahoo.com',
  'ymail.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'aol.com',
  'proton.me',
  'protonmail.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'mail.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'qq.com',
  '163.com',
  '126.com',
  'zoho.com',
  'fastmail.com',
  'tutanota.com',
  'hey.com',
]);

/** The domains as stored: lower case, each a host name with a dot, none a public mail service, no repeats. */
export function checkDomains(raw: readonly string[]): string[] {
  const out = new Set<string>();
  for (const d of raw) {
    const domain = d.trim().toLowerCase().replace(/\.$/, '');
    if (!DOMAIN.test(domain)) throw new HttpError(400, 'VALIDATION_ERROR', `domains: ${d} is not a domain name`);
    if (PUBLIC_MAIL_DOMAINS.has(domain))
      throw new HttpError(
        400,
        'VALIDATION_ERROR',
        `domains: ${domain} is a public mail service, whose addresses no organization can vouch for`,
      );
    out.add(domain);
  }
  return [...out];
}
