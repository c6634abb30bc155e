// The files of src/ and the relative imports between them, read from their text (static, dynamic, type-only and
// re-exports alike): what test/layers.test.ts and test/source-shape.test.ts check.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The src/ folder of this repository. */
export const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** The files under `dir` whose names end in `ending` (every file with ''), as paths below it ("store/views/roster.ts"), sorted. */
export function sourceFiles(dir: string, prefix = '', ending = '.ts'): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) files.push(...sourceFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`, ending));
    else if (entry.name.endsWith(ending)) files.push(prefix + entry.name);
  }
  return files.sort();
}

/** The text of a file under src/, by its path below it. */
export function readSource(file: string): string {
  return readFileSync(path.join(SRC, file), 'utf8');
}

/** The relative specifiers a module imports or re-exports, static or dynamic, type-only included. */
export function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const patterns = [/\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) specifiers.push(match[1]!);
  return specifiers.filter((specifier) => specifier.startsWith('.'));
}

/** A relative `.js` specifier of `file` as the `.ts` path under src/ it names. */
export function resolveImport(file: string, specifier: string): string {
  return path.posix.join(path.posix.dirname(file), specifier).replace(/\.js$/, '.ts');
}

/**
 * The import cycles among `files` (type-only imports included), each as "a → b → … → a", each once. Every file
 * on a cycle is in at least one that is reported, so the list is empty exactly when the imports form no circle.
 */
export function importCycles(files: readonly string[], read: (file: string) => string): string[] {
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importsOf(read(file)).map((specifier) => resolveImport(file, specifier)).filter((target) => known.has(target))]));
  const cycles = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of graph.get(file)!) {
      if (state.get(target) === 'open') {
        const loop = stack.slice(stack.indexOf(target));
        // Start each cycle at its smallest file, so one cycle found from two places is reported once.
        const first = loop.indexOf([...loop].sort()[0]!);
        const turned = [...loop.slice(first), ...loop.slice(0, first)];
        cycles.add([...turned, turned[0]].join(' → '));
      } else if (state.get(target) === undefined) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (state.get(file) === undefined) visit(file);
  return [...cycles].sort();
}
