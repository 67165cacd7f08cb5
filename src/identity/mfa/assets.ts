import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { Type } from 'typebox';
import type { App } from '../../kit/app.ts';
import { PUBLIC } from '../access/rules.ts';

// The browser library comes from the pinned npm package (its UMD bundle defines window.SimpleWebAuthnBrowser);
// no CDN: the pages' CSP allows scripts from this origin only.
function browserBundle(): string {
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return readFileSync(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');
}

/** The two scripts of the passkey forms, read once at start. */
export function registerPasskeyAssets(app: App): void {
  const files: Record<string, string> = {
    '/assets/simplewebauthn-browser.js': browserBundle(),
    '/assets/passkey.js': readFileSync(new URL('./static/passkey.js', import.meta.url), 'utf8'),
  };
  for (const [url, body] of Object.entries(files)) {
    const name = url.slice('/assets/'.length).replace(/\.js$/, '');
    app.get(
      url,
      {
        config: { access: PUBLIC },
        schema: {
          operationId: name === 'passkey' ? 'passkeyScript' : 'simpleWebAuthnBrowserScript',
          tags: ['sign-in'],
          summary:
            name === 'passkey'
              ? 'The script of the passkey forms'
              : '@simplewebauthn/browser (UMD bundle), served from this origin',
          response: { 200: Type.String({ description: 'JavaScript' }) },
        },
      },
      async (_request, reply) =>
        reply
          .header('content-type', 'text/javascript; charset=utf-8')
          .header('cache-control', 'public, max-age=3600')
          .header('x-content-type-options', 'nosniff')
          .send(body),
    );
  }
}
