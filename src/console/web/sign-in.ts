// The sign-in form: an API key, checked with GET /me, then kept in sessionStorage for this tab only.
import { h } from './dom.js';
import { clearProblems, field, formAlert, hideAlert, markInvalid, showAlert } from './fields.js';
import { ApiProblem, describeProblem } from './problem.js';
import { Api } from './api.js';
import type { Me } from './roles.js';
import { storeKey } from './session.js';
import { heldSection, type HeldText } from './held-text.js';

/**
 * Renders the form; `signedIn` runs with the person once their key is accepted. `held`: what the screen's form held
 * when the person was signed out, shown below to copy.
 */
export function signIn(base: string, signedIn: (me: Me) => void, notice?: string, held: readonly HeldText[] = []): HTMLElement {
  const key = field('key', 'API key', h('input', { type: 'password', autocomplete: 'off', spellcheck: 'false' }), 'It starts with cek_. It stays in this tab only and is forgotten when you close it or sign out.');
  const alert = formAlert();
  if (notice !== undefined) showAlert(alert, notice);
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h('form', { novalidate: true, 'aria-labelledby': 'screen-title' }, alert, key.row, h('div', { class: 'actions' }, submit));
  // What is wrong with the key is said next to it (its description, aria-invalid), as every form's field problems are;
  // the alert above, read out at once, points to it.
  const refuseKey = (sentence: string, said = 'Not signed in: see the API key field.'): void => {
    showAlert(alert, said);
    markInvalid(key, sentence);
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const secret = key.control.value.trim();
    hideAlert(alert);
    clearProblems([key]);
    if (secret === '') return refuseKey('Enter your API key. An administrator creates one with: node dist/cli.js keys create --name NAME --email EMAIL');
    submit.disabled = true;
    const api = new Api(base, () => secret, () => undefined);
    api.json<Me>('GET', '/me').then(
      ({ data }) => {
        storeKey(secret);
        signedIn(data);
      },
      (error: unknown) => {
        submit.disabled = false;
        if (error instanceof ApiProblem && error.status === 401) return refuseKey('That key was not accepted: it is unknown or has been revoked. Check it and try again.', 'Not signed in: the key was not accepted (see the API key field).');
        showAlert(alert, describeProblem(error));
        key.control.focus();
      },
    );
  });
  return h('section', {}, h('p', {}, 'Sign in with your API key to see and manage the campus events.'), form, heldSection(held));
}
