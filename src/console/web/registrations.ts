// An event's attendees (API.md §8) for its organizer and admins: status, register, cancel, check in, CSV download.
// What the person just did stays where they did it: a cancelled registration keeps its row (the API forgets it) until
// the page is left, and the outcome of registering someone appears under the button, in view, and is read out.
import { h, replace, uid } from './dom.js';
import { pager } from './pager.js';
import { queryString } from './api.js';
import { describeProblem } from './problem.js';
import { field, formAlert, formWords, hideAlert, onSubmit, showAlert, showFailure } from './fields.js';
import { formatDateTime } from './format.js';
import { copyButton } from './copy-button.js';
import { confirmAction } from './confirm.js';
import { retryKey } from './retry-key.js';
import type { CampusEvent, Registration, RegistrationPage } from './types.js';
import type { ConsoleContext } from './context.js';
import { statusOf } from './status.js';

const PAGE = 100;

/**
 * The registration section of an event's page; `manage` is whether the attendee list may be shown. The register
 * form is there only while the event is published: build the section again when its status changes.
 * `changed` runs after each registration, cancel or check-in (the event's seat count moves). `cancelled` holds the
 * registrations cancelled from the page, by id: the page owns it, so a section built again after a status change
 * still shows them. Returns the section and a reload.
 */
