// The X-Request-Id of an answer: the client's own when it sent a usable one (API.md §5), else one the server makes.

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._~:/+=-]{1,128}$/;

/** The request's own X-Request-Id when it is 1–128 characters of `[A-Za-z0-9._~:/+=-]`, else undefined. */
export function clientRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : undefined;
}
