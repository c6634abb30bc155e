// A Server-Sent Events parser (WHATWG HTML §9.2.6) for text read from a fetch stream, since EventSource cannot send Authorization.

/** One dispatched message: its `id:` (the last one seen), `event:` type and joined `data:` lines. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/** Feed it text as it arrives, in chunks cut anywhere; it returns the messages each chunk completes. */
export class SseParser {
  #buffer = '';
  #data: string[] = [];
  #event = '';
  #lastId: string | undefined;
  #sawCarriageReturn = false;

  push(chunk: string): SseMessage[] {
    // A CR at the end of the previous chunk already ended a line; an LF right after it is part of that CRLF.
    if (this.#sawCarriageReturn && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.#sawCarriageReturn = chunk.endsWith('\r');
    this.#buffer += chunk;
    const messages: SseMessage[] = [];
    for (;;) {
      const end = this.#buffer.search(/\r\n|\r|\n/);
      if (end === -1) break;
      const line = this.#buffer.slice(0, end);
      const breakLength = this.#buffer.startsWith('\r\n', end) ? 2 : 1;
      this.#buffer = this.#buffer.slice(end + breakLength);
      const message = this.#line(line);
      if (message !== undefined) messages.push(message);
    }
    return messages;
  }

  #line(line: string): SseMessage | undefined {
    if (line === '') {
      if (this.#data.length === 0) {
        this.#event = '';
        return undefined;
      }
      const message = { id: this.#lastId, event: this.#event === '' ? 'message' : this.#event, data: this.#data.join('\n') };
      this.#data = [];
      this.#event = '';
      return message;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id' && !value.includes('\0')) this.#lastId = value;
    return undefined;
  }
}
