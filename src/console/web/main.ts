// The console's entry: sign-in state, the header (with the approval queue's count for admins), fragment routing
// between screens, and the live change feed.
// Screens beyond the list and an event's page are imported when first shown, so the first load stays small.
import { Api, apiBase, type ApiAnswer } from './api.js';
import { h, replace } from './dom.js';
import { ApiProblem, describeProblem } from './problem.js';
import { canCreate, canManage, canRead, canReview, type Me, type OwnedEvent } from './roles.js';
import { forgetKeys, storedKey } from './session.js';
import { LiveFeed, type LiveState } from './live.js';
import { signIn } from './sign-in.js';
import { eventList } from './event-list.js';
import { eventPage } from './event-page.js';
import { feedAddress } from './feed-address.js';
import { chooseZone, currentZones } from './zones.js';
import { loadSettings } from './settings.js';
import type { ConsoleContext, Screen } from './context.js';
import type { CampusEvent, EventPage, Series } from './types.js';
import { heldText } from './held-text.js';

const base = apiBase(location.pathname);
const byId = (id: string): HTMLElement => document.getElementById(id)!;
const nav = byId('nav');
const who = byId('who');
const heading = byId('screen-title');
const content = byId('content');
const status = byId('status');
const liveLine = byId('live');

let me: Me | undefined;
let screen: Screen | undefined;
let feed: LiveFeed | undefined;
let renderCount = 0;
/** The campus time zone and approval setting (the server's settings.json), read once at start. */
const settings = loadSettings();
/** The header's way to the approval queue (admins), its name counting what waits: "Approval queue 3 waiting". */
const queueCount = h('span', { class: 'count' });
const queueLink = h('a', { href: '#/queue', hidden: true }, 'Approval queue ', queueCount);
let queueTimer: ReturnType<typeof setInterval> | undefined;

// The page the person was on stays in the address: signing in again (with a new key) opens it.
const api = new Api(base, storedKey, () => signOut('Your key is no longer accepted (it may have been revoked). Sign in again.', true));

/** The screen (render) that said what the status line holds, whether the next screen keeps it, and the path shown. */
let saidOn = 0;
let carried = false;
let shownPath: string | undefined;
/** The message a screen sent the person here with, shown on the next screen drawn (the status line is only heard). */
let broughtMessage = '';
/** Whether the carried message is to be shown on the next screen (see navigate). */
let showCarried = false;
/** Ends the listener that takes that message away once the person acts on the screen. */
let broughtListener: AbortController | undefined;

function announce(message: string): void {
  status.textContent = message;
  saidOn = renderCount;
}

/**
 * A screen's message ("Saved …") goes with the person to where it sends them, and no further; with `showMessage` (an
 * outcome: created, saved, deleted, refused) it is shown there too, not only read out.
 */
function navigate(hash: string, options: { showMessage?: boolean } = {}): void {
  carried = saidOn === renderCount && status.textContent !== '';
  showCarried = carried && options.showMessage === true;
  if (location.hash === hash) void render();
  else location.hash = hash;
}

/** The message the person came with no longer holds (what it spoke of changed elsewhere): it goes from the screen. */
function dropBrought(): void {
  content.querySelector(':scope > p.brought')?.remove();
}

function setTitle(title: string): void {
  heading.textContent = title;
  document.title = `${title} · Campus events`;
}

function show(next: Screen | HTMLElement, title: string): void {
  screen?.dispose?.();
  screen = next instanceof HTMLElement ? undefined : next;
  setTitle(next instanceof HTMLElement ? title : next.title);
  replace(content, next instanceof HTMLElement ? next : next.element);
  broughtListener?.abort();
  // "Deleted …" on the list it led to: seen, not only read out (it was, when said).
  if (broughtMessage !== '') {
    const note = h('p', { class: 'done brought' }, broughtMessage);
    content.prepend(note);
    // Gone once the person acts here (a button, a form's Enter): that says its own outcome.
    const listening = (broughtListener = new AbortController());
    const acted = (event: Event): void => {
      if (!(event.target instanceof Element) || event.target.closest('button') === null) return;
      note.remove();
      listening.abort();
    };
    content.addEventListener('click', acted, { signal: listening.signal });
  }
  broughtMessage = '';
}

/** Back to the sign-in form; `keepPlace` keeps the fragment, so a bookmarked page opens after signing in. */
function signOut(notice?: string, keepPlace = false): void {
  // Signed out by the server (a revoked key) as they typed: what the form held is shown to copy.
  const held = keepPlace ? heldText(content) : [];
  forgetKeys();
  me = undefined;
  feed?.stop();
  feed = undefined;
  liveLine.textContent = '';
  clearInterval(queueTimer);
  queueLink.hidden = true;
  replace(who);
  replace(nav);
  if (!keepPlace && location.hash !== '') history.replaceState(null, '', location.pathname);
  show(signIn(base, onSignedIn, notice, held), 'Sign in');
  heading.focus();
}

