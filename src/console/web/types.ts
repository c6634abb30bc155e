// The shapes the API answers with (API.md §4, §5, §8), as the console reads them.

export const CATEGORIES = ['academic', 'social', 'athletic', 'cultural'] as const;

export interface CampusEvent {
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
