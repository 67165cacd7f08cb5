/**
 * The names people read for codes the services send for a kind of thing, one map per kind: sign-in providers and
 * marketplace product types. A code not listed is shown as sent: a provider is also any OpenID issuer an operator
 * configured under an id of their choosing, and a product type is whatever its seller typed.
 */
const PROVIDERS: Record<string, string> = {
  apple: 'Apple',
  azure: 'Microsoft Entra ID',
  facebook: 'Facebook',
  github: 'GitHub',
  gitlab: 'GitLab',
  google: 'Google',
  linkedin: 'LinkedIn',
  microsoft: 'Microsoft',
  okta: 'Okta',
  platform: 'Platform account',
  slack: 'Slack',
};

const PRODUCT_TYPES: Record<string, string> = {
  api: 'API',
  app: 'Application',
  connector: 'Connector',
  dataset: 'Data set',
  extension: 'Extension',
  integration: 'Integration',
  pack: 'Pack',
  plugin: 'Plugin',
  service: 'Service',
  template: 'Template',
  theme: 'Theme',
  widget: 'Widget',
};

// An own-property lookup: a code such as "constructor" is not a name.
const named = (names: Record<string, string>, code: string) =>
  Object.hasOwn(names, code.toLowerCase()) ? names[code.toLowerCase()]! : code;

/** "GitHub" for `github`; an issuer's own id as it is. */
export const providerName = (code: string) => named(PROVIDERS, code);
/** "Application" for `app`; a seller's own type as they typed it. */
export const productTypeName = (code: string) => named(PRODUCT_TYPES, code);
