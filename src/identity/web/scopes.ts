/** What each scope lets an app do, in the words the consent, connected apps and agents pages show. */
const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know who you are (your account identifier)',
  profile: 'See your name, language and time zone',
  email: 'See your email address',
  offline_access: 'Stay connected when you are not using it',
  admin: 'Manage the platform: accounts, applications and their access',
};

export function describeScope(scope: string): string {
  return SCOPE_TEXT[scope] ?? `Use the "${scope}" permission`;
}
