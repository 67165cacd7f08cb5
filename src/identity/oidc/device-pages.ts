import type { KoaContextWithOIDC } from 'oidc-provider';
import { errorBlock, escapeHtml, page } from '../web/layout.ts';
import { localized, type Localized } from '../web/i18n/negotiate.ts';
import type { Messages } from '../web/i18n/en.ts';

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

/** The page's language from the request's Accept-Language; the answer says it varies by that header. */
function language(ctx: KoaContextWithOIDC): Localized {
  ctx.append('Vary', 'Accept-Language');
  return localized(ctx.get('accept-language') || undefined);
}

/** What went wrong with a typed code, in words that say what to do; undefined when nothing did. */
function problem(
  err: (Error & { name: string }) | undefined,
  out: { error?: string } | undefined,
  t: Messages['device'],
): string | undefined {
  if (!err) return undefined;
  switch (err.name) {
    case 'NoCodeError':
      return t.noCode;
    case 'NotFoundError':
      return t.notFound;
    case 'ExpiredError':
      return t.expired;
    case 'AlreadyUsedError':
      return t.used;
    case 'TooManyGuessesError':
      return t.throttled((err as Error & { wait?: number }).wait ?? 1);
    case 'AbortedError':
      return t.aborted;
    default:
      return out?.error === 'access_denied' ? t.refused : t.failed;
  }
}

export async function deviceCodeInputPage(
  ctx: KoaContextWithOIDC,
  form: string,
  out?: { error?: string },
  err?: Error & { name: string; userCode?: string },
): Promise<void> {
  const { action, xsrf } = formParts(form);
  const { lang, t: all } = language(ctx);
  const t = all.device;
  const error = problem(err, out, t);
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
    lang,
    title: error ? t.errorTitle : t.title,
    body: `<h1>${escapeHtml(t.title)}</h1>
${errorBlock(error)}
<form method="post" action="${escapeHtml(action)}" novalidate>
${hidden('xsrf', xsrf)}
<label for="user_code">${escapeHtml(t.code)}</label>
<p class="hint" id="code-hint">${escapeHtml(t.codeHint)}</p>
<input id="user_code" name="user_code" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus value="${escapeHtml(err?.userCode ?? '')}"${invalid}>
<button class="primary" type="submit">${escapeHtml(t.continue)}</button>
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
  const { lang, t: all } = language(ctx);
  const t = all.device;
  const app = client.clientName || client.clientId;
  ctx.type = 'html';
  ctx.body = page({
    lang,
    title: t.confirmTitle(app),
    body: `<h1>${escapeHtml(t.confirmBefore)} ${escapeHtml(app)}${escapeHtml(t.confirmAfter)}</h1>
<p>${escapeHtml(t.check)}</p>
<p class="device-code"><strong>${escapeHtml(userCode)}</strong></p>
<p>${escapeHtml(t.onlyYou)}</p>
<form method="post" action="${escapeHtml(action)}">
${hidden('xsrf', xsrf)}
${hidden('user_code', userCode)}
${hidden('confirm', 'yes')}
<button class="primary" type="submit" autofocus>${escapeHtml(t.continue)}</button>
<button class="secondary" type="submit" name="abort" value="yes">${escapeHtml(t.cancel)}</button>
</form>`,
  });
}

export async function deviceSuccessPage(ctx: KoaContextWithOIDC): Promise<void> {
  const { lang, t: all } = language(ctx);
  const t = all.device;
  const app = ctx.oidc.client?.clientName || ctx.oidc.client?.clientId || t.theDevice;
  ctx.type = 'html';
  ctx.body = page({
    lang,
    title: t.doneTitle,
    body: `<h1>${escapeHtml(t.doneTitle)}</h1>
<p role="status">${escapeHtml(t.done(app))}</p>`,
  });
}
