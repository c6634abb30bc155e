// Example request bodies for the OpenAPI document; a test runs each through the validators, so every one is a valid event.

/** An OpenAPI Example Object. */
export interface Example {
  summary: string;
  value: Record<string, unknown>;
}

/** Bodies for POST /events; `withOrganizer` needs an admin key, the others any organizer's. */
export const CREATE_EXAMPLES: Readonly<Record<string, Example>> = {
  lecture: {
    summary: 'A lecture (organizer: the key owner)',
    value: {
      title: 'Intro to Distributed Systems',
      description: 'Guest lecture by Prof. Lamport.',
      category: 'academic',
      location: 'Hall A',
      start_time: '2027-09-01T17:00:00Z',
      end_time: '2027-09-01T19:00:00Z',
      capacity: 120,
    },
  },
  withOffset: {
    summary: 'Times with an offset (stored in UTC); description omitted (defaults to "")',
    value: {
      title: 'Autumn Welcome Picnic',
      category: 'social',
      location: 'North Lawn',
      start_time: '2027-09-05T12:00:00+02:00',
      end_time: '2027-09-05T15:30:00.250+02:00',
      capacity: 300,
    },
  },
  withOrganizer: {
    summary: 'An admin setting the organizer explicitly',
    value: {
      title: 'Varsity Rowing Regatta',
      description: 'Heats from 9:00.\nFinals after lunch.',
      category: 'athletic',
      location: 'Boathouse',
      start_time: '2027-10-10T07:00:00Z',
      end_time: '2027-10-10T16:00:00Z',
      capacity: 2000,
      organizer: { name: 'Rowing Club', email: 'rowing@campus.edu' },
    },
  },
};

/** Bodies for PUT /events/{id}: partial updates of an event like `CREATE_EXAMPLES.lecture`. */
export const UPDATE_EXAMPLES: Readonly<Record<string, Example>> = {
  capacity: { summary: 'Raise the capacity', value: { capacity: 150 } },
  move: {
    summary: 'Move it to another room and an hour later',
    value: { location: 'Hall B', start_time: '2027-09-01T18:00:00Z', end_time: '2027-09-01T20:00:00Z' },
  },
};

/** Bodies for POST /events/{id}/registrations. */
export const REGISTRATION_EXAMPLES: Readonly<Record<string, Example>> = {
  attendee: { summary: 'An attendee', value: { name: 'Grace Hopper', email: 'grace@campus.edu' } },
};

/** Bodies for a check-in: nothing, or an empty object. */
export const CHECK_IN_EXAMPLES: Readonly<Record<string, Example>> = {
  empty: { summary: 'An empty object', value: {} },
};
