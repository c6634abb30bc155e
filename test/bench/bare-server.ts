// The baselines: a bare node:http server that sends fixed bytes, or JSON.stringify's the same objects, on every request.
// Run: node --import tsx test/bench/bare-server.ts bytes|stringify SAMPLE.json   (prints `listening on URL (pid N)`)
import fs from 'node:fs';
import http from 'node:http';
import type { BareSample } from './baselines.js';
import { serveBare } from './serve-bare.js';

const [mode, sampleFile] = process.argv.slice(2);
if ((mode !== 'bytes' && mode !== 'stringify') || sampleFile === undefined) {
  process.stderr.write('usage: bare-server.ts bytes|stringify SAMPLE.json\n');
  process.exit(2);
}
const sample = JSON.parse(fs.readFileSync(sampleFile, 'utf8')) as BareSample;
const headers = sample.headers;
const body = sample.body;
const value: unknown = JSON.parse(body);

const server =
  mode === 'bytes'
    ? http.createServer((_request, response) => {
        response.writeHead(200, headers);
        response.end(body);
      })
    : http.createServer((_request, response) => {
        const text = JSON.stringify(value);
        response.writeHead(200, { ...headers, 'Content-Length': String(Buffer.byteLength(text)) });
        response.end(text);
      });
serveBare(server);
