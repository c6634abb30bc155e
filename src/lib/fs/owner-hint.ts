// Who owns the data folder, in words, for the server's start: a folder run by one account and started once by another
// (root, most often) is the install that fails a week later on a file it cannot open.
import { statSync } from 'node:fs';
import path from 'node:path';
import { accountName } from './folder-owner.js';

/** What the start needs of the process: its uid (undefined where there are none, on Windows) and the accounts' names. */
export interface OwnerProbe {
  uid: number | undefined;
  /** The owner of `file`, undefined when it cannot be read. */
  ownerOf(file: string): number | undefined;
  /** The account of a uid as words: its name, else `uid N`. */
  nameOf(uid: number): string;
}

export const SYSTEM_OWNERS: OwnerProbe = {
  uid: process.getuid?.(),
  ownerOf(file) {
    try {
      return statSync(file).uid;
    } catch {
      return undefined;
    }
  },
  nameOf: (uid) => accountName(uid) ?? `uid ${uid}`,
};

/**
 * A warning for root starting the server on a folder another account owns: what it writes there (a compacted log,
 * webhooks.json) becomes root's, and that account's next start fails on it. Undefined otherwise.
 */
export function rootOnOthersFolder(folder: string, probe: OwnerProbe = SYSTEM_OWNERS): string | undefined {
  if (probe.uid !== 0) return undefined;
  const owner = probe.ownerOf(folder);
  if (owner === undefined || owner === 0) return undefined;
  const name = probe.nameOf(owner);
  return `running as root on ${folder}, which belongs to ${name}: files written now become root's, and ${name}'s next start fails on them (permission denied). Start the server as ${name} (runuser -u ${name} -- …)`;
}

/**
 * For a start refused a file of the data folder (EACCES, EPERM): whose it is and who this process runs as, and the
 * command that hands it over. Undefined for any other error, or when the owner is this process itself.
 */
export function permissionHint(error: unknown, folder: string, probe: OwnerProbe = SYSTEM_OWNERS): string | undefined {
  const { code, path: file } = (error ?? {}) as NodeJS.ErrnoException;
  if ((code !== 'EACCES' && code !== 'EPERM') || probe.uid === undefined) return undefined;
  // The file named, else the folder (a file not yet there is refused by its folder).
  const inFolder = file !== undefined && path.resolve(file).startsWith(path.resolve(folder) + path.sep);
  const target = inFolder && probe.ownerOf(file!) !== undefined ? file! : folder;
  const owner = probe.ownerOf(target);
  if (owner === undefined || owner === probe.uid) return undefined;
  const me = probe.nameOf(probe.uid);
  // chown takes a uid without an account as its number.
  const chown = `chown -R ${me.replace(/^uid /, '')} ${folder}`;
  // The folder is this account's and a file in it is not: another account (root, once) started the server there.
  if (target !== folder && probe.ownerOf(folder) === probe.uid) {
    return `${target} belongs to ${probe.nameOf(owner)}, not to ${me}, whose folder it is and who runs this server (a start as ${probe.nameOf(owner)} left it): give it back, as root, with ${chown}`;
  }
  // Root's folder: the way out is to hand it over, not to run the service as root.
  if (owner === 0) return `${target} belongs to root, and this server runs as ${me}: as root, give the folder to ${me} (${chown})`;
  return `${target} belongs to ${probe.nameOf(owner)}, and this server runs as ${me}: run it as ${probe.nameOf(owner)} (runuser -u ${probe.nameOf(owner)} -- …), or give the folder to ${me} (${chown})`;
}
