import { oneOf, optionalStr } from './config.ts';

/**
 * Variables the toolkit reads outside any one service's configuration, where they take effect (secret-key.ts and
 * service configs for NODE_ENV, browser.ts for the other two). Declared here as well so `.env.example` and
 * docs/configuration.md list them with the rest, each kept true by a test.
 */
export const processSpec = {
  nodeEnv: optionalStr('NODE_ENV', {
    doc: '`production` makes PLATFORM_SECRET_KEY and DASHBOARD_JWT_SECRET mandatory and refuses DASHBOARD_AUTH_DISABLED.',
  }),
  chromiumPath: optionalStr('CHROMIUM_PATH', {
    doc: 'Chromium executable for audits and browser tests. Unset: PLATFORM_BROWSER decides.',
  }),
  platformBrowser: oneOf('PLATFORM_BROWSER', ['auto', 'npm'], {
    default: 'auto',
    doc: '`auto`: the system Chromium (/usr/bin/chromium), else the npm package @sparticuz/chromium; `npm`: that package only.',
  }),
};
