// An API error as words a person can act on (API.md §3), never as raw JSON.

/** One `details` entry of a validation error. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A failed request: its status, the API's code and sentence, and field details when there are any. */
export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldProblem[] = [],
    readonly retryAfter: string | null = null,
  ) {
    super(message);
  }
}

/** Builds the problem of a non-2xx answer from its body text (which may not be JSON: a proxy's page, say). */
export function problemFrom(status: number, bodyText: string, retryAfter: string | null, requestId: string | null): ApiProblem {
  let code = 'http_error';
  let message = `The server answered with status ${status}.`;
  let details: FieldProblem[] = [];
  try {
    const body = JSON.parse(bodyText) as { error?: unknown; message?: unknown; details?: unknown };
    if (typeof body.error === 'string') code = body.error;
    if (typeof body.message === 'string' && body.message !== '') message = body.message;
    if (Array.isArray(body.details)) {
      details = body.details.filter((item): item is FieldProblem => typeof item === 'object' && item !== null && typeof item.field === 'string' && typeof item.message === 'string');
    }
  } catch {
    // Not JSON: a proxy's page. Its 502, 503 or 504 says the service behind it is down or restarting, which passes.
    if (status === 502 || status === 503 || status === 504) message = `The server answered with status ${status}: it, or a proxy in front of it, cannot reach the service just now (it may be restarting). Try again in a moment.`;
  }
  if (status === 500 && requestId !== null) message += ` If it happens again, give the administrator this request id: ${requestId}.`;
  return new ApiProblem(status, code, message, details, retryAfter);
}

/** The sentence to show for any failure. */
export function describeProblem(error: unknown): string {
  if (!(error instanceof ApiProblem)) return 'The server could not be reached. Check your connection and that the server is running, then try again.';
  switch (error.code) {
    case 'unauthorized':
      return 'Your API key was not accepted: it is unknown or has been revoked. Sign in again with a valid key.';
    case 'forbidden':
      return `Your key's role does not allow this. ${error.message}`;
    case 'precondition_failed':
      return 'Someone else changed this event while you were editing it, so your changes were not saved.';
    case 'validation_failed':
      return 'Some fields need attention; each problem is shown next to its field.';
    default:
      return error.message;
  }
}
