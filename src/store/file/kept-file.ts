// A new file kept beside the log (a torn tail, a log that lost its name), never over one already there.
import type { FileSystemSeam } from './file-system.js';

/** Creates `base` (O_EXCL), else `base-1`, `base-2`…; resolves with its descriptor and path. */
export async function createKeptFile(fs: FileSystemSeam, base: string): Promise<{ fd: number; file: string }> {
  for (let suffix = 0; ; suffix++) {
    const file = suffix === 0 ? base : `${base}-${suffix}`;
    try {
      return { fd: await fs.open(file, 'wx'), file };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || suffix >= 100) throw error;
    }
  }
}

/** A time as a file name takes it: 2026-11-30T01-02-03-004Z. */
export function fileStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, '-');
}
