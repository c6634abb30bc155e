// The outgoing POST of one attempt: http: URLs on our own small client over node:net, https: ones on node:https; the
// resolved address checked, no redirect followed, at most 64 KiB of the answer read.
import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { HostPolicy } from './host-policy.js';
import { PlainHttpClient, type PlainOutcome, type PlainTarget } from './plain-http-client.js';

/** What one attempt sends. */
export interface OutgoingRequest {
  url: string;
  /** Headers of ours (free of CR and LF); Host, User-Agent, Content-Type and Content-Length are added. */
  headers: Record<string, string>;
  /** The JSON body, and its length in UTF-8 bytes. */
  body: string;
  bodyLength: number;
}

/** An attempt under way: a way to give up on it (the reason becomes its error). */
export interface SentAttempt {
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
  /** Sends one attempt; `done` is called once with its outcome, never before `send` returns. */
  send(request: OutgoingRequest, done: (outcome: AttemptOutcome) => void): SentAttempt;
  close(): void;
}

/** The most of a receiver's answer read: the rest is never asked for. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** Where a URL's requests go, worked out once per URL (the policy does not change while the service runs). */
type Target = { refused: string } | { refused: undefined; secure: false; plain: PlainTarget } | { refused: undefined; secure: true; options: https.RequestOptions };

/** A client that reaches only what `policy` allows, after resolution as well as before. */
export function httpDeliveryClient(policy: HostPolicy): DeliveryClient {
  const checkedLookup = ((hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void => {
    dnsLookup(hostname, { ...options }, (error, address: string | LookupAddress[], family?: number) => {
      if (error !== null) return callback(error, address, family);
      const addresses = typeof address === 'string' ? [address] : address.map((entry) => entry.address);
      const refused = addresses.find((candidate) => !policy.allowsAddress(hostname, candidate));
      if (refused !== undefined) return callback(refusal(`${hostname} resolved to ${refused}, which --webhook-hosts does not allow`), address, family);
      callback(null, address, family);
    });
  }) as LookupFunction;
  const plain = new PlainHttpClient(checkedLookup, MAX_ANSWER_BYTES);
  const httpsAgent = new https.Agent({ keepAlive: true });

  const targets = new Map<string, Target>();
  const targetOf = (href: string): Target => {
    let target = targets.get(href);
    if (target === undefined) {
      if (targets.size > 1000) targets.clear();
      target = parseTarget(href, policy);
      targets.set(href, target);
    }
    return target;
  };

  return {
    send(request, done) {
      const target = targetOf(request.url);
      if (target.refused !== undefined) {
        const refused = target.refused;
        queueMicrotask(() => done({ ok: false, responseStatus: null, error: refused }));
        return { abort: () => undefined };
      }
      if (target.secure) return sendHttps(target.options, httpsAgent, checkedLookup, request, done);
      return plain.send(target.plain, request.headers, request.body, request.bodyLength, (outcome) => done(judged(outcome)));
    },
    close() {
      plain.close();
      httpsAgent.destroy();
    },
  };
}

/** A URL's target, or why it may not be called (an invalid URL, a host --webhook-hosts does not allow). */
function parseTarget(href: string, policy: HostPolicy): Target {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return { refused: 'the url is not a valid URL' };
  }
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!policy.allowsHost(hostname) || (isIP(hostname) !== 0 && !policy.allowsAddress(hostname, hostname))) {
    return { refused: `the host ${hostname} is not allowed by --webhook-hosts` };
  }
  const secure = url.protocol === 'https:';
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  const path = `${url.pathname}${url.search}`;
  if (secure) return { refused: undefined, secure, options: { hostname, port, path, method: 'POST' } };
  return { refused: undefined, secure, plain: { origin: `${hostname}:${port}`, hostname, port, hostHeader: url.host, path } };
}

/** An exchange's outcome for the delivery log: a 2xx acknowledges; anything else says why not. */
function judged({ status, error }: PlainOutcome): AttemptOutcome {
  if (status === null) return { ok: false, responseStatus: null, error: typeof error === 'string' ? error : describe(error ?? {}) };
  if (status >= 200 && status < 300) return { ok: true, responseStatus: status, error: null };
  return { ok: false, responseStatus: status, error: status >= 300 && status < 400 ? `answered ${status}; redirects are not followed` : `answered ${status}` };
}

/** An https attempt on node:https: its answer read up to MAX_ANSWER_BYTES; once more on a new connection if a kept-alive one was closed. */
function sendHttps(options: https.RequestOptions, agent: https.Agent, lookup: LookupFunction, request: OutgoingRequest, done: (outcome: AttemptOutcome) => void): SentAttempt {
  let aborted: string | undefined;
  let current: http.ClientRequest | undefined;
  let settled = false;
  const finish = (outcome: PlainOutcome): void => {
    if (settled) return;
    settled = true;
    done(judged(outcome));
  };
  const once = (retry: boolean): void => {
    let status: number | null = null;
    const outgoing = https.request({ ...options, agent, lookup, headers: { ...request.headers, 'content-type': 'application/json', 'content-length': request.bodyLength, 'user-agent': 'campus-events-webhooks' } });
    current = outgoing;
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (aborted !== undefined) return finish({ status, error: status === null ? aborted : null });
      // A kept-alive connection the receiver closed meanwhile: the request never reached it, so try once on a new one.
      if (retry && outgoing.reusedSocket && error.code === 'ECONNRESET') return once(false);
      finish({ status, error });
    });
    outgoing.on('response', (answer) => {
      status = answer.statusCode ?? 0;
      let read = 0;
      answer.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read < MAX_ANSWER_BYTES) return;
        // Enough: the rest of the answer is never read, and its connection not reused.
        answer.destroy();
        finish({ status, error: null });
      });
      const settle = (): void => finish({ status, error: null });
      answer.on('end', settle);
      answer.on('error', settle);
      answer.on('close', settle);
    });
    outgoing.end(request.body);
  };
  once(true);
  return {
    abort(reason) {
      aborted ??= reason;
      current?.destroy();
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
function describe(error: { code?: string | undefined; message?: string }): string {
  if (error.code === 'EHOSTNOTALLOWED') return error.message ?? 'the address is not allowed by --webhook-hosts';
  const code = error.code ?? 'ERROR';
  return ERROR_WORDS[code] === undefined ? `request failed (${code})` : `${ERROR_WORDS[code]} (${code})`;
}
