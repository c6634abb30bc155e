// DocumentTable against a plain map over seeded random sets, deletes and record lines: get, list, all and size agree after every step.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DocumentTable, type StoredDocument } from '../../../src/store/views/document-table.js';
import { mulberry32 } from '../../helpers/random.js';

const SEED = Number(process.env['DOCUMENT_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const COLLECTIONS = ['series', 'webhooks', 'other'];

const byKey = (documents: readonly StoredDocument[]): string[] => documents.map((document) => `${document.collection}/${document.id}@${document.seq}`).sort();

test(`DocumentTable answers as a plain map of (collection, id) after every set, delete and applied line (DOCUMENT_SEED=${SEED})`, () => {
  const random = mulberry32(SEED);
  const below = (n: number): number => Math.floor(random() * n);
  const table = new DocumentTable();
  const model = new Map<string, StoredDocument>();
  for (let seq = 1; seq <= 2000; seq++) {
    const collection = COLLECTIONS[below(COLLECTIONS.length)]!;
    // Few ids, shared across collections: the same id in two collections is two documents.
    const id = `doc_${below(12)}`;
    const document: StoredDocument = { collection, id, json: `{"n":${seq}}`, seq };
    const what = `seed ${SEED}, step ${seq}`;
    switch (below(4)) {
      case 0:
        table.set(collection, id, document);
        model.set(`${collection} ${id}`, document);
        break;
      case 1:
        table.set(collection, id, null);
        model.delete(`${collection} ${id}`);
        break;
      case 2:
        table.apply({ seq, op: below(2) === 0 ? 'doc' : 'docstate', document });
        model.set(`${collection} ${id}`, document);
        break;
      default:
        table.apply({ seq, op: 'docdel', collection, id });
        model.delete(`${collection} ${id}`);
    }
    assert.equal(table.size, model.size, `${what}: size`);
    assert.equal(table.get(collection, id), model.get(`${collection} ${id}`), `${what}: get`);
    assert.deepEqual(byKey(table.all()), byKey([...model.values()]), `${what}: all`);
    const wanted = COLLECTIONS[below(COLLECTIONS.length)]!;
    assert.deepEqual(byKey(table.list(wanted)), byKey([...model.values()].filter((each) => each.collection === wanted)), `${what}: list ${wanted}`);
  }
});

test('DocumentTable: an unknown collection lists nothing and gets nothing; deleting what is absent changes no count', () => {
  const table = new DocumentTable();
  assert.deepEqual(table.list('series'), []);
  assert.deepEqual(table.all(), []);
  assert.equal(table.get('series', 'x'), undefined);
  table.set('series', 'x', null);
  assert.equal(table.size, 0);
  const document: StoredDocument = { collection: 'series', id: 'x', json: '{}', seq: 1 };
  table.set('series', 'x', document);
  table.set('series', 'x', { ...document, seq: 2 });
  assert.equal(table.size, 1, 'a replaced document is counted once');
  assert.equal(table.get('series', 'x')?.seq, 2);
  assert.equal(table.get('webhooks', 'x'), undefined, 'the same id in another collection is another document');
  const listed = table.list('series');
  listed.pop();
  assert.equal(table.list('series').length, 1, 'a list is a copy');
});
