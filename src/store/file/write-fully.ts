// Whole writes and byte copies over the file-system seam: a write may be short, so both loop until done.
import type { FileSystemSeam } from './file-system.js';

/** Writes all of `bytes` at `position`, continuing after short writes; `what` names the file in errors. */
export async function writeFully(fs: FileSystemSeam, fd: number, bytes: Buffer, position: number, what: string): Promise<void> {
  for (let done = 0; done < bytes.length; ) {
    const written = await fs.write(fd, bytes, done, bytes.length - done, position + done);
    if (written <= 0) throw Object.assign(new Error(`write() to ${what} wrote nothing`), { code: 'EIO' });
    done += written;
  }
}

/** Copies bytes `[start, end)` of `from` to `to` at `toPosition`, in chunks of at most 4 MiB. */
export async function copyBytes(fs: FileSystemSeam, copy: { from: number; start: number; end: number; to: number; toPosition: number; what: string }): Promise<void> {
  if (copy.end <= copy.start) return;
  const chunk = Buffer.allocUnsafe(Math.min(4 * 1024 * 1024, copy.end - copy.start));
  for (let position = copy.start; position < copy.end; ) {
    const read = await fs.read(copy.from, chunk, 0, Math.min(chunk.length, copy.end - position), position);
    if (read === 0) throw Object.assign(new Error(`${copy.what}: the source ended at byte ${position}, before ${copy.end}`), { code: 'EIO' });
    await writeFully(fs, copy.to, chunk.subarray(0, read), copy.toPosition + position - copy.start, copy.what);
    position += read;
  }
}
