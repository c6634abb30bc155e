// The shapes the API answers with (API.md §4, §5, §8, §14), as the console reads them.

export const CATEGORIES = ['academic', 'social', 'athletic', 'cultural'] as const;

/** Where an event or a series stands (API.md §14); absent in an answer means `published`. */
export type PublishStatus = 'draft' | 'pending' | 'published' | 'cancelled';

/** The publishing fields an event and a series share; each appears only when it says something. */
export interface Publishing {
  status?: PublishStatus;
  /** The reviewer's reason, on a draft an admin sent back, until its next change. */
  review_note?: string;
  /** Why it was called off, on a cancelled one that was given a reason. */
  cancellation_reason?: string;
}

export interface CampusEvent extends Publishing {
  id: string;
  title: string;
  description: string;
  category: string;
  location: string;
  start_time: string;
  end_time: string;
  capacity: number;
  registered_count: number;
  organizer: { name: string; email: string };
  /** Only on an occurrence of a series (API.md §11). */
  series_id?: string;
}

/** A series (API.md §11): the rule and shared fields of its occurrences. */
export interface Series extends Publishing {
  id: string;
  title: string;
  description: string;
  category: string;
  location: string;
  capacity: number;
  organizer: { name: string; email: string };
  time_zone: string;
  start_time: string;
  end_time: string;
  recurrence: string;
  exdates: string[];
  occurrence_count: number;
}

export interface EventPage {
  events: CampusEvent[];
  total: number;
  page: number;
}

export interface Registration {
  id: string;
  event_id: string;
  name: string;
  email: string;
  status: 'confirmed' | 'waitlisted';
  created_at: string;
  checked_in_at: string | null;
}

export interface RegistrationPage {
  registrations: Registration[];
  total: number;
  page: number;
}
