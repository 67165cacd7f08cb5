import type { KoaContextWithOIDC } from 'oidc-provider';
import { errorBlock, escapeHtml, page } from '../web/layout.ts';

// The device sign-in's pages (RFC 8628, the provider's deviceFlow): where the person types the code a device (a CLI, a
// TV) shows, confirms it, and is told they can go back to the device. Rendered in the service's accessible layout; the
// forms are ours too (a labelled field, no inline script), carrying the provider's action and CSRF value.

/** The action and CSRF value of the form the provider made. */
function formParts(form: string): { action: string; xsrf: string } {
  const action = /action="([^"]+)"/.exec(form)?.[1] ?? '/oauth/device';
  const xsrf = /name="xsrf" value="([^"]*)"/.exec(form)?.[1] ?? '';
  return { action, xsrf };
}

function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
}

/** What went wrong with a typed code, in words that say what to do; undefined when nothing did. */
function problem(err: (Error & { name: string }) | undefined, out: { error?: string } | undefined): string | undefined {
  if (!err) return undefined;
  switch (err.name) {
    case 'NoCodeError':
      return 'Enter the code your device shows.';
    case 'NotFoundError':
      return 'This code is not right. Check the code on your device and type it again.';
    case 'ExpiredError':
      return 'This code has expired. Start again on your device to get a new code.';
    case 'AlreadyUsedError':
      return 'This code was used already. Start again on your device to get a new code.';
    case 'TooManyGuessesError': {
      const wait = (err as Error & { wait?: number }).wait ?? 1;
      return `Too many wrong codes from here. Wait ${wait} second${wait === 1 ? '' : 's'} and try again.`;
    }
    case 'AbortedError':
      return 'You cancelled the sign-in. The device was told; start again there if you want to.';
    default:
      return out?.error === 'access_denied'
        ? 'The sign-in was refused. The device was told; start again there if you want to.'
        : 'The sign-in could not be completed. Start again on your device.';
  }
}

export async function deviceCodeInputPage(
  ctx: KoaContextWithOIDC,
  form: string,
  out?: { error?: string },
  err?: Error & { name: string; userCode?: string },
): Promise<void> {
  const { action, xsrf } = formParts(form);
  const error = problem(err, out);
  // A refused code is the person's input to fix (400); a cancelled or refused sign-in is an outcome, not an input error.
  if (err && ['NoCodeError', 'NotFoundError', 'ExpiredError', 'AlreadyUsedError'].includes(err.name)) ctx.status = 400;
  if (err?.name === 'TooManyGuessesError') {
    ctx.status = 429;
    ctx.set('Retry-After', String((err as Error & { wait?: number }).wait ?? 1));
  }
  const invalid = error
    ? ' aria-invalid="true" aria-describedby="form-error code-hint"'
    : ' aria-describedby="code-hint"';
  ctx.type = 'html';
  ctx.body = page({
    title: error ? 'Error: Connect a device' : 'Connect a device',
    body: `<h1>Connect a device</h1>
${errorBlock(error)}
<form method="post" action="${escapeHtml(action)}" novalidate>
${hidden('xsrf', xsrf)}
<label for="user_code">Code shown on your device</label>
<p class="hint" id="code-hint">8 letters, such as BCDF-GHJK. Capitals or not, the dash is optional.</p>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus value="${escapeHtml(err?.userCode ?? '')}"${invalid}>
<button class="primary" type="submit">Continue</button>
</form>`,
  });
}

export async function deviceCodeConfirmPage(
  ctx: KoaContextWithOIDC,
  form: string,
  client: { clientName?: string | undefined; clientId: string },
  _deviceInfo: unknown,
  userCode: string,
): Promise<void> {
  const { action, xsrf } = formParts(form);
  const app = client.clientName || client.clientId;
  ctx.type = 'html';
  ctx.body = page({
    title: `Connect ${app}`,
    body: `<h1>Connect ${escapeHtml(app)}?</h1>
<p>Check that your device shows this code:</p>
<p class="device-code"><strong>${escapeHtml(userCode)}</strong></p>
<p>Continue only if you started this sign-in on the device yourself. If not, or if the codes differ, cancel.</p>
<form method="post" action="${escapeHtml(action)}">
${hidden('xsrf', xsrf)}
${hidden('user_code', userCode)}
${hidden('confirm', 'yes')}
<button class="primary" type="submit" autofocus>Continue</button>
<button class="secondary" type="submit" name="abort" value="yes">Cancel</button>
</form>`,
  });
}

export async function deviceSuccessPage(ctx: KoaContextWithOIDC): Promise<void> {
  const app = ctx.oidc.client?.clientName || ctx.oidc.client?.clientId || 'the device';
  ctx.type = 'html';
  ctx.body = page({
    title: 'Device connected',
    body: `<h1>Device connected</h1>
<p role="status">${escapeHtml(app)} is signed in. Go back to your device; you can close this page.</p>`,
  });
}
