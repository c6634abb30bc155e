// A real, tiny file system to fill: a tmpfs mounted on a new folder (Linux, as root).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Mounts a tmpfs of `size` on a new folder (root only); undefined where that is not possible. */
export function mountTinyFileSystem(size: string): { dir: string; unmount: () => void } | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'campus-tiny-fs-'));
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0755`, 'tmpfs', dir]).status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    unmount() {
      spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the file system at `dir` to its last byte with the file `filler` in it. */
export function fill(dir: string): string {
  const filler = path.join(dir, 'filler');
  spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k']);
  return filler;
}
