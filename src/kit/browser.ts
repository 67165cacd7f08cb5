import { existsSync } from 'node:fs';

const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * Where the platform's browser is: CHROMIUM_PATH, else the system's Chromium, else the executable the
 * npm package `@sparticuz/chromium` unpacks (loaded only when needed, so machines with a system browser never pay for it).
 * PLATFORM_BROWSER=npm skips the system's Chromium, so the fallback can be proven on a machine that has both.
 */
export async function findChromium(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.CHROMIUM_PATH) {
    if (!existsSync(env.CHROMIUM_PATH))
      throw new Error(
        `CHROMIUM_PATH is malformed: expected the path of a Chromium executable (got "${env.CHROMIUM_PATH}", which does not exist)`,
      );
    return env.CHROMIUM_PATH;
  }
  const choice = env.PLATFORM_BROWSER ?? 'auto';
  if (choice !== 'auto' && choice !== 'npm')
    throw new Error(`PLATFORM_BROWSER is malformed: expected "auto" or "npm" (got "${choice}")`);
  if (choice === 'auto') for (const path of SYSTEM_CHROMIUM) if (existsSync(path)) return path;
  const name = '@sparticuz/chromium';
  try {
    const mod = (await import(name)) as { default: { executablePath(): Promise<string> } };
    return await mod.default.executablePath();
  } catch {
    throw new Error(
      'no Chromium found: install the system package `chromium`, set CHROMIUM_PATH, or install @sparticuz/chromium',
    );
  }
}

/** Flags for a headless Chromium on a machine with no outside network: no background traffic, no sandbox as root. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
