// The signed-in key, kept in sessionStorage: it lives as long as the tab and is gone when it closes or on sign-out.

const KEY = 'campus-events.key';
const FEED_KEY = 'campus-events.feed-key';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function storedFeedKey(): string | null {
  return sessionStorage.getItem(FEED_KEY);
}

export function storeFeedKey(key: string): void {
  if (key === '') sessionStorage.removeItem(FEED_KEY);
  else sessionStorage.setItem(FEED_KEY, key);
}

/** Sign-out: forgets both keys. */
export function forgetKeys(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(FEED_KEY);
}
