// Loaded as the search worker by search-log-worker.test.ts: runs the real worker's module, but what it posts is
// replaced by the priority its thread had when it posted (the build's result itself is not needed there).
import { getPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

const port = parentPort!;
port.postMessage = () => MessagePort.prototype.postMessage.call(port, { priority: getPriority() });
await import('../../src/search/search-log-worker.js');
