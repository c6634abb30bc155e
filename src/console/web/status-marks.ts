// A status shown in words: a label beside a title in lists and the month, and a notice on an event's or a series' page.
import { h } from './dom.js';
import { clip, statusLabel, statusOf, statusSentence } from './status.js';
import type { Publishing } from './types.js';

/** The label beside a title ("Cancelled", "Draft", ...); null for a published one, which needs none. */
export function statusBadge(item: Publishing): HTMLElement | null {
  const label = statusLabel(item);
  return label === undefined ? null : h('span', { class: `badge status-${statusOf(item)}` }, label);
}

/** Under a title in a list: a cancelled one's reason, or the reviewer's note of a returned draft, cut short. */
export function statusDetail(item: Publishing): HTMLElement | null {
  const status = statusOf(item);
  if (status === 'cancelled' && item.cancellation_reason !== undefined) return h('span', { class: 'status-detail' }, `Reason: ${clip(item.cancellation_reason)}`);
  if (status === 'draft' && item.review_note !== undefined) return h('span', { class: 'status-detail' }, `Reviewer's note: ${clip(item.review_note)}`);
  return null;
}

/** The notice at the top of a page: the status and what it means, then the whole note or reason; null when published. */
export function statusNotice(item: Publishing, kind: 'event' | 'series'): HTMLElement | null {
  const label = statusLabel(item);
  if (label === undefined) return null;
  return h(
    'div',
    { class: `status-notice status-${statusOf(item)}` },
    h('p', {}, h('strong', {}, `${label}.`), ' ', statusSentence(item, kind)),
    statusOf(item) === 'draft' && item.review_note !== undefined ? h('p', {}, h('strong', {}, "Reviewer's note:"), ' ', item.review_note) : null,
    statusOf(item) === 'cancelled' && item.cancellation_reason !== undefined ? h('p', {}, h('strong', {}, 'Reason:'), ' ', item.cancellation_reason) : null,
  );
}
