// createApp's options are checked before anything is opened: a mistaken option is a TypeError naming it, by the
// server's rules for the same flag, and leaves the data folder untouched, so the corrected call starts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createApp, type AppOptions } from '../src/app.js';
import { checkAppOptions } from '../src/app-options.js';
import { createLogger } from '../src/log/logger.js';
import { startServer, type StartOptions } from '../src/start-server.js';
import { tempDir } from './helpers/harness.js';

/** Options as a host might get them wrong (from JavaScript, or a config file), each with the message it must get. */
const MISTAKES: readonly [Record<string, unknown>, RegExp][] = [
  [{ store: 'postgres' }, /^createApp: store must be "file", "memory" or a postgres:\/\/.* got "postgres"$/],
  [{ store: 'memroy' }, /^createApp: store must be .* got "memroy"$/],
  [{ store: 'postgres://u:secret@h1:5432,h2:x/db' }, /^createApp: store: .*\*\*\*/],
  [{ rateLimit: 0 }, /^createApp: rateLimit must be an integer from 1 to 1000000000, got "0"$/],
  [{ rateLimit: 2e9 }, /^createApp: rateLimit must be an integer from 1 to 1000000000, got "2000000000"$/],
  [{ rateLimit: '5' }, /^createApp: rateLimit must be a number, got "5"$/],
  [{ rateWindow: 0.5 }, /^createApp: rateWindow must be an integer from 1 to 31536000, got "0.5"$/],
  [{ rateWindow: 1e12 }, /^createApp: rateWindow must be an integer from 1 to 31536000, got "1000000000000"$/],
  [{ compactMinBytes: -1 }, /^createApp: compactMinBytes must be an integer from 1 to \d+, got "-1"$/],
  [{ corsOrigins: 'https://a.campus.edu' }, /^createApp: corsOrigins must be an array of strings, got "https:\/\/a.campus.edu"$/],
  [{ corsOrigins: ['https://a.campus.edu/'] }, /^createApp: each entry of corsOrigins must be one origin, such as https:\/\/events.campus.edu, got "https:\/\/a.campus.edu\/": an origin has no path; write it as https:\/\/a.campus.edu$/],
  [{ corsOrigins: ['not a url'] }, /^createApp: each entry of corsOrigins must be one origin, such as https:\/\/events.campus.edu, got "not a url"$/],
  [{ corsOrigins: [1] }, /^createApp: corsOrigins must be an array of strings, got one holding 1$/],
  [{ corsOrigins: [' https://a.campus.edu'] }, /^createApp: each entry of corsOrigins must be one origin, such as https:\/\/events.campus.edu, got " https:\/\/a.campus.edu"$/],
  [{ corsOrigins: ['https://a.campus.edu,https://b.campus.edu'] }, /^createApp: each entry of corsOrigins must be one origin, such as https:\/\/events.campus.edu, got "https:\/\/a.campus.edu,https:\/\/b.campus.edu"$/],
  [{ webhookHosts: 'hooks.campus.edu' }, /^createApp: webhookHosts must be an array of strings, got "hooks.campus.edu"$/],
  [{ webhookHosts: ['hooks.campus.edu:8080'] }, /^createApp: each entry of webhookHosts must be one host name or address \(or \* for any\), such as hooks.campus.edu, got "hooks.campus.edu:8080"$/],
  [[] as unknown as Record<string, unknown>, /^createApp: options must be an object, got an array$/],
  [{ basePath: 'api/campus' }, /^createApp: basePath must be a path such as \/api\/campus .* got "api\/campus"$/],
  [{ basePath: '/api campus' }, /^createApp: basePath must be a path/],
  [{ dataDir: ' ' }, /^createApp: dataDir must name a folder, got " "$/],
  [{ keyPollMs: -1 }, /^createApp: keyPollMs must be a whole number of milliseconds from 1 to 2147483647 \(or 0: never, for tests\), got -1$/],
  // Past a timer's range, or a fraction of a millisecond, node would poll keys.json every millisecond.
  [{ keyPollMs: 1e10 }, /^createApp: keyPollMs must be a whole number .* got 10000000000$/],
  [{ keyPollMs: 0.5 }, /^createApp: keyPollMs must be a whole number .* got 0.5$/],
  // Compared with the path as sent: a client sends /café percent-encoded, and resolves /.. before sending.
  [{ basePath: '/café' }, /^createApp: basePath must be a path such as \/api\/campus \(ASCII letters, digits and -._~ between slashes, no . or .. segment\), got "\/café"$/],
  [{ basePath: '/..' }, /^createApp: basePath must be a path/],
  [{ basePath: '/api/./campus' }, /^createApp: basePath must be a path/],
  [{ logLevel: 'info' }, /^createApp: unknown option logLevel; a level is set on the logger: logger: createLogger\(\{ level: 'info', write \}\)$/],
  [{ timeZone: 'Mars/Olympus' }, /^createApp: timeZone must be an IANA time zone name such as Europe\/Berlin, got "Mars\/Olympus"$/],
  [{ approval: 'on' }, /^createApp: approval must be "off" or "required", got "on"$/],
  [{ console: 'off' }, /^createApp: console must be true or false, got "off"$/],
  [{ now: 0 }, /^createApp: now must be a function, got 0$/],
  [{ datadir: '/tmp/campus' }, /^createApp: unknown option datadir; did you mean dataDir\?$/],
  [{ rateLimt: 5 }, /^createApp: unknown option rateLimt; did you mean rateLimit\?$/],
  [{ port: 3000 }, /^createApp: unknown option port; startServer takes it/],
  [{ logger: console }, /^createApp: logger must be made by createLogger\(\{level, write\}\) \(or have its methods\); this one has no request, enabled, flush$/],
  [{ store: 'postgres://u:p@h/db?application_name=my app' }, /^createApp: store must be "file", "memory" or a postgres:\/\/.* got "postgres:\/\/u:\*\*\*@h\/db\?application_name=my app"$/],
];

