// The "Repeats" section of the new-event form (API.md §11): weekly on chosen days or monthly, until a date or a count,
// with the next occurrences previewed as the person types.
import { h, replace, uid, type Child } from './dom.js';
import { field, type Field } from './fields.js';
import { formatDate, formatDateTime, parseInput, type Wall } from './format.js';
import { addsStart, describeRepeat, exdatesOf, isLastInMonth, MAX_OCCURRENCES, MAX_SPAN_DAYS, ordinalInMonth, previewStarts, toRrule, weekdayOf, WEEKDAYS, type Repeat, type Weekday } from './repeat-rule.js';

const DAY_NAMES: Record<Weekday, string> = { MO: 'Monday', TU: 'Tuesday', WE: 'Wednesday', TH: 'Thursday', FR: 'Friday', SA: 'Saturday', SU: 'Sunday' };
const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth'];
/** How many upcoming starts the preview lists. */
const SHOWN = 6;

export interface RepeatSection {
  element: HTMLElement;
  /** The field `recurrence` problems are shown on. */
  field: Field;
  /** The choices, or undefined when the event does not repeat (or Starts is not filled in yet). */
  value(): Repeat | undefined;
  /** The RRULE for the API. */
  rrule(): string | undefined;
  /** The starts to leave out (API.md §11 `exdates`): undefined (none, left out of the body) unless the start's weekday is added for the start alone. */
  exdates(): string[] | undefined;
  /**
   * Calls `listener` now and after every redraw with whether the event repeats and how many occurrences the
   * preview counts (undefined while it cannot tell): the form's button says "Create series (8 occurrences)".
   */
  watch(listener: (repeating: boolean, occurrences: number | undefined) => void): void;
  /** Fills the section from a rule read back (the series form). */
  set(repeat: Repeat): void;
}

/**
 * The section; it redraws when `start` changes. `leftOut`: the starts a saved schedule leaves out (a series' exdates,
 * moved with the start), which the preview leaves out too.
 */
