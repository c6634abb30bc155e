// Seeded random event views for the tests of the readers of a logged view (view-scan's and the search build's
// locator): records with every JSON escape, control characters, non-ASCII text (accents, CJK, emoji, lone
// surrogates), the layout's own keys inside the text, odd ids, e-mails, times and numbers; bytes to put around a
// view; and a view changed into another layout.
import { CATEGORIES, type EventRecord } from '../../src/events/event.js';

export type Random = () => number;
export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Pieces of text: every character JSON escapes, backslash runs before quotes, the layout's own keys, non-ASCII. */
const PIECES = [
  '"', '\\', '\\"', '\\\\', '\\\\"', '"\\', '/', '\b', '\f', '\n', '\r', '\t', '\u0000', '\u0001', '\u001f', '\u007f', ' ', 'a', 'Z', '0', '9',
  'é', 'Zoë', '日本', '東京大学', '한국어', 'İ', '🎉', '\u2028', '\u2029', '\ud800', '\udfff', 'ß', '\u00a0',
  '","category":"social', '","location":', '"}}', '"}', '","email":"x@y.z"}}', ',"email":"', ',"organizer":{"name":', ',"registered_count":7',
  '","capacity":12', '","end_time":"2026-01-01T00:00:00.000Z', ',"start_time":"', ',"description":', ',"series_id":"ser_0123456789abcdef"}',
  '","title":"', '{"id":"evt_0123456789abcdef', '1', '2026-09-01T17:00:00.000Z',
];

function text(random: Random, max: number): string {
  let out = '';
  for (let n = Math.floor(random() * max); n > 0; n--) out += random() < 0.5 ? pick(random, PIECES) : ALNUM[Math.floor(random() * ALNUM.length)]!;
  return out;
}

function alnum(random: Random, length: number): string {
  let out = '';
  for (let n = 0; n < length; n++) out += ALNUM[Math.floor(random() * ALNUM.length)]!;
  return out;
}

function randomId(random: Random, prefix: string): string {
  const roll = random();
  if (roll < 0.9) return prefix + alnum(random, 16 + Math.floor(random() * 8));
  if (roll < 0.93) return prefix + alnum(random, 15); // one short
  if (roll < 0.96) return prefix + alnum(random, 10) + pick(random, ['-', '_', 'é', ' ', '"']) + alnum(random, 10);
  return pick(random, ['EVT_', 'evt', 'ev_', 'ser_', 'evt_', '']) + alnum(random, 20);
}