test('each mistaken option is a TypeError naming the option and what it must be', () => {
  for (const [options, message] of MISTAKES) {
    assert.throws(() => checkAppOptions(options as AppOptions), (error: Error) => error instanceof TypeError && message.test(error.message), JSON.stringify(options));
  }
});

test('the options the README and the tests use pass, and undefined ones take their defaults', () => {
  for (const options of [
    {},
    { store: 'memory', keyPollMs: 0 },
    { store: 'file', dataDir: './campus-data', basePath: '/api/campus', rateLimit: 1_000_000_000, rateWindow: 31_536_000, compactMinBytes: Number.MAX_SAFE_INTEGER },
    { store: 'postgres://campus:secret@db1:5432,db2:5432/campus', basePath: '/api/campus/', corsOrigins: ['https://a.campus.edu', 'http://localhost:5173', 'HTTPS://B.campus.edu:443'] },
    { webhookHosts: ['*', '*.campus.edu', '127.0.0.1', '[::1]'], timeZone: 'Europe/Berlin', approval: 'required', console: false, bootstrapAdminKey: false, now: Date.now },
    { basePath: '/api/campus-v2.1_x~', keyPollMs: 2_147_483_647 },
    { basePath: '', rateLimit: undefined, store: undefined, logger: createLogger({ level: 'warn', write: () => undefined }) },
  ] as AppOptions[]) {
    assert.doesNotThrow(() => checkAppOptions(options), JSON.stringify(options));
  }
});

test('createApp refuses a mistaken option before touching the folder, so the corrected call starts on it', async () => {
  const { dir, remove } = tempDir();
  const dataDir = path.join(dir, 'data');
  try {
    for (const mistake of [{ rateLimit: 0 }, { rateWindow: 0 }, { store: 'memroy' }, { basePath: 'api' }, { logger: console }, { datadir: dataDir }]) {
      await assert.rejects(createApp({ dataDir, keyPollMs: 0, ...mistake } as AppOptions), TypeError);
      assert.equal(existsSync(dataDir), false, `${JSON.stringify(mistake)}: no folder made, no LOCK held`);
    }
    const app = await createApp({ dataDir, keyPollMs: 0, rateLimit: 10 });
    await app.close();
    assert.deepEqual(readdirSync(dataDir).sort(), ['events.jsonl', 'keys.json', 'rate-limits.json']);
  } finally {
    remove();
  }
});

test('startServer names itself and its own options in the same refusals: prot is "did you mean port?"', async () => {
  await assert.rejects(startServer({ store: 'memory', prot: 0 } as StartOptions), (error: Error) => error instanceof TypeError && error.message === 'startServer: unknown option prot; did you mean port?');
  await assert.rejects(startServer({ store: 'memory', rateLimit: 0 }), (error: Error) => error instanceof TypeError && /^startServer: rateLimit must be an integer from 1/.test(error.message));
});

test('startServer checks port, host and timeouts by the flags\' rules before the folder is opened, so the corrected call starts on it', async () => {
  const { dir, remove } = tempDir();
  const dataDir = path.join(dir, 'data');
  try {
    const refusals: [Record<string, unknown>, RegExp][] = [
      // A string port would have listened on a Unix socket file of that name, in the working folder.
      [{ port: 'abc' }, /^startServer: port must be a number, got "abc"$/],
      [{ port: -1 }, /^startServer: port must be an integer from 0 to 65535/],
      [{ port: 1.5 }, /^startServer: port must be an integer from 0 to 65535/],
      [{ port: 70_000 }, /^startServer: port must be an integer from 0 to 65535/],
      [{ host: 5 }, /^startServer: host must be a string, got 5$/],
      [{ host: 'a b' }, /^startServer: host must be an IP address or a host name/],
      // node:http threw on these only after the folder was locked, and the lock stayed held.
      [{ timeouts: {} }, /^startServer: timeouts.headersMs must be a whole number of milliseconds from 1 to 2147483647, got undefined$/],
      [{ timeouts: null }, /^startServer: timeouts.headersMs must be a whole number/],
      [{ timeouts: { headersMs: 20, requestMs: 10, keepAliveMs: 5 } }, /^startServer: timeouts.headersMs \(20\) must not exceed timeouts.requestMs \(10\)$/],
    ];
    for (const [mistake, message] of refusals) {
      await assert.rejects(startServer({ dataDir, keyPollMs: 0, ...mistake } as StartOptions), (error: Error) => error instanceof TypeError && message.test(error.message), JSON.stringify(mistake));
      assert.equal(existsSync(dataDir), false, `${JSON.stringify(mistake)}: no folder made, no LOCK held`);
    }
    // An IPv6 address in brackets, as --host takes it.
    const running = await startServer({ dataDir, keyPollMs: 0, port: 0, host: '[::1]' });
    try {
      assert.match(running.url, /^http:\/\/\[::1\]:\d+$/);
      assert.equal((await fetch(`${running.url}/health`)).status, 200);
    } finally {
      await running.close();
    }
  } finally {
    remove();
  }
});
