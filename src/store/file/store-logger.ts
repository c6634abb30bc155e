// How the file engine reports what it does: the logger it is given, and the MiB its messages count in.

/** Where the store reports what it did; the app's Logger fits. */
export interface StoreLogger {
  info(message: string, fields?: Record<string, string | number | boolean | null | undefined>): void;
  warn(message: string, fields?: Record<string, string | number | boolean | null | undefined>): void;
}

/** `bytes` in MiB, to one decimal: the unit of sizes in the store's messages. */
export function mib(bytes: number): number {
  return Math.round((bytes / 1048576) * 10) / 10;
}
