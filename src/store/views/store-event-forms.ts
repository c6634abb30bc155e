// The store's own event objects as the search index sees them (search/event-forms.ts): handed to it, so search/ never
// imports the store.
import type { StoredEvent } from '../../events/event.js';
import type { EventForms } from '../../search/event-forms.js';
import { PackedEvent } from './packed-event.js';
import { EventState } from './served-event.js';

/** Every EventState keeps its own search slot; a PackedEvent (replayed) gives its searched texts by key, from the arena. */
export const STORE_EVENT_FORMS: EventForms = {
  holdsSlot: (stored: StoredEvent): stored is EventState => stored instanceof EventState,
  keysTexts: (stored: StoredEvent): stored is PackedEvent => stored instanceof PackedEvent,
};
