/** The app's page identity sends the browser back to (the built-in client's redirect URI, src/platform/links.ts). */
export const CONSOLE_CALLBACK_PATH = '/console/callback';
