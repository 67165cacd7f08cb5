import Bowser from 'bowser';

/**
 * "Chrome 140 on Linux", from a User-Agent header, so a person can tell their sessions apart. Parsed by bowser
 * (pinned): User-Agent strings are too irregular to parse by hand. The browser's major version only: the rest changes
 * every week and tells the person nothing.
 */
export function describeDevice(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser';
  const { browser, os } = Bowser.parse(userAgent);
  const name = browser.name
    ? `${browser.name}${browser.version ? ` ${browser.version.split('.')[0]}` : ''}`
    : 'Unknown browser';
  // The system's name alone: its version in a User-Agent is frozen by today's browsers (every Mac says 10.15.7).
  return os.name ? `${name} on ${os.name}` : name;
}
