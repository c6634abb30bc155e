// Editing a whole series (API.md §11): shared fields and the schedule of every occurrence that has not started,
// with If-Match; only what the person changed is sent, so an unchanged schedule is not expanded again. A refused save
// (412) opens the conflict screen, as the event form does.
import { statusNotice } from './status-marks.js';
import { h, replace } from './dom.js';
import { ApiProblem, describeProblem } from './problem.js';
import { formAlert, formWords, hideAlert, onSubmit, showAlert, showFailure, type Field } from './fields.js';
import { localProblems } from './event-checks.js';
import { compareVersions, conflictPanel, formValuesOf, readForm, writeForm } from './conflict-view.js';
import { eventFields, type EventFieldValues } from './event-fields.js';
import { repeatSection } from './repeat-section.js';
import { appliedExdates, exdatesFor, readSchedule, scheduleWords, type ReadSchedule, type Repeat } from './repeat-rule.js';
import { parseInput, toZoneInput, type Wall } from './format.js';
import type { Series } from './types.js';
import type { ConsoleContext, Screen } from './context.js';

/** The form for series `series`, read with `etag`; times are typed in the series' own zone. */
export function seriesForm(ctx: ConsoleContext, read: Series, readEtag: string | null): Screen {
  /** The version the edits are made on (as read, then someone else's once taken on), and its ETag. */
  let series = read;
  let etag = readEtag;
  /** Someone else's version while the conflict screen waits for a choice: saving stops until then. */
  let pending: { series: Series; etag: string | null } | undefined;
  const conflictSlot = h('div');
  const zone = series.time_zone;
  const form = eventFields(ctx, { zone, startHint: 'The first occurrence. ' });
  form.fill(series as EventFieldValues);
  const start = form.start.control as HTMLInputElement;
  /** A version's first start as a wall time in the series' zone. */
  const startOf = (version: Series): Wall | undefined => parseInput(toZoneInput(version.start_time, zone));
  /** A version's schedule as the Repeats section shows it (a start day added alone shown as such). */
  const scheduleOf = (version: Series): ReadSchedule | undefined => readSchedule(version.recurrence, version.exdates, startOf(version)!, zone);
  const schedule = scheduleOf(series);
  // The preview leaves out what the saved schedule will: the occurrences deleted on their own (exdates), moved with the start.
  const leftOut = (repeat: Repeat, wall: Wall): Set<number> => appliedExdates(repeat, wall, zone, series.exdates, scheduleOf(series), startOf(series));
  const repeats = schedule === undefined ? undefined : repeatSection(start, zone, false, leftOut);
  if (schedule !== undefined) repeats?.set(schedule.repeat);
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
    statusNotice(series, 'series'),
    alert,
    conflictSlot,
    form.fields.map((item) => item.row),
    repeats?.element ?? h('p', { class: 'hint' }, `Its rule (${series.recurrence}) is kept as it is: this form cannot show it.`),
    h('div', { class: 'actions' }, submit, h('a', { href: `#/series/${series.id}`, class: 'button' }, 'Cancel')),
  );

  /**
   * Only the fields whose value differs from the series as read. The schedule goes as the form shows it once any part
   * of it changed (Repeats, Starts or Ends): the rule, and the exdates a start day added alone needs, since the later
   * dates left out for the old start are not those of the new one.
   */
  function changes(): Record<string, unknown> {
    const result = form.changes(series);
    const repeat = repeats?.value();
    const wall = parseInput(start.value);
    if (!(scheduleTouched || 'start_time' in result || 'end_time' in result) || repeat === undefined || wall === undefined) return result;
    const rule = repeats!.rrule();
    if (rule !== undefined && rule !== series.recurrence) result['recurrence'] = rule;
    const exdates = exdatesFor(repeat, wall, zone, series.exdates, scheduleOf(series), startOf(series));
    if (exdates !== undefined) result['exdates'] = exdates;
    return result;
  }

  onSubmit(element, fields, alert, submit, save);

  async function save(): Promise<void> {
    if (pending !== undefined) {
      showAlert(alert, 'Not saved: choose first how to go on from their change, below.');
      conflictSlot.querySelector<HTMLElement>('.conflict')?.focus();
      return;
    }
    try {
      const headers: Record<string, string> = etag === null ? {} : { 'If-Match': etag };
      const body = changes();
      const problems = localProblems(body, series);
      if (problems.length > 0) throw new ApiProblem(400, 'validation_failed', 'The series is not valid.', problems);
      const { data } = await ctx.api.json<Series>('PUT', `/series/${encodeURIComponent(series.id)}`, { body, headers });
      ctx.announce(`Saved the series “${data.title}”.`);
      ctx.navigate(`#/series/${series.id}`, { showMessage: true });
    } catch (error) {
      if (showFailure(error, fields, alert, words, 'The series was not saved')) return;
      if (error instanceof ApiProblem && error.code === 'precondition_failed') return void refused();
      showAlert(alert, describeProblem(error));
      alert.focus();
    }
  }

  /** After a 412: their version beside what is typed; only the person's changes are sent on top of theirs. */
  async function refused(): Promise<void> {
    try {
      const answer = await ctx.api.json<Series>('GET', `/series/${encodeURIComponent(series.id)}`);
      pending = { series: answer.data, etag: answer.etag };
      if (!draw()) {
        adopt();
        return element.requestSubmit(submit);
      }
      hideAlert(alert);
      conflictSlot.querySelector<HTMLElement>('.conflict')?.focus();
    } catch (error) {
      showAlert(alert, describeProblem(error));
      alert.focus();
    }
  }

  /** The series' edits now apply to the pending version; the conflict screen is done with. */
  function adopt(): void {
    if (pending === undefined) return;
    series = pending.series;
    etag = pending.etag;
    pending = undefined;
    conflictSlot.replaceChildren();
  }

  /** A version's schedule in words, as the conflict screen compares it (a rule the form cannot show, as it is). */
  function scheduleText(version: Series): string {
    const read = scheduleOf(version);
    return read === undefined ? version.recurrence : scheduleWords(read.repeat, startOf(version)!);
  }

  /** Draws the conflict screen from what the form holds now (again on each keystroke); false when nothing differs from theirs. */
  function draw(): boolean {
    if (pending === undefined) return false;
    const theirVersion = pending.series;
    // The schedule is compared as one value, in words: the Repeats section holds it in several controls.
    const repeat = repeats?.value();
    const wall = parseInput(start.value);
    const mine = { ...readForm(form.fields), recurrence: repeats === undefined ? series.recurrence : repeat === undefined || wall === undefined ? '' : scheduleWords(repeat, wall) };
    const theirs = { ...formValuesOf(theirVersion, zone), recurrence: scheduleText(theirVersion) };
    const comparison = compareVersions([...form.fields.map((item) => item.name), 'recurrence'], { ...formValuesOf(series, zone), recurrence: scheduleText(series) }, mine, theirs);
    if (comparison.rows.length === 0) return false;
    const keep = (): void => {
      adopt();
      writeForm(form.fields, comparison.merged);
      // Their schedule, unless the person changed it: set after the times, which the section reads.
      const theirSchedule = scheduleOf(theirVersion);
      if (!comparison.typed.includes('recurrence') && theirSchedule !== undefined) repeats?.set(theirSchedule.repeat);
      element.requestSubmit(submit);
    };
    // Their schedule too: the repeat section is set from it, and what was chosen there is discarded with the rest.
    const useTheirs = (): void => {
      adopt();
      form.fill(theirVersion as EventFieldValues);
      const theirSchedule = scheduleOf(theirVersion);
      if (theirSchedule !== undefined) repeats?.set(theirSchedule.repeat);
      scheduleTouched = false;
      showAlert(alert, 'The form now shows their version; what you had typed is discarded.');
    };
    replace(conflictSlot, conflictPanel({ what: 'series', fields: form.fields, labels: { recurrence: 'Repeats' }, comparison, mine, theirs, zone, refused: true, keep, useTheirs }));
    return true;
  }
  element.addEventListener('input', (event) => {
    if (pending !== undefined && !conflictSlot.contains(event.target as Node) && !draw()) adopt();
  });

  return { title: `Edit all future occurrences of “${read.title}”`, element: h('section', {}, element) };
}