function onSignedIn(person: Me): void {
  me = person;
  replace(who, h('span', { class: 'person' }, person.name), ' ', h('span', { class: 'role' }, person.role), ' ', h('button', { type: 'button', onclick: () => signOut() }, 'Sign out'));
  replace(
    nav,
    canRead(person) ? h('a', { href: '#/events' }, 'Events') : null,
    canRead(person) ? h('a', { href: '#/month' }, 'Month') : null,
    canCreate(person) ? h('a', { href: '#/new' }, 'New event') : null,
    canCreate(person) ? h('a', { href: '#/drafts' }, person.role === 'admin' ? 'Drafts' : 'My drafts') : null,
    canReview(person) ? queueLink : null,
  );
  if (canReview(person)) {
    // render() reads the count on every screen change; submissions do not reach the change feed (they are not
    // public), so it is also read again each minute.
    queueTimer = setInterval(() => void countQueue(), 60_000);
  }
  if (canRead(person)) {
    feed = new LiveFeed(api, (entry) => screen?.onChange?.(entry), showLiveState);
    feed.start();
  }
  void render();
}

/** Reads how many events wait for approval into the header; a server without approval (a 400) gets no queue link. */
async function countQueue(): Promise<void> {
  if (me === undefined || !canReview(me)) return;
  try {
    const { data } = await api.json<EventPage>('GET', '/events?status=pending&limit=1');
    queueCount.replaceChildren(String(data.total), h('span', { class: 'visually-hidden' }, ' waiting'));
    queueLink.hidden = false;
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 400) queueLink.hidden = true;
  }
}

function showLiveState(state: LiveState, why?: string): void {
  const words: Record<LiveState, string> = {
    connecting: 'Live updates: connecting…',
    live: 'Live updates: on.',
    reconnecting: `Live updates: reconnecting…${why === undefined ? '' : ` ${why}`}`,
    unavailable: `Live updates: off${why === undefined ? '' : ` (${why})`}. Reload the page to see others' changes.`,
  };
  liveLine.textContent = words[state];
  liveLine.dataset['state'] = state;
}

/** Draws the screen of the current fragment. */
async function render(): Promise<void> {
  if (me === undefined) return;
  const ticket = ++renderCount;
  const [path = '', query = ''] = location.hash.replace(/^#/, '').split('?');
  // A message belongs to the screen that made it: gone once the person moves on, unless that screen sent them here
  // (a zone switch draws the same screen again, and keeps its message).
  if (!carried && path !== shownPath) status.textContent = '';
  broughtMessage = showCarried ? (status.textContent ?? '') : '';
  carried = false;
  showCarried = false;
  shownPath = path;
  const params = new URLSearchParams(query);
  const switchZone = (mine: boolean): void => {
    chooseZone(mine);
    announce(mine ? 'Times are now shown in your time zone.' : 'Times are now shown in the campus time zone.');
    void render();
  };
  const { timeZone, approval } = await settings;
  const parts = decodedParts(path);
  // The month view is in the browser's zone (API.md §10); the other screens in the campus's, where events happen and
  // whose days the list's date filters are (docs/decisions.md). A switch made on any screen holds on all of them.
  const zones = currentZones(timeZone, parts?.[0] === 'month' ? 'browser' : 'campus');
  const context: ConsoleContext = { api, me, navigate, announce, dropBrought, zones, switchZone, approval, queueChanged: () => void countQueue() };
  if (ticket !== renderCount) return;
  for (const link of nav.querySelectorAll('a')) {
    const current = path === link.getAttribute('href')!.slice(1) || (path === '' && link.getAttribute('href') === '#/events');
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  void countQueue();
  if (parts === undefined) {
    // A fragment that is not valid percent-encoding (typed or cut short) names no page.
    showNotFound();
  } else if (!canRead(me)) {
    show(h('section', {}, h('p', {}, 'This is a calendar feed key: it can only read the calendar feed. Use the address below in your calendar program.'), feedAddress(base, {}, storedKey() ?? '')), 'Calendar feed');
  } else if (parts.length === 0 || (parts[0] === 'events' && parts.length === 1)) {
    show(eventList(context, params), 'Events');
  } else if (parts[0] === 'month') {
    const { monthView } = await import('./month-view.js');
    if (ticket !== renderCount) return;
    show(monthView(context, params, setTitle), 'Month');
  } else if (parts[0] === 'drafts' && canCreate(me)) {
    const { draftsView } = await import('./review-screens.js');
    if (ticket !== renderCount) return;
    show(draftsView(context), 'Drafts');
  } else if (parts[0] === 'queue' && canReview(me)) {
    const { approvalQueue } = await import('./review-screens.js');
    if (ticket !== renderCount) return;
    show(approvalQueue(context), 'Approval queue');
  } else if (parts[0] === 'new' && canCreate(me)) {
    const { eventForm } = await import('./event-form.js');
    if (ticket !== renderCount) return;
    show(eventForm(context), 'New event');
  } else if (parts[0] === 'events' && parts.length === 2) {
    show(eventPage(context, parts[1]!, setTitle), 'Event');
  } else if (parts[0] === 'events' && parts[2] === 'registrations' && parts.length === 4) {
    const { registrationPage } = await import('./registration-page.js');
    if (ticket !== renderCount) return;
    show(registrationPage(context, parts[1]!, parts[3]!), 'Registration');
  } else if (parts[0] === 'events' && parts[2] === 'edit' && parts.length === 3 && canCreate(me)) {
    const { eventForm } = await import('./event-form.js');
    const id = parts[1]!;
    await showEditor<CampusEvent>(ticket, `/events/${encodeURIComponent(id)}`, 'Edit event', (answer) => eventForm(context, { event: answer.data, etag: answer.etag }), { href: `#/events/${encodeURIComponent(id)}`, words: 'Go to the event' });
  } else if (parts[0] === 'series' && parts.length === 2) {
    const { seriesPage } = await import('./series-page.js');
    if (ticket !== renderCount) return;
    show(seriesPage(context, parts[1]!, setTitle), 'Series');
  } else if (parts[0] === 'series' && parts[2] === 'edit' && parts.length === 3 && canCreate(me)) {
    const { seriesForm } = await import('./series-form.js');
    const id = parts[1]!;
    await showEditor<Series>(ticket, `/series/${encodeURIComponent(id)}`, 'Edit series', (answer) => seriesForm(context, answer.data, answer.etag), { href: `#/series/${encodeURIComponent(id)}`, words: 'Go to the series' });
  } else {
    showNotFound();
  }
  heading.focus();
}

/** The fragment's path split at `/` and each part decoded; undefined when a part is not valid percent-encoding. */
function decodedParts(path: string): string[] | undefined {
  try {
    return path.split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part));
  } catch {
    return undefined;
  }
}