export function registrationsSection(ctx: ConsoleContext, event: CampusEvent, manage: boolean, cancelled: Map<string, Registration>, changed: () => void): { element: HTMLElement; reload: () => void } {
  const path = `/events/${encodeURIComponent(event.id)}/registrations`;
  const alert = formAlert();
  alert.tabIndex = -1;
  const name = field('name', 'Name', h('input', { type: 'text', autocomplete: 'off' }));
  const email = field('email', 'E-mail', h('input', { type: 'email', autocomplete: 'off' }));
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Register');
  // The register form's own messages, right under its button: a live region there from the start, so a screen reader
  // reads what registering did; the link to copy beside it; and a failure, in an alert, in the same place.
  const said = h('p', { role: 'status', class: 'outcome-said' });
  const outcome = h('div', { class: 'outcome' });
  const registerAlert = formAlert();
  registerAlert.tabIndex = -1;
  const result = h('div', { class: 'register-result' }, said, registerAlert, outcome);
  const words = formWords([name, email], ctx.zones.shown);
  // A registration retried after its answer was lost is answered again, not refused as the same attendee twice.
  const registerKey = retryKey();
  const form = h('form', { novalidate: true, 'aria-labelledby': 'register-heading' }, h('h3', { id: 'register-heading' }, 'Register someone'), name.row, email.row, h('div', { class: 'actions' }, submit), result);
  onSubmit(form, [name, email], registerAlert, submit, register);
  /** Set after a registration: the list's reload moves the form down, so the result is brought into view again then. */
  let revealAfterReload = false;
  const reveal = (): void => result.scrollIntoView({ block: 'nearest' });

  async function register(): Promise<void> {
    said.textContent = '';
    outcome.replaceChildren();
    try {
      const body = { name: name.control.value, email: email.control.value };
      const { data } = await ctx.api.json<Registration>('POST', path, { body, headers: registerKey.header(path, body) });
      registerKey.succeeded();
      showOutcome(data);
      name.control.value = '';
      email.control.value = '';
      name.control.focus({ preventScroll: true });
      reveal();
      revealAfterReload = manage;
      changed();
    } catch (error) {
      if (!showFailure(error, [name, email], registerAlert, words, 'Nobody was registered')) showAlert(registerAlert, describeProblem(error));
      if (name.control.getAttribute('aria-invalid') !== 'true' && email.control.getAttribute('aria-invalid') !== 'true') registerAlert.focus();
      reveal();
    }
  }

  /** What registering did, and the attendee's link to check or cancel their place, ready to copy. */
  function showOutcome(registration: Registration): void {
    const linkId = uid('registration-link');
    const link = h('input', { id: linkId, type: 'text', readonly: true, class: 'feed-url', value: `${location.origin}${location.pathname}#/events/${event.id}/registrations/${registration.id}` });
    const copied = h('p', { class: 'hint' });
    said.textContent = `${registration.name} is registered: ${registration.status === 'confirmed' ? 'confirmed, with a seat' : 'on the waitlist (the event is full); they get a seat when one frees up'}.`;
    replace(
      outcome,
      h('div', { class: 'field' }, h('label', { for: linkId }, `${registration.name}'s registration link`), h('p', { class: 'hint', id: `${linkId}-hint` }, 'Send it to them: with it they can check whether they have a seat, or cancel their place, later.'), link),
      h('div', { class: 'actions' }, copyButton('Copy link', link, copied, () => `Copied. Send it to ${registration.name}.`)),
      copied,
    );
    link.setAttribute('aria-describedby', `${linkId}-hint`);
  }

  const statusId = uid('status');
  const statusSelect = h('select', { id: statusId }, h('option', { value: '' }, 'Everyone'), h('option', { value: 'confirmed' }, 'Confirmed'), h('option', { value: 'waitlisted' }, 'Waitlisted'));
  statusSelect.addEventListener('change', () => {
    page = 1;
    reload();
  });
  const download = h('button', { type: 'button' }, 'Download CSV');
  download.addEventListener('click', () => void downloadCsv());
  const list = h('div');
  let page = 1;

  /** The page's rows with the cancelled ones that belong among them (by the filter, and by time between its first and last). */
  function withCancelled(rows: Registration[], lastPage: boolean): { registration: Registration; gone: boolean }[] {
    const first = rows[0]?.created_at;
    const last = rows.at(-1)?.created_at;
    const belongs = (registration: Registration): boolean =>
      (statusSelect.value === '' || statusSelect.value === registration.status) &&
      (page === 1 || (first !== undefined && registration.created_at >= first)) &&
      (lastPage || (last !== undefined && registration.created_at <= last));
    const gone = [...cancelled.values()].filter(belongs).map((registration) => ({ registration, gone: true }));
    return [...rows.map((registration) => ({ registration, gone: false })), ...gone].sort((a, b) =>
      a.registration.created_at === b.registration.created_at ? (a.registration.id < b.registration.id ? -1 : 1) : a.registration.created_at < b.registration.created_at ? -1 : 1,
    );
  }

  /** One attendee's row; a registration `gone` (cancelled from this page) is marked so, with nothing left to do. */
  function row(registration: Registration, gone: boolean): HTMLTableRowElement {
    const actions = gone
      ? 'none: it is cancelled'
      : [
          registration.status === 'confirmed' && registration.checked_in_at === null
            ? h('button', { type: 'button', class: 'primary', 'aria-label': `Check in ${registration.name}`, onclick: () => void act(() => checkIn(registration)) }, 'Check in')
            : null,
          // Apart from Check in, and looking like what it is: a destructive action.
          h('button', { type: 'button', class: 'danger apart', 'aria-label': `Cancel registration of ${registration.name}`, onclick: () => void act(() => cancel(registration)) }, 'Cancel registration'),
        ];
    return h(
      'tr',
      { class: gone ? 'cancelled-row' : null, 'data-registration': registration.id, tabindex: -1 },
      h('td', { 'data-label': 'Name' }, registration.name),
      h('td', { 'data-label': 'E-mail' }, registration.email),
      h('td', { 'data-label': 'Status' }, gone ? [h('strong', {}, 'cancelled'), ` (was ${registration.status}; cancelled from this page)`] : registration.status),
      h('td', { 'data-label': 'Checked in' }, registration.checked_in_at === null ? 'not yet' : formatDateTime(registration.checked_in_at, ctx.zones.shown)),
      h('td', { 'data-label': 'Actions', class: 'row-actions' }, actions),
    );
  }

  async function loadList(): Promise<void> {
    try {
      const { data } = await ctx.api.json<RegistrationPage>('GET', `${path}${queryString({ status: statusSelect.value, limit: PAGE, page })}`);
      const lastPage = Math.max(1, Math.ceil(data.total / PAGE));
      const shown = withCancelled(data.registrations, page >= lastPage);
      const goneCount = shown.filter((row) => row.gone).length;
      const rows = shown.map(({ registration, gone }) => row(registration, gone));
      const held = focusHeld();
      const summary = h(
        'p',
        { class: 'summary', tabindex: -1 },
        data.total === 0 && goneCount === 0 ? 'Nobody yet.' : `${data.total} registration${data.total === 1 ? '' : 's'}${lastPage > 1 ? `; page ${page} of ${lastPage}` : ''}.`,
        goneCount === 0 ? '' : ` Cancelled from this page: ${goneCount}, shown until you leave it.`,
      );
      replace(
        list,
        summary,
        rows.length === 0
          ? null
          : h(
              'table',
              { class: 'stack' },
              h('caption', { class: 'visually-hidden' }, 'Attendees, in order of registration'),
              h('thead', {}, h('tr', {}, ['Name', 'E-mail', 'Status', 'Checked in', 'Actions'].map((label) => h('th', { scope: 'col' }, label)))),
              h('tbody', {}, rows),
            ),
        pager('Attendee pages', page, lastPage, (delta) => {
          page += delta;
          return loadList();
        }),
      );
      if (held !== undefined) refocus(held, summary);
      if (revealAfterReload) reveal();
    } catch (error) {
      replace(list, h('p', { class: 'alert', role: 'alert' }, describeProblem(error)));
    } finally {
      revealAfterReload = false;
    }
  }

  /**
   * Where in the list the keyboard's focus was: the attendee's row (if in one) and the button's name (a row's buttons
   * are named for their attendee; the pager's by their words), so a redraw puts it back.
   */
  function focusHeld(): Held | undefined {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !list.contains(active)) return undefined;
    return { id: active.closest('tr')?.dataset['registration'], inPager: active.closest('nav.pager') !== null, label: active.getAttribute('aria-label') ?? active.textContent ?? '' };
  }

  /** Focus back where it was: the same button, or its row once the button went (checked in, cancelled), or the summary. */
  function refocus(held: Held, summary: HTMLElement): void {
    const tr = held.id === undefined ? undefined : [...list.querySelectorAll<HTMLElement>('tr[data-registration]')].find((each) => each.dataset['registration'] === held.id);
    const button = [...(tr ?? list).querySelectorAll('button')].find((each) => (each.getAttribute('aria-label') ?? each.textContent) === held.label);
    // A pager's button gone (the last page reached): its other one, as a page turn does.
    const pager = held.inPager ? list.querySelector<HTMLElement>(':scope > nav.pager > button') : null;
    (button ?? tr ?? pager ?? summary).focus();
  }

  /** Runs `action`; the page is read again unless it answers false (the person kept things as they were). */
  async function act(action: () => Promise<boolean | void>): Promise<void> {
    hideAlert(alert);
    try {
      // Kept as it was: the table stays, so focus goes back to the button that opened the question.
      if ((await action()) === false) return;
      changed();
    } catch (error) {
      showAlert(alert, describeProblem(error));
      alert.focus();
    }
  }

  async function checkIn(registration: Registration): Promise<void> {
    await ctx.api.json('POST', `${path}/${encodeURIComponent(registration.id)}/check-in`, { body: {} });
    ctx.announce(`${registration.name} is checked in.`);
  }

  async function cancel(registration: Registration): Promise<boolean> {
    if (!(await confirmAction(`Cancel the registration of ${registration.name}? ${registration.status === 'confirmed' ? 'Their seat goes to the first person on the waitlist.' : ''}`, 'Cancel registration', 'Keep it'))) return false;
    await ctx.api.json('DELETE', `${path}/${encodeURIComponent(registration.id)}`);
    cancelled.set(registration.id, registration);
    ctx.announce(`The registration of ${registration.name} is cancelled.`);
    return true;
  }

  /** Every page as one CSV file (one header row), fetched with the key and saved through a Blob. */
  async function downloadCsv(): Promise<void> {
    hideAlert(alert);
    try {
      const filter = { status: statusSelect.value, limit: PAGE };
      const { data } = await ctx.api.json<RegistrationPage>('GET', `${path}${queryString({ ...filter, limit: 1 })}`);
      const pages = Math.max(1, Math.ceil(data.total / PAGE));
      let csv = '';
      for (let target = 1; target <= pages; target++) {
        const text = await ctx.api.text(`${path}${queryString({ ...filter, page: target })}`, 'text/csv');
        // Each page repeats the header row (it holds no quoted line breaks): keep the first page's only.
        csv += target === 1 ? text : text.slice(text.indexOf('\r\n') + 2);
      }
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv;charset=utf-8' }));
      const anchor = h('a', { href: url, download: `attendees-${event.id}.csv`, class: 'visually-hidden' }, 'download');
      document.body.append(anchor);
      anchor.click();
      anchor.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      ctx.announce('The attendee list is downloaded as CSV.');
    } catch (error) {
      showAlert(alert, describeProblem(error));
      alert.focus();
    }
  }

  const reload = (): void => {
    if (manage) void loadList();
  };
  reload();
  const element = h(
    'section',
    { 'aria-labelledby': 'attendees-heading', class: 'registrations' },
    h('h2', { id: 'attendees-heading' }, manage ? 'Attendees' : 'Registration'),
    alert,
    manage ? h('div', { class: 'toolbar' }, h('div', { class: 'field inline' }, h('label', { for: statusId }, 'Show'), statusSelect), download) : null,
    manage ? list : h('p', { class: 'hint' }, 'Only the organizer of this event and administrators see the attendee list.'),
    // Registrations are taken on published events that have not ended (API.md §8, §14); a cancelled one keeps those it has.
    statusOf(event) === 'published' && Date.parse(event.end_time) > Date.now() ? form : h('p', { class: 'note' }, closedSentence(event)),
  );
  return { element, reload };
}

/** Where the keyboard's focus was in the attendee list: the attendee's row, whether in the pager, the button's name. */
interface Held {
  id: string | undefined;
  inPager: boolean;
  label: string;
}

/** Why an event shows no registration form: cancelled, not published yet, or over (the API's 409 says the same). */
function closedSentence(event: CampusEvent): string {
  if (statusOf(event) === 'cancelled') return 'This event is cancelled: it takes no new registrations. Those registered keep their places.';
  // An event that has ended takes none, published or not: it never opens, so it is not promised to.
  if (Date.parse(event.end_time) <= Date.now()) return 'This event has ended: it takes no more registrations.';
  return 'Registrations open once the event is published.';
}