function randomEmail(random: Random): string {
  const roll = random();
  let local = '';
  // Any printable ASCII but the quote and backslash; sometimes those, a control character or a non-ASCII one.
  for (let n = Math.floor(random() * 20); n > 0; n--) local += String.fromCharCode(0x20 + Math.floor(random() * 95)).replace(/["\\]/, '.');
  if (roll < 0.85) return local + '@Campus.Example';
  if (roll < 0.88) return '';
  return local + pick(random, ['"', '\\', 'ë', '\n', '\u001f', '\u007f', '日', '🎉']) + alnum(random, 3);
}

function randomTime(random: Random): string {
  const roll = random();
  if (roll < 0.93) return new Date(Math.floor(random() * 253402300800000)).toISOString();
  return pick(random, [
    '1969-12-31T23:59:59.999Z', '2023-02-29T00:00:00.000Z', '2026-04-31T10:00:00.000Z', '2026-13-01T00:00:00.000Z', '2026-01-01T24:00:00.000Z',
    '2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000+', '2026-01-01 00:00:00.000Z', '2026-1-01T00:00:00.000Z', '+012026-01-01T00:00:00.000Z', '',
    '2024-02-29T00:00:00.000Z', '2000-02-29T23:59:59.999Z', '1970-01-01T00:00:00.000Z',
  ]);
}

function randomCount(random: Random): number {
  const roll = random();
  if (roll < 0.93) return Math.floor(random() * (random() < 0.5 ? 10 : 1e12));
  return pick(random, [-1, -250, 1.5, 1e21, 0]);
}

export function randomRecord(random: Random): EventRecord {
  const record: EventRecord = {
    id: randomId(random, 'evt_'),
    title: text(random, 12),
    description: random() < 0.3 ? '' : text(random, 40),
    category: random() < 0.97 ? pick(random, CATEGORIES) : (pick(random, ['Social', 'sports', '', 'academic ']) as EventRecord['category']),
    location: text(random, 8),
    start_time: randomTime(random),
    end_time: randomTime(random),
    capacity: randomCount(random),
    registered_count: randomCount(random),
    organizer: { name: text(random, 8), email: randomEmail(random) },
    created_at: new Date(Math.floor(random() * 4e12)).toISOString(),
  };
  if (random() < 0.3) record.series_id = randomId(random, 'ser_');
  return record;
}

/** Bytes around the view that look like its parts (quotes, digits, backslashes, keys), so no bound may be crossed. */
export function junk(random: Random): string {
  return text(random, 4) + pick(random, ['', '"', '\\', '0123', 'evt_0123456789abcdefgh', '"}}', '","title":"', 'Z"}}']);
}

/** A scannable view changed into another layout: a field dropped or moved, a value of another type, spaces, broken bytes. */
export function otherLayout(random: Random, record: EventRecord, view: string): { how: string; text: string | Buffer } {
  const fields = JSON.parse(view) as Record<string, unknown> & { organizer: Record<string, unknown> };
  const keys = Object.keys(fields).filter((key) => key !== 'series_id');
  const rebuild = (order: string[], changed: Record<string, unknown> = {}): string => JSON.stringify(Object.fromEntries(order.map((key) => [key, key in changed ? changed[key] : fields[key]]).concat(fields['series_id'] === undefined ? [] : [['series_id', fields['series_id']]])));
  const roll = Math.floor(random() * 9);
  const key = pick(random, keys);
  if (roll === 0) return { how: `without ${key}`, text: rebuild(keys.filter((each) => each !== key)) };
  if (roll === 1) {
    const at = Math.floor(random() * (keys.length - 1));
    const order = [...keys];
    [order[at], order[at + 1]] = [order[at + 1]!, order[at]!];
    return { how: `${order[at]} before ${order[at + 1]}`, text: rebuild(order) };
  }
  if (roll === 2) {
    const value = pick(random, [null, 7, true, [], {}, '7', 1.5, -2]);
    // A number where the view has a string, or anything else where it has a number or an object.
    const fits = typeof fields[key] === typeof value && (typeof value !== 'number' || (Number.isInteger(value) && value >= 0));
    return { how: `${key} as ${JSON.stringify(value)}`, text: rebuild(keys, { [key]: fits ? null : value }) };
  }
  if (roll === 3) {
    const part = pick(random, ['name', 'email']);
    const organizer = random() < 0.5 ? { email: fields.organizer['email'], name: fields.organizer['name'] } : { [part]: fields.organizer[part] };
    return { how: `organizer ${JSON.stringify(Object.keys(organizer))}`, text: rebuild(keys, { organizer }) };
  }
  if (roll === 4) {
    const spaced = JSON.stringify(fields, null, 1);
    return { how: 'with spaces', text: random() < 0.5 ? spaced : view.replace(pick(random, ['":', ',"']), (found) => (found === '":' ? '": ' : ', "')) };
  }
  if (roll === 5) {
    // The description's opening quote shared with the category's key: no JSON writer makes it.
    return { how: 'a description of one quote', text: view.replace(/,"description":.*,"category":"/s, ',"description":","category":"') };
  }
  if (roll === 6) {
    // A raw control byte or a byte above ASCII spliced into the e-mail (JSON.stringify escapes the first, keeps the second as UTF-8).
    const bytes = Buffer.from(view);
    const at = bytes.lastIndexOf(',"email":"') + 10 + Math.floor(random() * (record.organizer.email.length + 1));
    const byte = pick(random, [0x00, 0x09, 0x0a, 0x1f, 0x7f, 0x80, 0xc3, 0xff]);
    return { how: `byte ${byte} in the e-mail at ${at}`, text: Buffer.concat([bytes.subarray(0, at), Buffer.from([byte]), bytes.subarray(at)]) };
  }
  if (roll === 8) {
    // The closing bytes broken (a series id's closing quote too): the last or the one before it dropped, the last doubled, a byte before it.
    const [body, last, beforeLast] = [view.slice(0, -2), view.slice(-1), view.slice(-2, -1)];
    const broken = pick(random, [beforeLast, last, beforeLast + last + last, `${beforeLast}x${last}`]);
    return { how: `ending ${JSON.stringify(broken)}`, text: body + broken };
  }
  // Another key's name in place of one: mostly the same name capitalised (same length: only the key's bytes differ).
  const inner = random() < 0.3;
  const renamedKey = inner ? pick(random, ['name', 'email']) : key;
  const renamed = random() < 0.7 ? renamedKey[0]!.toUpperCase() + renamedKey.slice(1) : pick(random, ['desc', 'categories', 'place', 'start', 'end_date', 'seats', 'registered', 'owner', 'ident']);
  const rename = (object: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(object).map(([name, value]) => [name === renamedKey ? renamed : name, value]));
  return { how: `${inner ? 'organizer.' : ''}${renamedKey} renamed ${renamed}`, text: JSON.stringify(inner ? { ...fields, organizer: rename(fields.organizer) } : rename(fields)) };
}
