// The outgoing POST of one attempt, on node:http/node:https alone: the resolved address checked, no redirect followed, at most 64 KiB of the answer read.
import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { HostPolicy } from './host-policy.js';

/** What one attempt sends. */
export interface OutgoingRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An attempt under way: its outcome, and a way to give up on it (the reason becomes its error). */
export interface SentAttempt {
  outcome: Promise<AttemptOutcome>;
  abort(reason: string): void;
}

/** How one attempt went: acknowledged (a 2xx), or why not. */
export interface AttemptOutcome {
  ok: boolean;
  /** The receiver's status, when it answered. */
  responseStatus: number | null;
  /** Why it failed, in words without keys or secrets; null when acknowledged. */
  error: string | null;
}

/** Sends attempts; `close()` drops idle connections. */
export interface DeliveryClient {
  send(request: OutgoingRequest): SentAttempt;
  close(): void;
}

/** The most of a receiver's answer read: the rest is never asked for. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** A client over node:http and node:https that reaches only what `policy` allows, after resolution as well as before. */
export function httpDeliveryClient(policy: HostPolicy): DeliveryClient {
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  const checkedLookup = (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void => {
    dnsLookup(hostname, { ...options }, (error, address: string | LookupAddress[], family?: number) => {
      if (error !== null) return callback(error, address, family);
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
      const refused = addresses.find((candidate) => !policy.allowsAddress(hostname, candidate));
      if (refused !== undefined) return callback(refusal(`${hostname} resolved to ${refused}, which --webhook-hosts does not allow`), address, family);
      callback(null, address, family);
    });
  };

  /** The request options of a url, parsed once per url (not per attempt). */
  const targets = new Map<string, http.RequestOptions & { secure: boolean }>();
  const targetOf = (url: URL): http.RequestOptions & { secure: boolean } => {
    let target = targets.get(url.href);
    if (target === undefined) {
      if (targets.size > 1000) targets.clear();
      const secure = url.protocol === 'https:';
      target = { secure, protocol: url.protocol, hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port === '' ? (secure ? 443 : 80) : Number(url.port), path: `${url.pathname}${url.search}` };
      targets.set(url.href, target);
    }
    return target;
  };

  function once(request: OutgoingRequest, url: URL, state: { aborted: string | undefined; current: http.ClientRequest | undefined }): Promise<AttemptOutcome & { reused: boolean; reset: boolean }> {
    return new Promise((resolve) => {
      let settled = false;
      let reused = false;
      const finish = (outcome: AttemptOutcome, reset = false): void => {
        if (settled) return;
        settled = true;
        resolve({ ...outcome, reused, reset });
      };
      const { secure, ...target } = targetOf(url);
      const outgoing = (secure ? https : http).request({
        ...target,
        method: 'POST',
        agent: secure ? agents['https:'] : agents['http:'],
        lookup: checkedLookup as never,
        headers: { ...request.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body), 'user-agent': 'campus-events-webhooks' },
      });
      state.current = outgoing;
      outgoing.on('socket', () => {
        reused = outgoing.reusedSocket;
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (state.aborted !== undefined) return finish({ ok: false, responseStatus: null, error: state.aborted });
        finish({ ok: false, responseStatus: null, error: describe(error) }, error.code === 'ECONNRESET');
      });
      outgoing.on('response', (answer) => {
        const status = answer.statusCode ?? 0;
        const outcome: AttemptOutcome =
          status >= 200 && status < 300
            ? { ok: true, responseStatus: status, error: null }
            : { ok: false, responseStatus: status, error: status >= 300 && status < 400 ? `answered ${status}; redirects are not followed` : `answered ${status}` };
        let read = 0;
        answer.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read < MAX_ANSWER_BYTES) return;
          // Enough: the rest of the answer is never read, and its connection not reused.
          answer.destroy();
          finish(outcome);
        });
        answer.on('end', () => finish(outcome));
        answer.on('error', () => finish(outcome));
        answer.on('close', () => finish(outcome));
      });
      outgoing.end(request.body);
    });
  }

  async function attempt(request: OutgoingRequest, state: { aborted: string | undefined; current: http.ClientRequest | undefined }): Promise<AttemptOutcome> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { ok: false, responseStatus: null, error: 'the url is not a valid URL' };
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!policy.allowsHost(host) || (isIP(host) !== 0 && !policy.allowsAddress(host, host))) {
      return { ok: false, responseStatus: null, error: `the host ${host} is not allowed by --webhook-hosts` };
    }
    const first = await once(request, url, state);
    // A kept-alive connection the receiver closed meanwhile: the request never reached it, so try once on a new one.
    const outcome = first.reused && first.reset && state.aborted === undefined ? await once(request, url, state) : first;
    return { ok: outcome.ok, responseStatus: outcome.responseStatus, error: outcome.error };
  }

  return {
    send(request) {
      const state: { aborted: string | undefined; current: http.ClientRequest | undefined } = { aborted: undefined, current: undefined };
      return {
        outcome: attempt(request, state),
        abort(reason) {
          state.aborted ??= reason;
          state.current?.destroy();
        },
      };
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function refusal(message: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message);
  error.code = 'EHOSTNOTALLOWED';
  return error;
}

const ERROR_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset before an answer',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed for now',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed while sending',
  HPE_INVALID_CONSTANT: 'the answer is not HTTP',
};

/** An error in words: ours (a refused address) as it is, a system one by its code; never a URL or a header. */
function describe(error: NodeJS.ErrnoException): string {
  if (error.code === 'EHOSTNOTALLOWED') return error.message;
  const code = error.code ?? 'ERROR';
  return ERROR_WORDS[code] === undefined ? `request failed (${code})` : `${ERROR_WORDS[code]} (${code})`;
}
