// The time from a POST /events on instance A to its entry on instance B's live change stream (API.md §9.2, §12).

/** `count` writes one after another on `a`; for each, ms until `b`'s stream carries its id (POST answer included), sorted. */
export async function propagationTimes(a: string, b: string, key: string, count: number): Promise<number[]> {
  const headers = { authorization: `Bearer ${key}` };
  const stream = await fetch(`${b}/changes?since=1`, { headers: { ...headers, accept: 'text/event-stream' } });
  const reader = stream.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const times: number[] = [];
  for (let n = 0; n < count; n++) {
    const sentAt = performance.now();
    const body = { title: `Propagation ${n}`, category: 'academic', location: 'Hall', start_time: '2031-05-01T10:00:00Z', end_time: '2031-05-01T11:00:00Z', capacity: 10 };
    const answer = await fetch(`${a}/events`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (answer.status !== 201) throw new Error(`propagation: POST /events answered ${answer.status}`);
    const { id } = (await answer.json()) as { id: string };
    while (!text.includes(id)) text += decoder.decode((await reader.read()).value);
    times.push(performance.now() - sentAt);
    text = text.slice(text.lastIndexOf(id));
  }
  await reader.cancel();
  return times.sort((x, y) => x - y);
}
