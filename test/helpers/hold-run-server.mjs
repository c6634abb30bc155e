// Loaded with `node --import` by a test of server.ts: holds the loading of run-server.js until the file `go` appears in
// HOLD_DIR, having made the file `reached` there first. server.ts asks for run-server.js only once it catches the stop
// signals, so a signal sent between the two lands before the service is loaded.
import fs from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

export async function resolve(specifier, context, next) {
  const dir = process.env.HOLD_DIR;
  if (dir !== undefined && specifier === './run-server.js') {
    fs.writeFileSync(`${dir}/reached`, '');
    while (!fs.existsSync(`${dir}/go`)) await new Promise((done) => setTimeout(done, 10));
  }
  return next(specifier, context);
}