export function repeatSection(start: HTMLInputElement, zone: string, allowNone = true, leftOut?: (repeat: Repeat, wall: Wall) => ReadonlySet<number>): RepeatSection {
  const frequency = field('recurrence', 'How often', h('select', {}, allowNone ? h('option', { value: '' }, 'Does not repeat') : null, h('option', { value: 'WEEKLY' }, 'Weekly'), h('option', { value: 'MONTHLY' }, 'Monthly')));
  const interval = field('interval', 'Every how many weeks', h('input', { type: 'number', min: 1, max: 99, step: 1, value: 1, inputmode: 'numeric' }));
  const dayBoxes = WEEKDAYS.map((day) => h('input', { type: 'checkbox', value: day, id: uid(`day-${day}`) }));
  const weekly = h('fieldset', { class: 'choices' }, h('legend', {}, 'On these days'), dayBoxes.map((box, index) => h('span', { class: 'choice' }, box, h('label', { for: box.id }, DAY_NAMES[WEEKDAYS[index]!]))));
  const monthlyName = uid('monthly');
  const monthlyRadios = (['date', 'weekday', 'last-weekday'] as const).map((value) => h('input', { type: 'radio', name: monthlyName, value, id: uid(`monthly-${value}`) }));
  const monthlyLabels = monthlyRadios.map((radio) => h('label', { for: radio.id }));
  const monthly = h('fieldset', { class: 'choices' }, h('legend', {}, 'On'), monthlyRadios.map((radio, index) => h('span', { class: 'choice' }, radio, monthlyLabels[index])));
  const endName = uid('end');
  const byCount = h('input', { type: 'radio', name: endName, value: 'count', id: uid('end-count'), checked: true });
  const byDate = h('input', { type: 'radio', name: endName, value: 'until', id: uid('end-until') });
  const count = field('count', 'Number of occurrences', h('input', { type: 'number', min: 1, max: MAX_OCCURRENCES, step: 1, value: 10, inputmode: 'numeric' }));
  const until = field('until', 'Last date', h('input', { type: 'date' }), `In ${zone}.`);
  const ends = h('fieldset', { class: 'choices' }, h('legend', {}, 'Repeat until'), h('span', { class: 'choice' }, byCount, h('label', { for: byCount.id }, 'a count')), h('span', { class: 'choice' }, byDate, h('label', { for: byDate.id }, 'a date')), count.row, until.row);
  // A screen reader hears the preview's sentences as they change, not every date of its list again at each key.
  const sentences = h('div', { 'aria-live': 'polite' });
  const list = h('div');
  const preview = h('div', { class: 'preview' }, sentences, list);
  /** The preview's sentences, then from its list of dates on, what follows, out of the live region. */
  const show = (...children: Child[]): void => {
    const at = children.findIndex((child) => child instanceof HTMLOListElement);
    replace(sentences, ...(at < 0 ? children : children.slice(0, at)));
    replace(list, ...(at < 0 ? [] : children.slice(at)));
  };
  const details = h('div', { class: 'repeat-details' }, interval.row, weekly, monthly, ends, h('h2', { class: 'preview-heading' }, 'Next occurrences'), preview);
  const element = h('fieldset', { class: 'repeats' }, h('legend', {}, 'Repeats'), frequency.row, details);

  const startWall = (): Wall | undefined => parseInput(start.value);
  let lastWeekday: Weekday | undefined;
  const listeners: ((repeating: boolean, occurrences: number | undefined) => void)[] = [];
  let counted: number | undefined;

  function value(): Repeat | undefined {
    const wall = startWall();
    const freq = frequency.control.value;
    if (wall === undefined || (freq !== 'WEEKLY' && freq !== 'MONTHLY')) return undefined;
    const checked = monthlyRadios.find((radio) => radio.checked)?.value as Repeat['monthly'] | undefined;
    return {
      freq,
      interval: Math.max(1, Math.floor(Number(interval.control.value)) || 1),
      days: dayBoxes.filter((box) => box.checked).map((box) => box.value as Weekday),
      monthly: checked ?? 'date',
      end: byDate.checked ? { until: until.control.value } : { count: Math.max(1, Math.floor(Number(count.control.value)) || 1) },
    };
  }

  function redraw(): void {
    const freq = frequency.control.value;
    details.hidden = freq === '';
    weekly.hidden = freq !== 'WEEKLY';
    monthly.hidden = freq !== 'MONTHLY';
    count.row.hidden = !byCount.checked;
    until.row.hidden = !byDate.checked;
    interval.row.querySelector('label')!.textContent = freq === 'MONTHLY' ? 'Every how many months' : 'Every how many weeks';
    const wall = startWall();
    if (wall !== undefined) {
      // The start's own weekday is where a weekly series begins: tick it while the days are as the console set them
      // (none, or the last start's alone). Days the person ticked are theirs: the preview says when the start is added.
      const weekday = weekdayOf(wall);
      if (weekday !== lastWeekday) {
        const ticked = dayBoxes.filter((box) => box.checked).map((box) => box.value);
        if (ticked.length === 0 || (ticked.length === 1 && ticked[0] === lastWeekday)) {
          for (const box of dayBoxes) box.checked = box.value === weekday;
        }
        lastWeekday = weekday;
      }
      const name = DAY_NAMES[weekday];
      monthlyLabels[0]!.textContent = `day ${wall.day} of each month`;
      monthlyLabels[1]!.textContent = `the ${ORDINALS[ordinalInMonth(wall) - 1]} ${name} of each month`;
      monthlyLabels[2]!.textContent = `the last ${name} of each month`;
      monthlyRadios[2]!.parentElement!.hidden = !isLastInMonth(wall);
      if (!monthlyRadios.some((radio) => radio.checked && radio.parentElement!.hidden === false)) monthlyRadios[0]!.checked = true;
    }
    drawPreview(wall);
  }

  function drawPreview(wall: Wall | undefined): void {
    counted = undefined;
    const repeat = value();
    if (freq() === '') return show();
    if (wall === undefined || repeat === undefined) return show(h('p', { class: 'hint' }, 'Fill in Starts to see the occurrences.'));
    if ('until' in repeat.end && repeat.end.until === '') return show(h('p', { class: 'hint' }, 'Choose the last date to see the occurrences.'));
    const made = previewStarts(repeat, wall, zone);
    const { tooMany, tooLong } = made;
    // A series' occurrences cancelled on their own stay out (its exdates): the preview shows what the server will make.
    const gone = leftOut?.(repeat, wall);
    const starts = gone === undefined ? made.starts : made.starts.filter((at) => !gone.has(at));
    const cancelled = made.starts.length - starts.length;
    const last = starts.at(-1);
    if (!tooMany && !tooLong) counted = starts.length;
    show(
      h('p', {}, `${describeRepeat(repeat, wall, (day) => formatDate(`${day}T12:00:00Z`, 'UTC'))}: ${tooMany ? `more than ${MAX_OCCURRENCES}` : starts.length} occurrence${starts.length === 1 ? '' : 's'}${last === undefined ? '' : `, the last on ${formatDate(last, zone)}`}.`),
      addsStart(repeat, wall) ? h('p', { class: 'note added-start' }, `${DAY_NAMES[weekdayOf(wall)]}, the start date, is added as the first occurrence.`) : null,
      cancelled > 0 ? h('p', { class: 'note cancelled-dates' }, `${cancelled} date${cancelled === 1 ? '' : 's'} the rule makes ${cancelled === 1 ? 'is' : 'are'} left out: ${cancelled === 1 ? 'its occurrence was' : 'their occurrences were'} deleted on ${cancelled === 1 ? 'its' : 'their'} own.`) : null,
      tooMany ? h('p', { class: 'field-message' }, `A series has at most ${MAX_OCCURRENCES} occurrences: choose fewer, or an earlier last date.`) : null,
      !tooMany && tooLong ? h('p', { class: 'field-message' }, `A series spans at most 3 years (${MAX_SPAN_DAYS} days) from its first occurrence: choose an earlier end.`) : null,
      h('ol', { class: 'occurrences' }, starts.slice(0, SHOWN).map((at) => h('li', {}, formatDateTime(at, zone)))),
      starts.length > SHOWN ? h('p', { class: 'hint' }, `… and ${starts.length - SHOWN} more.`) : null,
    );
  }
  const freq = (): string => frequency.control.value;

  function redrawAndTell(): void {
    redraw();
    for (const listener of listeners) listener(freq() !== '', counted);
  }

  for (const control of [frequency.control, interval.control, count.control, until.control, byCount, byDate, start, ...dayBoxes, ...monthlyRadios]) {
    control.addEventListener('input', redrawAndTell);
    control.addEventListener('change', redrawAndTell);
  }
  redraw();

  return {
    element,
    field: frequency,
    value,
    rrule() {
      const repeat = value();
      const wall = startWall();
      return repeat === undefined || wall === undefined ? undefined : toRrule(repeat, wall, zone);
    },
    exdates() {
      const repeat = value();
      const wall = startWall();
      const starts = repeat === undefined || wall === undefined ? [] : exdatesOf(repeat, wall, zone);
      return starts.length === 0 ? undefined : starts;
    },
    watch(listener) {
      listeners.push(listener);
      listener(freq() !== '', counted);
    },
    set(repeat) {
      frequency.control.value = repeat.freq;
      interval.control.value = String(repeat.interval);
      // A monthly rule names no weekday: the next redraw ticks the start's, ready for a switch to weekly.
      lastWeekday = startWall() === undefined || repeat.days.length === 0 ? undefined : weekdayOf(startWall()!);
      for (const box of dayBoxes) box.checked = repeat.days.includes(box.value as Weekday);
      for (const radio of monthlyRadios) radio.checked = radio.value === repeat.monthly;
      byCount.checked = 'count' in repeat.end;
      byDate.checked = 'until' in repeat.end;
      if ('count' in repeat.end) count.control.value = String(repeat.end.count);
      else until.control.value = repeat.end.until;
      redrawAndTell();
    },
  };
}
