// One registration, by the link an attendee was given (API.md §8): whether they have a seat, and cancel it.
import { h, replace } from './dom.js';
import { describeProblem } from './problem.js';
import { alertFailure } from './fields.js';
import { formatDateTime } from './format.js';
import { confirmAction } from './confirm.js';
import { zoneNote } from './zone-note.js';
import { statusBadge, statusNotice } from './status-marks.js';
import type { CampusEvent, Registration } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

export function registrationPage(ctx: ConsoleContext, eventId: string, registrationId: string): Screen {
  const path = `/events/${encodeURIComponent(eventId)}/registrations/${encodeURIComponent(registrationId)}`;
  const body = h('div', { 'aria-busy': 'true' }, h('p', {}, 'Loading the registration…'));
  const alert = h('div', { class: 'alert', role: 'alert', hidden: true, tabindex: -1 });

  async function load(): Promise<void> {
    try {
      const [{ data: event }, { data: registration }] = await Promise.all([
        ctx.api.json<CampusEvent>('GET', `/events/${encodeURIComponent(eventId)}`),
        ctx.api.json<Registration>('GET', path),
      ]);
      const status = registration.status === 'confirmed' ? 'Confirmed: they have a seat.' : 'On the waitlist: they get a seat when one frees up, in order of registration.';
      replace(
        body,
        // The attendee checks their place here: a cancelled event says so, with its reason, as its own page does.
        statusNotice(event, 'event'),
        h(
          'dl',
          { class: 'facts' },
          h('dt', {}, 'Attendee'),
          h('dd', {}, `${registration.name} (${registration.email})`),
          h('dt', {}, 'Event'),
          h('dd', {}, h('a', { href: `#/events/${event.id}` }, event.title), `, ${formatDateTime(event.start_time, ctx.zones.shown)}`, statusBadge(event) === null ? null : [' ', statusBadge(event)]),
          h('dt', {}, 'Status'),
          h('dd', {}, status),
          h('dt', {}, 'Checked in'),
          h('dd', {}, registration.checked_in_at === null ? 'not yet' : formatDateTime(registration.checked_in_at, ctx.zones.shown)),
        ),
        h('div', { class: 'actions' }, h('button', { type: 'button', class: 'danger', onclick: () => void cancel(registration) }, 'Cancel this registration')),
      );
    } catch (error) {
      replace(body, h('p', { class: 'alert', role: 'alert' }, describeProblem(error)));
    } finally {
      body.setAttribute('aria-busy', 'false');
    }
  }

  async function cancel(registration: Registration): Promise<void> {
    if (!(await confirmAction(`Cancel the registration of ${registration.name}? This cannot be undone; they would have to register again.`, 'Cancel registration'))) return;
    try {
      await ctx.api.json('DELETE', path);
      ctx.announce(`The registration of ${registration.name} is cancelled.`);
      // The button that had the focus is gone: the sentence saying what happened takes it.
      const said = h('p', { tabindex: -1 }, `The registration of ${registration.name} is cancelled.`);
      replace(body, said, h('p', {}, h('a', { href: `#/events/${eventId}` }, 'Back to the event')));
      said.focus();
    } catch (error) {
      alertFailure(alert, error);
    }
  }

  void load();
  return { title: 'Registration', element: h('section', {}, zoneNote(ctx), alert, body) };
}
