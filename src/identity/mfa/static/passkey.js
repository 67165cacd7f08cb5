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

  function explain(err) {
    var name = err?.name;
    if (name === 'NotAllowedError' || name === 'AbortError')
      return 'The passkey request was cancelled or timed out. Try again.';
    if (name === 'InvalidStateError') return 'This passkey is already registered.';
    if (name === 'SecurityError') return 'Passkeys are not available on this address.';
    return err?.message || 'The passkey could not be used. Try again.';
  }

  function run(form) {
    var button = form.querySelector('button[type=submit]');
    if (!lib?.browserSupportsWebAuthn()) {
      show(form, 'This browser does not support passkeys.');
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
          if (!res.ok) throw new Error(body.error_description || body.error?.message || 'The passkey request failed.');
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
        show(form, explain(err));
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
