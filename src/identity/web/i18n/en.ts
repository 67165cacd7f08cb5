/**
 * The fixed texts of the sign-in, consent and sign-out pages and the account navigation, in English: the catalogue every
 * other language must match key for key (`Messages`; fr.ts is typed with it, so a missing or extra key is a type error).
 * Names, addresses and scope codes are not messages: they are passed in and escaped by the templates.
 */
export const en = {
  signIn: {
    title: 'Sign in',
    errorTitle: 'Error: Sign in',
    continueTo: 'to continue to',
    email: 'Email address',
    password: 'Password',
    submit: 'Sign in',
    codeHint: 'No password, or forgot it? We can email you a code to sign in with instead.',
    emailCode: 'Email me a sign-in code',
    forgot: 'Forgot your password?',
    passkeyHeading: 'Or use a passkey',
    passkey: 'Use a passkey',
  },
  secondStep: {
    title: 'Two-step verification',
    errorTitle: 'Error: Two-step verification',
    signedInAs: 'Signed in as',
    oneMore: 'One more step confirms it is you.',
    code: 'Verification code',
    codeHint: 'The 6-digit code from your authenticator app, or one of your recovery codes.',
    verify: 'Verify',
    passkeyHeading: 'Or use a passkey',
    passkeyOnly: 'Confirm with one of your passkeys.',
    passkey: 'Use a passkey',
  },
  consent: {
    title: (app: string) => `Allow ${app} access`,
    /** The heading's text around the app's name (emphasised by the template). */
    headingBefore: 'Allow',
    headingAfter: 'to access your account?',
    signedInAs: 'Signed in as',
    asking: 'is asking to:',
    nothingMore: 'No additional access is requested.',
    allow: 'Allow',
    deny: 'Deny',
    withdraw: 'You can withdraw this access later; the application then loses its tokens.',
  },
  signOut: {
    title: 'Sign out',
    signedOutTitle: 'Signed out',
    notSignedIn: 'You are not signed in.',
    signInToAccount: 'Sign in to your account',
    signedInAs: 'You are signed in as',
    submit: 'Sign out',
  },
  forgot: {
    title: 'Forgot your password?',
    errorTitle: 'Error: Forgot your password?',
    email: 'Email address',
    hint: 'We mail a link to choose a new password to this address, if it has an account.',
    submit: 'Send the link',
    back: 'Back to sign in',
    sentTitle: 'Check your email',
    /** The text around the address (emphasised by the template). */
    sentBefore: 'If an account uses',
    sentAfter: 'a link to choose a new password is on its way there.',
    sentRules: (minutes: number) =>
      `The link works once, for ${minutes} minutes. Choosing a new password signs you out everywhere; a second step you have set up is still asked when you sign in.`,
    nothingArrived: 'Nothing arrived after a few minutes? Look in the spam folder, check the address, or ask again.',
  },
  /** What each scope lets an app do (web/scopes.ts); `other` for a scope without its own words. */
  scopes: {
    openid: 'Know who you are (your account identifier)',
    profile: 'See your name, language and time zone',
    email: 'See your email address',
    offline_access: 'Stay connected when you are not using it',
    admin: 'Manage the platform: accounts, applications and their access',
    other: (scope: string) => `Use the "${scope}" permission`,
  },
  accountNav: {
    label: 'Your account',
    password: 'Password',
    security: 'Sign-in security',
    email: 'Email address',
    linked: 'Linked accounts',
    sessions: 'Sessions',
    apps: 'Connected apps',
    agents: 'Agents',
    signOut: 'Sign out',
    someoneElse: 'Sign in as someone else',
  },
};

export type Messages = typeof en;
