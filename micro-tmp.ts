import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { CATEGORIES } from './src/events/event.js';
import { encodePut } from './src/store/jsonl-record.js';
const N = 1_000_000;
let text = '';
const parts: string[] = [];
for (let i = 0; i < N; i++) {
  const start = Date.UTC(2026, 0, 1) + ((i * 7919) % 500_000) * 60_000;
  parts.push(encodePut(i + 1, { id: `evt_${i.toString(36).padStart(20, '0')}`, title: `Event number ${i} with a reasonably long title`, description: 'A description of the event that runs to a few dozen words, as most real ones do: where, who, what to bring.', category: CATEGORIES[i % 4]!, location: `Hall ${i % 50}, room ${i % 300}`, start_time: new Date(start).toISOString(), end_time: new Date(start + 7_200_000).toISOString(), capacity: 100, registered_count: 0, organizer: { name: `Organizer ${i % 500}`, email: `organizer${i % 500}@campus.example` }, created_at: '2026-01-01T00:00:00.000Z' }));
}
const buf = Buffer.concat(parts.map((p) => Buffer.from(p)));
console.log('MiB', buf.length / 1048576);
const starts: number[] = [], ends: number[] = [];
let t = performance.now();
for (let p = 0, nl = buf.indexOf(10); nl !== -1; p = nl + 1, nl = buf.indexOf(10, p)) { starts.push(p); ends.push(nl); }
console.log('split', Math.round(performance.now() - t));
t = performance.now(); let x = 0;
for (let i = 0; i < N; i++) x ^= zlib.crc32(buf.subarray(starts[i]!, ends[i]! - 18));
console.log('crc subarray', Math.round(performance.now() - t));
t = performance.now();
for (let i = 0; i < N; i++) x = zlib.crc32('}', x >>> 0);
console.log('crc brace', Math.round(performance.now() - t));
t = performance.now();
x = zlib.crc32(buf);
console.log('crc whole', Math.round(performance.now() - t));
t = performance.now();
const views: string[] = [];
for (let i = 0; i < N; i++) { const s = starts[i]!; const v = buf.indexOf('"event":', s) + 8; views.push(buf.toString('utf8', v, ends[i]! - 18)); }
console.log('toString', Math.round(performance.now() - t));
t = performance.now();
const lat: string[] = [];
for (let i = 0; i < N; i++) lat.push(buf.latin1Slice(starts[i]! + 70, ends[i]! - 18));
console.log('latin1Slice', Math.round(performance.now() - t));
t = performance.now();
let objs: unknown[] = [];
for (let i = 0; i < N; i++) objs.push(JSON.parse(views[i]!));
console.log('JSON.parse', Math.round(performance.now() - t));
objs = [];
t = performance.now();
for (let i = 0; i < N; i++) x += Date.parse('2026-01-01T00:00:00.000Z');
console.log('Date.parse', Math.round(performance.now() - t));
