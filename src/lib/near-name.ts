// The known name a mistyped one was most likely meant as (`--data` → `--data-dir`), for "did you mean" hints.

/**
 * The candidate closest to `given`, or undefined when none is close: one that starts `given` or that `given`
 * starts (`--data` for `--data-dir`, `--output` for `--out`; three letters at least), or one at most a third of its
 * letters away by edits (a letter added, dropped, changed, or two swapped: `--prot`, `--datadir`, `--time_zone`,
 * `-port`). Case is ignored; ties go to the earlier candidate.
 */
export function nearName(given: string, candidates: readonly string[]): string | undefined {
  const wanted = given.toLowerCase();
  const core = wanted.replace(/^-+/, '');
  let best: string | undefined;
  let bestScore = Infinity;
  for (const candidate of candidates) {
    const name = candidate.toLowerCase();
    const candidateCore = name.replace(/^-+/, '');
    const distance = editDistance(wanted, name);
    const allowed = Math.max(1, Math.floor(candidateCore.length / 3));
    // One name starting the other is as good as one edit, whatever the rest: the user stopped typing early
    // (`--data` for `--data-dir`) or went on (`--output` for `--out`), not mistyped.
    const shorter = Math.min(core.length, candidateCore.length);
    const startsOther = shorter >= 3 && core !== candidateCore && (candidateCore.startsWith(core) || core.startsWith(candidateCore));
    const score = startsOther ? Math.min(1, distance) : distance <= allowed ? distance : Infinity;
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`: the optimal string alignment distance. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const cost: number[] = new Array<number>(rows * columns).fill(0);
  for (let i = 0; i < rows; i++) cost[i * columns] = i;
  for (let j = 0; j < columns; j++) cost[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < columns; j++) {
      const substitute = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(cost[(i - 1) * columns + j]! + 1, cost[i * columns + j - 1]! + 1, cost[(i - 1) * columns + j - 1]! + substitute);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, cost[(i - 2) * columns + j - 2]! + 1);
      cost[i * columns + j] = best;
    }
  }
  return cost[rows * columns - 1]!;
}

/**
 * The one-line reason for an unknown flag (API.md §1): `unknown flag --data; did you mean --data-dir?`, else `…; see
 * --help`. A known flag lands here only when it was given a value it does not take (`--json=1`).
 */
export function unknownFlagMessage(flag: string, known: readonly string[], help = '--help'): string {
  if (known.includes(flag)) return `${flag} takes no value; see ${help}`;
  const near = nearName(flag, known);
  return near === undefined ? `unknown flag ${flag}; see ${help}` : `unknown flag ${flag}; did you mean ${near}?`;
}

/**
 * The one-line reason for a command line whose words `given` name no command of `commands` (`keys create`,
 * `verify`, …), and whether it already says what to do (else the caller adds "see --help"): the near command
 * (`kyes list` → `keys list`), the subcommands of a group named alone (`keys`), or the extra word of a command
 * that takes none (`verify foo`).
 */
export function unknownCommandMessage(given: readonly string[], commands: readonly string[]): { message: string; complete: boolean } {
  const [first = '', second] = given;
  const shown = given.slice(0, 2).join(' ');
  if (commands.includes(first)) return { message: `${first} takes no arguments, got "${second ?? ''}"`, complete: false };
  const subcommands = commands.filter((command) => command.startsWith(`${first} `)).map((command) => command.slice(first.length + 1));
  if (subcommands.length > 0) {
    const choices = `${subcommands.slice(0, -1).join(', ')} or ${subcommands.at(-1)!}`;
    if (second === undefined) return { message: `${first} needs a command: ${first} ${choices}`, complete: false };
    const near = nearName(second, subcommands);
    if (near !== undefined) return { message: `unknown command "${shown}"; did you mean ${first} ${near}?`, complete: true };
    return { message: `unknown command "${shown}": ${first} takes ${choices}`, complete: false };
  }
  const firstWords = [...new Set(commands.map((command) => command.split(' ')[0]!))];
  const near = nearName(first, firstWords);
  if (near === undefined) return { message: `unknown command "${shown}"`, complete: false };
  // The rest as given, when it makes a command with the near word (`kyes list` → `keys list`).
  const meant = second !== undefined && commands.includes(`${near} ${second}`) ? `${near} ${second}` : near;
  return { message: `unknown command "${shown}"; did you mean ${meant}?`, complete: true };
}
