// Registrations written over several instances through a fault, every answer kept, then checked against what the database holds.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Instances } from './instances.js';

/** One request's last answer (after its retries with the same Idempotency-Key, when asked for). */
export interface WriteAnswer {
  n: number;
  instance: number;
  email: string;
  /** The status, or 0 when the connection failed (the instance stopped or died). */
  status: number;
  body: { error?: string; message?: string; details?: { field: string; message: string }[] };
  /** Every status the request got, retries included, in order. */
  statuses: number[];
  startedAt: number;
  answeredAt: number;
}

/** Options of registrationLoad. */
export interface LoadOptions {
  /** Clients per instance writing one registration after another. Default 2. */
  clients?: number;
  /** Which instances get writes. Default all. */
  on?: readonly number[];
  /** Retry a 503 whose outcome is unknown with the same Idempotency-Key (and body) until it is known, up to this long. Default 0: no retry. */
  retryUnknownMs?: number;
}

/** True for the 503 of API.md §12 saying a write's outcome is unknown. */
export function outcomeUnknown(answer: Pick<WriteAnswer, 'status' | 'body'>): boolean {
  return answer.status === 503 && (answer.body.details ?? []).some((detail) => detail.field === 'outcome' && detail.message.startsWith('unknown'));
}

/** Registrations for `eventId`, each with its own e-mail and Idempotency-Key, until stopped. */
export function registrationLoad(instances: Instances, eventId: string, options: LoadOptions = {}): { answers: WriteAnswer[]; stop(): Promise<void> } {
  const answers: WriteAnswer[] = [];
  let running = true;
  let next = 0;
  const send = async (instance: number, n: number): Promise<Pick<WriteAnswer, 'status' | 'body'>> => {
    try {
      const answer = await instances.call(instance, 'POST', `/events/${eventId}/registrations`, { name: `P ${n}`, email: `p${n}@history.example` }, { 'idempotency-key': `reg-${n}` });
      return { status: answer.status, body: (await answer.json()) as WriteAnswer['body'] };
    } catch {
      return { status: 0, body: {} };
    }
  };
  const client = async (instance: number): Promise<void> => {
    while (running) {
      const n = next++;
      const startedAt = Date.now();
      let answer = await send(instance, n);
      const statuses = [answer.status];
      // A retry goes to the same instance: the outcome is looked for where it was lost, as a client would.
      for (const until = Date.now() + (options.retryUnknownMs ?? 0); (outcomeUnknown(answer) || answer.status === 409) && Date.now() < until; statuses.push(answer.status)) {
        await sleep(200);
        answer = await send(instance, n);
      }
      answers.push({ n, instance, email: `p${n}@history.example`, ...answer, statuses, startedAt, answeredAt: Date.now() });
      if (answer.status !== 201) await sleep(50);
    }
  };
  const on = options.on ?? instances.servers.map((_, i) => i);
  const clients = on.flatMap((instance) => Array.from({ length: options.clients ?? 2 }, () => client(instance)));
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(clients);
    },
  };
}

/** The e-mails of every registration of `eventId` on instance `i`, read page by page. */
export async function registeredEmails(instances: Instances, i: number, eventId: string): Promise<Set<string>> {
  const emails = new Set<string>();
  for (let page = 1; ; page++) {
    const answer = (await (await instances.call(i, 'GET', `/events/${eventId}/registrations?limit=100&page=${page}`)).json()) as { registrations: { email: string }[]; total: number };
    for (const registration of answer.registrations) emails.add(registration.email);
    if (answer.registrations.length < 100) return emails;
  }
}

/**
 * Every answer against the saved state: a 201 is saved; a 503 that says nothing was saved is not; an unknown
 * outcome or a failed connection may be either. Returns one line per contradiction (empty when none).
 */
export function contradictions(answers: readonly WriteAnswer[], saved: ReadonlySet<string>): string[] {
  const wrong: string[] = [];
  for (const answer of answers) {
    const there = saved.has(answer.email);
    if (answer.status === 201 && !there) wrong.push(`request ${answer.n} on instance ${answer.instance} was answered 201 and is not saved`);
    if (answer.status === 503 && /nothing .*was saved/.test(answer.body.message ?? '') && there) {
      wrong.push(`request ${answer.n} on instance ${answer.instance} was answered 503 "${answer.body.message}" and is saved`);
    }
  }
  return wrong;
}

/** How the answers went, for the test's output: counts per status and per instance. */
export function summary(answers: readonly WriteAnswer[]): string {
  const byStatus = new Map<string, number>();
  for (const answer of answers) {
    const key = outcomeUnknown(answer) ? '503 unknown' : String(answer.status);
    byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
  }
  return `${answers.length} requests: ${[...byStatus].map(([status, count]) => `${count}× ${status}`).join(', ')}`;
}
