// The iCalendar address of the current filter (API.md §9.1), with a feed key, ready to copy into a calendar program.
import { h, uid } from './dom.js';
import { queryString } from './api.js';
import { storedFeedKey, storedKey, storeFeedKey } from './session.js';
import { copyButton } from './copy-button.js';

/** The subscription address: this server's origin, the API base, the filter and `key=`. */
export function feedUrl(origin: string, base: string, filter: Record<string, string | undefined>, feedKey: string): string {
  return `${origin}${base}/events.ics${queryString({ ...filter, key: feedKey === '' ? 'FEEDKEY' : feedKey })}`;
}

/** A box with the address, a field for the feed key and a copy button. `filter` holds the list's (q, category, status, series_id, dates). */
export function feedAddress(base: string, filter: Record<string, string | undefined>, presetKey?: string): HTMLElement {
  const keyId = uid('feed-key');
  const addressId = uid('feed-url');
  const keyInput = h('input', { id: keyId, type: 'password', autocomplete: 'off', spellcheck: 'false', value: presetKey ?? storedFeedKey() ?? '' });
  const address = h('input', { id: addressId, type: 'text', readonly: true, class: 'feed-url' });
  const status = h('p', { class: 'hint', role: 'status' });
  const ownId = uid('feed-key-own');
  const ownKey = h('p', { id: ownId, class: 'field-message', hidden: true }, 'This is the key you signed in with, not a feed key: a calendar program would be refused with it (401), and your key would stay in its settings. The address keeps FEEDKEY; ask an administrator for a feed key.');
  /** The key typed, unless it is the signed-in one (the server answers 401 to any other role's key in `key=`, API.md §9.1). */
  const feedKey = (): string => {
    const typed = keyInput.value.trim();
    return presetKey === undefined && typed !== '' && typed === storedKey() ? '' : typed;
  };
  const update = (): void => {
    const own = feedKey() !== keyInput.value.trim();
    ownKey.hidden = !own;
    if (own) keyInput.setAttribute('aria-describedby', ownId);
    else keyInput.removeAttribute('aria-describedby');
    keyInput.setAttribute('aria-invalid', String(own));
    address.value = feedUrl(location.origin, base, filter, feedKey());
  };
  keyInput.addEventListener('input', () => {
    if (presetKey === undefined) storeFeedKey(feedKey());
    update();
  });
  update();
  const copy = copyButton('Copy address', address, status, () =>
    feedKey() === '' ? 'Copied. Replace FEEDKEY with a feed key before subscribing.' : 'Copied. Paste it into your calendar program as a subscription.',
  );
  return h(
    'details',
    // Open at once for a feed key, for which the address is the whole point.
    { class: 'feed', open: presetKey !== undefined },
    h('summary', {}, Object.values(filter).some((value) => value !== undefined && value !== '') ? 'Calendar subscription for this filter' : 'Calendar subscription'),
    h('p', { class: 'hint' }, 'Calendar programs cannot send a key in a header, so the address carries a feed key (role feed: it can only read this feed). Ask an administrator for one; never put your own key in it.'),
    presetKey === undefined ? h('div', { class: 'field' }, h('label', { for: keyId }, 'Feed key'), keyInput, ownKey) : null,
    h('div', { class: 'field' }, h('label', { for: addressId }, 'iCalendar address'), address),
    h('div', { class: 'actions' }, copy),
    status,
  );
}
