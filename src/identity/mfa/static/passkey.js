// Runs the WebAuthn ceremony of every form marked data-passkey, with @simplewebauthn/browser (loaded before
// this file from /assets/simplewebauthn-browser.js). Served from identity's own origin: the pages' CSP allows
// scripts from 'self' only, and there is no inline script.
(() => {
  var lib = window.SimpleWebAuthnBrowser;

  function show(form, message) {
    var box = document.getElementById(form.getAttribute('data-error'));
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
  }

  // The page's words, in its language (data-messages, from the page's catalogue); English when a page has none.
  var ENGLISH = {
    cancelled: 'The passkey request was cancelled or timed out. Try again.',
    alreadyRegistered: 'This passkey is already registered.',
    unavailable: 'Passkeys are not available on this address.',
    failed: 'The passkey could not be used. Try again.',
    unsupported: 'This browser does not support passkeys.',
    requestFailed: 'The passkey request failed.',
  };
  function messages(form) {
    try {
      return Object.assign({}, ENGLISH, JSON.parse(form.getAttribute('data-messages') || '{}'));
    } catch {
      return ENGLISH;
    }
  }

  // The browser's own error texts are in its language, not the page's: they are shown only as a last resort.
  function explain(err, m) {
    var name = err?.name;
    if (name === 'NotAllowedError' || name === 'AbortError') return m.cancelled;
    if (name === 'InvalidStateError') return m.alreadyRegistered;
    if (name === 'SecurityError') return m.unavailable;
    return err?.message || m.failed;
  }

  function run(form) {
    var button = form.querySelector('button[type=submit]');
    var m = messages(form);
    if (!lib?.browserSupportsWebAuthn()) {
      show(form, m.unsupported);
      return;
    }
    button.disabled = true;
    fetch(form.getAttribute('data-options'), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'x-csrf-token': form.elements.csrf.value },
    })
      .then((res) =>
        res.json().then((body) => {
          if (!res.ok) throw new Error(body.error_description || body.error?.message || m.requestFailed);
          return body;
        }),
      )
      .then((options) =>
        form.getAttribute('data-passkey') === 'register'
          ? lib.startRegistration({ optionsJSON: options })
          : lib.startAuthentication({ optionsJSON: options }),
      )
      .then((answer) => {
        form.elements.response.value = JSON.stringify(answer);
        form.submit();
      })
      .catch((err) => {
        button.disabled = false;
        show(form, explain(err, m));
        button.focus();
      });
  }

  const forms = document.querySelectorAll('form[data-passkey]');
  for (let i = 0; i < forms.length; i++) {
    forms[i].addEventListener('submit', (event) => {
      event.preventDefault();
      run(event.currentTarget);
    });
  }
})();
