/**
 * A URL pattern as sign-in steps, sign-out rules and ignore rules write it: `*` stands for any characters (`/`
 * included), everything else is itself. A pattern starting with `/` is matched against the URL's path and query
 * (`/account*`), any other against the whole URL (`https://example.com/app/*`). The whole text must match.
 */
export function urlPatternMatcher(pattern: string): (url: string) => boolean {
  const expression = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    's',
  );
  const onPath = pattern.startsWith('/');
  return (url) => {
    if (!onPath) return expression.test(url);
    try {
      const parsed = new URL(url);
      return expression.test(parsed.pathname + parsed.search);
    } catch {
      return false;
    }
  };
}