/** A link away from a screen: where, and its words. */
interface Way {
  href: string;
  words: string;
}

/** The screen for a route that does not exist, or that the person's role may not use (it is then never offered). */
function showNotFound(back?: Way): void {
  const way = back ?? { href: '#/events', words: 'Go to the events' };
  show(h('section', {}, h('p', {}, 'There is no such page in the console. '), h('p', {}, h('a', { href: way.href }, way.words))), 'Not found');
}

/**
 * An edit form: reads what it edits (with its ETag) first, then shows the form, unless the person has moved on, or may
 * not change it (API.md §10: what a role cannot do is not offered): only its organizer or an admin edits; others are
 * refused as an unknown route is, with a way back to the page at `back`.
 */
async function showEditor<T extends OwnedEvent>(ticket: number, path: string, title: string, build: (answer: ApiAnswer<T>) => Screen, back: Way): Promise<void> {
  show(h('p', {}, 'Loading…'), title);
  try {
    const answer = await api.json<T>('GET', path);
    if (ticket !== renderCount || me === undefined) return;
    if (canManage(me, answer.data)) show(build(answer), title);
    else showNotFound(back);
  } catch (error) {
    if (ticket !== renderCount) return;
    show(h('section', {}, h('p', { class: 'alert', role: 'alert' }, describeProblem(error))), title);
  }
}

window.addEventListener('hashchange', () => void render());
// A header link to the screen already shown reads it again: the fragment does not change, so no hashchange comes, and
// an admin clicking "Approval queue" on the queue wants what waits now.
nav.addEventListener('click', (event) => {
  if (event.target instanceof Element && event.target.closest('a')?.getAttribute('href') === location.hash) void render();
});

async function start(): Promise<void> {
  const key = storedKey();
  if (key === null) {
    signOut(undefined, true);
    return;
  }
  try {
    const { data } = await api.json<Me>('GET', '/me');
    onSignedIn(data);
  } catch (error) {
    // Only a refused key (401) signs the person out; a busy or unreachable server (429, 503, no network) keeps the key
    // and offers to try again, so a reload at a bad moment does not cost them their sign-in.
    if (error instanceof ApiProblem && error.status === 401) signOut(describeProblem(error), true);
    else showUnchecked(describeProblem(error));
  }
}

/** The key could not be checked at start: what went wrong, a way to try again, and a way to sign in with another key. */
function showUnchecked(problem: string): void {
  const again = h('button', { type: 'button', class: 'primary', onclick: () => void start() }, 'Try again');
  show(h('section', {}, h('p', { class: 'alert', role: 'alert' }, problem), h('p', {}, 'Your key is kept in this tab.'), h('div', { class: 'actions' }, again, h('button', { type: 'button', onclick: () => signOut() }, 'Sign in with another key'))), 'Not signed in yet');
  heading.focus();
}

void start();
