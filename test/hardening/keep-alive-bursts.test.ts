// "socket hang up" on bursts of keep-alive GETs (issue 22 point 5): a keep-alive client races the server's idle close.
// 10,000 GETs in bursts, with idle gaps around the moment the agent drops an idle connection (the hint less 1 s) and
// the moment the server closes it (keepAliveMs plus Node's 1 s), from the agent docs/operations.md tells clients to use, and
// from Node's default agent for comparison. Every reset is counted.
import assert from 'node:assert/strict';
import http from 'node:http';
import test from 'node:test';
import { docBlock } from '../helpers/docs.js';
import { startLive } from './support.js';

/** The smallest idle time-out whose hint (`timeout=2`) Node's agent still keeps connections for: it drops them after 1 s. */
const KEEP_ALIVE_MS = 2_000;
const REQUESTS = 10_000;
/** Idle gaps after each burst, in ms: around the agent's drop (1 s), the advertised time (2 s) and the server's close (3 s). */
const GAPS = [1_000, 2_000, 3_000, 3_000];
/** Connections a keep-alive client needs at most: 8 per burst (maxSockets), with room for a few replaced ones. */
const MAX_CONNECTIONS = 2 * 8 * (GAPS.length + 1);

/** The options of `new http.Agent(...)` in the keep-alive advice of docs/operations.md, evaluated as written. */
function documentedAgentOptions(): http.AgentOptions {
  const advice = docBlock('docs/operations.md', '## Keep-alive clients', 'js', 'new http.Agent');
  const match = /new http\.Agent\((\{[^)]*\})\)/.exec(advice);
  assert.ok(match !== null, 'docs/operations.md gives keep-alive clients an http.Agent setting');
  return Function(`return (${match[1]})`)() as http.AgentOptions;
}

interface Tally {
  ok: number;
  /** The connections the requests went on. */
  sockets: Set<unknown>;
  resets: number;
  other: Map<string, number>;
}

function get(port: number, agent: http.Agent, key: string, tally: Tally): Promise<void> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/events?limit=1', agent, headers: { authorization: `Bearer ${key}` } }, (response) => {
      response.resume();
      response.on('end', () => {
        if (response.statusCode === 200) tally.ok++;
        else tally.other.set(`status ${response.statusCode}`, (tally.other.get(`status ${response.statusCode}`) ?? 0) + 1);
        resolve();
      });
    });
    request.on('socket', (socket) => tally.sockets.add(socket));
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || error.message === 'socket hang up') tally.resets++;
      else tally.other.set(String(error.code ?? error.message), (tally.other.get(String(error.code ?? error.message)) ?? 0) + 1);
      resolve();
    });
  });
}

/** `requests` GETs on `agent`: a burst, an idle gap, a burst... */
async function drive(port: number, agent: http.Agent, key: string, requests: number): Promise<Tally> {
  const tally: Tally = { ok: 0, sockets: new Set(), resets: 0, other: new Map() };
  const burstSize = Math.ceil(requests / (GAPS.length + 1));
  for (let burst = 0, sent = 0; sent < requests; burst++) {
    const size = Math.min(burstSize, requests - sent);
    await Promise.all(Array.from({ length: size }, () => get(port, agent, key, tally)));
    sent += size;
    const gap = GAPS[burst];
    if (gap !== undefined) await new Promise((resolve) => setTimeout(resolve, gap));
  }
  return tally;
}

test('10,000 keep-alive GETs in bursts with idle gaps around the keep-alive time-out: the documented agent sees no reset', async (t) => {
  const options = documentedAgentOptions();
  const live = await startLive({ rateLimit: 1_000_000, timeouts: { headersMs: KEEP_ALIVE_MS, requestMs: 2 * KEEP_ALIVE_MS, keepAliveMs: KEEP_ALIVE_MS } });
  t.after(() => live.close());
  const advised = new http.Agent({ ...options, maxSockets: 8 });
  const plain = new http.Agent({ keepAlive: true, maxSockets: 8 });
  t.after(() => {
    advised.destroy();
    plain.destroy();
  });
  // Both at once, over the same gaps (the test waits for them once); the default agent with small bursts, as a witness.
  const [mine, theirs] = await Promise.all([drive(live.port, advised, live.keys.reader, REQUESTS), drive(live.port, plain, live.keys.reader, 500)]);
  t.diagnostic(`documented agent ${JSON.stringify(options)}: ${mine.ok} answered on ${mine.sockets.size} connections, ${mine.resets} resets`);
  t.diagnostic(`Node's default keep-alive agent (no timeout): ${theirs.ok} answered on ${theirs.sockets.size} connections, ${theirs.resets} resets (the race docs/operations.md warns of)`);
  assert.deepEqual(Object.fromEntries(mine.other), {}, 'no other failure');
  assert.equal(mine.resets, 0, 'no request of the documented agent was reset');
  assert.equal(mine.ok, REQUESTS);
  assert.ok(mine.sockets.size <= MAX_CONNECTIONS, `connections were kept alive within a burst (${mine.sockets.size} for ${REQUESTS} requests)`);
  assert.equal(theirs.ok + theirs.resets, 500, `every request of the default agent was answered or reset: ${JSON.stringify(Object.fromEntries(theirs.other))}`);
});
