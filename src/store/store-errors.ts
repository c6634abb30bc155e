// The errors the store raises for its callers to map: it knows no HTTP.

/** The store cannot write (a failed write, disk full, shutting down): nothing of the change was kept. */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
}
