import { en, type Messages } from './i18n/en.ts';

/** What each scope lets an app do, in the words the consent, connected apps and agents pages show, in their language. */
export function describeScope(scope: string, t: Messages['scopes'] = en.scopes): string {
  const own = Object.hasOwn(t, scope) && scope !== 'other' ? t[scope as keyof typeof t] : undefined;
  return typeof own === 'string' ? own : t.other(scope);
}
