// The documents kept beside the events (a series, say), by collection and id: the store holds their JSON and nothing of their meaning.
import type { DocumentDeleteRecord, DocumentRecord, StoredDocument } from '../records/jsonl-record.js';

export type { StoredDocument };

/** Live documents by collection, then id. */
export class DocumentTable {
  readonly #collections = new Map<string, Map<string, StoredDocument>>();
  #size = 0;

  /** Number of live documents over all collections. */
  get size(): number {
    return this.#size;
  }

  get(collection: string, id: string): StoredDocument | undefined {
    return this.#collections.get(collection)?.get(id);
  }

  /** The live documents of `collection`, in no promised order. */
  list(collection: string): StoredDocument[] {
    return [...(this.#collections.get(collection)?.values() ?? [])];
  }

  /** Every live document, for compaction. */
  all(): StoredDocument[] {
    const all: StoredDocument[] = [];
    for (const documents of this.#collections.values()) all.push(...documents.values());
    return all;
  }

  /** Applies a document line (or, with `null`, removes). */
  apply(record: DocumentRecord | DocumentDeleteRecord): void {
    if (record.op === 'docdel') this.set(record.collection, record.id, null);
    else this.set(record.document.collection, record.document.id, record.document);
  }

  set(collection: string, id: string, document: StoredDocument | null): void {
    let documents = this.#collections.get(collection);
    if (documents === undefined) this.#collections.set(collection, (documents = new Map()));
    const had = documents.has(id);
    if (document === null) documents.delete(id);
    else documents.set(id, document);
    this.#size += (document === null ? 0 : 1) - (had ? 1 : 0);
  }
}
