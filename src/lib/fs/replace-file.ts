// A small file replaced whole and atomically: a temporary file beside it, fsync, rename over it, fsync of the folder.
import { promises as fs, constants } from 'node:fs';
import path from 'node:path';

/** How `replaceFile` writes. */
export interface ReplaceFileOptions {
  /** The temporary file beside the target; `FILE.tmp-PID` when not given. */
  temporary?: string | undefined;
  /** false skips both fsyncs (tests and benchmarks that need no durability); true when not given. */
  sync?: boolean | undefined;
}

/**
 * Writes `text` to a temporary file (mode 0600: such files hold secrets), makes it durable, renames it
 * over `file` and makes the rename durable. On a failure before the rename `file` is as it was, and no
 * temporary file is left behind; the first error is thrown.
 */
export async function replaceFile(file: string, text: string, options: ReplaceFileOptions = {}): Promise<void> {
  const temporary = options.temporary ?? `${file}.tmp-${process.pid}`;
  const sync = options.sync !== false;
  try {
    const handle = await fs.open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(text);
      if (sync) await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, file);
  } catch (error) {
    await fs.unlink(temporary).catch(() => undefined);
    throw error;
  }
  if (sync) await syncFolder(path.dirname(file));
}

/** fsyncs a folder so a rename or a new file in it survives a power cut. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await fs.open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
