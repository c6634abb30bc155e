// Editing a whole series (API.md §11): shared fields and the schedule of every occurrence that has not started,
// with If-Match; only what the person changed is sent, so an unchanged schedule is not expanded again.
import { h } from './dom.js';
import { ApiProblem, describeProblem } from './problem.js';
import { formAlert, formWords, onSubmit, showAlert, showFailure, type Field } from './fields.js';
import { eventFields, type EventFieldValues } from './event-fields.js';
import { repeatSection } from './repeat-section.js';
import { fromRrule } from './repeat-rule.js';
import { parseInput, toZoneInput } from './format.js';
import type { Series } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

/** The form for series `series`, read with `etag`; times are typed in the series' own zone. */
export function seriesForm(ctx: ConsoleContext, series: Series, etag: string | null): Screen {
  const zone = series.time_zone;
  const form = eventFields(ctx, { zone, startHint: 'The first occurrence. ' });
  form.fill(series as EventFieldValues);
  const start = form.start.control as HTMLInputElement;
  const repeat = fromRrule(series.recurrence, parseInput(toZoneInput(series.start_time, zone))!, zone);
  const repeats = repeat === undefined ? undefined : repeatSection(start, zone, false);
  if (repeat !== undefined) repeats?.set(repeat);
  let scheduleTouched = false;
  repeats?.element.addEventListener('change', () => (scheduleTouched = true));
  const fields: Field[] = repeats === undefined ? form.fields : [...form.fields, repeats.field];
  const words = formWords(fields, zone);
  const alert = formAlert();
  alert.tabIndex = -1;
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Save all future occurrences');
  const element = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'screen-title' },
    h('p', { class: 'hint zone-note' }, `Times are in ${zone}, the series' time zone.`),
    h('p', { class: 'note' }, 'Changes apply to every occurrence that has not started and was not edited on its own. Occurrences that have started stay as they are.'),
    alert,
    form.fields.map((item) => item.row),
    repeats?.element ?? h('p', { class: 'hint' }, `Its rule (${series.recurrence}) is kept as it is: this form cannot show it.`),
    h('div', { class: 'actions' }, submit, h('a', { href: `#/series/${series.id}`, class: 'button' }, 'Cancel')),
  );

  /** Only the fields whose value differs from the series as read. */
  function changes(): Record<string, unknown> {
    const body = form.body(true);
    const result: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(body)) if (JSON.stringify(value) !== JSON.stringify(series[name as keyof Series])) result[name] = value;
    const rule = repeats?.rrule();
    if (scheduleTouched && rule !== undefined && rule !== series.recurrence) result['recurrence'] = rule;
    return result;
  }

  onSubmit(element, fields, alert, submit, save);

  async function save(): Promise<void> {
    try {
      const headers: Record<string, string> = etag === null ? {} : { 'If-Match': etag };
      await ctx.api.json<Series>('PUT', `/series/${encodeURIComponent(series.id)}`, { body: changes(), headers });
      ctx.announce(`Saved the series “${series.title}”.`);
      ctx.navigate(`#/series/${series.id}`);
    } catch (error) {
      if (showFailure(error, fields, alert, words, 'The series was not saved')) return;
      const stale = error instanceof ApiProblem && error.code === 'precondition_failed';
      showAlert(alert, stale ? 'Someone else changed this series while you were editing it, so your changes were not saved. Open the series again to see their version.' : describeProblem(error));
      alert.focus();
    }
  }

  return { title: `Edit all future occurrences of “${series.title}”`, element: h('section', {}, element) };
}
