// The RFC 8288 Link header of a paged list: first, prev, next and last, keeping the filters and the limit.

/** One page of a list: where it is served, its filters, and where this page sits. */
export interface PageSpot {
  /** The list's path as the request came in (with its /v1 or mount prefix), e.g. `/v1/events`. */
  path: string;
  /** The filters to keep in every link, in order, unencoded; `limit` and `page` are added. */
  filters: readonly (readonly [string, string])[];
  page: number;
  limit: number;
  /** Every match on all pages. */
  total: number;
}

/**
 * The Link header value: `first` and `last` always (an empty list has one, empty, page), `next` while
 * pages remain, `prev` from page 2 on (past the end, the last page: the one that has items, or an empty list's page 1).
 */
export function pageLinks(spot: PageSpot): string {
  const { path, filters, page, limit, total } = spot;
  const kept = filters.map(([name, value]) => `${name}=${encodeURIComponent(value)}&`).join('');
  const url = (n: number): string => `<${path}?${kept}limit=${limit}&page=${n}>`;
  const last = Math.max(1, Math.ceil(total / limit));
  const links = [`${url(1)}; rel="first"`];
  if (page > 1) links.push(`${url(Math.min(page - 1, last))}; rel="prev"`);
  if (page * limit < total) links.push(`${url(page + 1)}; rel="next"`);
  links.push(`${url(last)}; rel="last"`);
  return links.join(', ');
}
