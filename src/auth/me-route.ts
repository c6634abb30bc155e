// GET /me: who the calling key belongs to and what role it has, so a client can show who is signed in.
import type { Route } from '../http/route.js';

/** `GET /me` (any role, feed included): `{key_id, name, email, role}`. */
export const meRoute: Route = {
  name: 'getMe',
  auth: true,
  body: false,
  handle(context) {
    const { keyId, name, email, role } = context.principal!;
    return { status: 200, body: JSON.stringify({ key_id: keyId, name, email, role }) };
  },
};
