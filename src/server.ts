#!/usr/bin/env node
// `node dist/server.js`. The stop signals are caught before anything else is loaded: loading the service takes a
// moment (about 0.2 s), and a signal's default would end the process at once, exit 143, in the middle of its start.
// run-server.ts takes them over, with those caught meanwhile, and stops once the start is over.

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const caught: string[] = [];
let stop: ((signal: string) => void) | undefined;
for (const signal of STOP_SIGNALS) {
  process.on(signal, () => {
    if (stop === undefined) caught.push(signal);
    else stop(signal);
  });
}

const { runServer } = await import('./run-server.js');
await runServer((handler) => {
  stop = handler;
  for (const signal of caught.splice(0)) handler(signal);
});
