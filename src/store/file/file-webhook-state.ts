// Webhooks' state in the data folder: DATA_DIR/webhooks.json, replaced whole.
import { readTextIfPresent } from '../../lib/fs/read-text.js';
import path from 'node:path';
import { replaceFile } from '../../lib/fs/replace-file.js';
import { StoreUnavailable, describeWriteError } from '../store-errors.js';
import { EMPTY_WEBHOOK_STATE, type WebhookStateSnapshot, type WebhookStateStore } from '../webhook-state.js';

/** The state in `DATA_DIR/webhooks.json` (mode 0600: it holds the secrets), replaced whole: temporary file, fsync, rename, fsync of the folder. */
export function fileWebhookState(dataDir: string, options: { sync?: boolean } = {}): WebhookStateStore {
  const file = path.join(dataDir, 'webhooks.json');
  const temp = `${file}.tmp`;
  const sync = options.sync !== false;
  return {
    async load() {
      const text = await readTextIfPresent(file);
      if (text === undefined) return structuredClone(EMPTY_WEBHOOK_STATE);
      let parsed: Partial<WebhookStateSnapshot>;
      try {
        parsed = JSON.parse(text) as Partial<WebhookStateSnapshot>;
      } catch (error) {
        throw new Error(`${file} is not valid JSON (${(error as Error).message}): restore it from a backup, or move it away to start with no webhooks`);
      }
      if (parsed === null || typeof parsed !== 'object' || !Array.isArray(parsed.webhooks)) throw new Error(`${file} holds no "webhooks" list`);
      const snapshot: WebhookStateSnapshot = { webhooks: parsed.webhooks, compactedThrough: typeof parsed.compactedThrough === 'number' ? parsed.compactedThrough : 0 };
      if (typeof parsed.logId === 'string') snapshot.logId = parsed.logId;
      return snapshot;
    },
    async save(snapshot) {
      try {
        await replaceFile(file, JSON.stringify(snapshot), { temporary: temp, sync });
      } catch (error) {
        throw new StoreUnavailable(`The webhooks could not be saved (${describeWriteError(error)}); nothing of this change was kept. Retry once the cause is fixed.`);
      }
    },
  };
}
