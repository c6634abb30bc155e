// The bare node:http baselines, fed with what our server really sends: one event's bytes, or the objects of one page.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServerProcess, type ServerProcess } from './server-process.js';

/** What a baseline answers with: our server's headers (those node:http does not add itself) and body. */
export interface BareSample {
  headers: Record<string, string>;
  body: string;
}

/** Headers node:http writes itself on every response; the bare server leaves them to node as ours does. */
const NODE_OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const BARE_SERVER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'bare-server.ts');

/** GETs `target` from our server and keeps its headers, in the case it sent them, and its body; throws unless 200. */
export function fetchSample(url: string, target: string, authorization: string): Promise<BareSample> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${url}${target}`, { headers: { authorization } }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) return reject(new Error(`GET ${target} answered ${response.statusCode}: ${body.slice(0, 300)}`));
        const headers: Record<string, string> = {};
        const raw = response.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) if (!NODE_OWN_HEADERS.has(raw[i]!.toLowerCase())) headers[raw[i]!] = raw[i + 1]!;
        resolve({ headers, body });
      });
    });
    request.on('error', reject);
  });
}

/**
 * Starts a bare server: `bytes` answers every request with the sample as is; `stringify` answers with
 * `JSON.stringify` of the sample's parsed body, computed per request (Content-Length set per response).
 */
export function startBareServer(mode: 'bytes' | 'stringify', sample: BareSample, options: { workDir: string; cpus: string | undefined }): Promise<ServerProcess> {
  const sampleFile = path.join(options.workDir, `bare-${mode}.json`);
  const headers = { ...sample.headers };
  if (mode === 'stringify') for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-length') delete headers[name];
  fs.writeFileSync(sampleFile, JSON.stringify({ headers, body: sample.body } satisfies BareSample));
  return startServerProcess({
    name: mode === 'bytes' ? 'bare same bytes' : 'bare JSON.stringify',
    argv: [process.execPath, '--import', 'tsx', BARE_SERVER, mode, sampleFile],
    stderrFile: path.join(options.workDir, `bare-${mode}.stderr`),
    cpus: options.cpus,
  });
}
