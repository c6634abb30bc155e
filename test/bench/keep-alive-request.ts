// One request of a benchmark on a keep-alive agent, as a client that reuses its connection sends it.
import http from 'node:http';
import type { SpawnedServer } from '../helpers/spawn.js';

/** Sends `method target` (with `body` as JSON text) with `key`; resolves with the status and the body, rejects on a network error. */
export function keepAliveRequest(server: SpawnedServer, agent: http.Agent, key: string, method: string, target: string, body?: string): Promise<{ status: number; text: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    const sent = http.request({ agent, host: url.hostname, port: url.port, method, path: target, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}
