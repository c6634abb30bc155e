// Root working on a folder another user owns (the service's) becomes that user, so what it writes stays readable to the service.
import { readFileSync, statSync } from 'node:fs';

/**
 * Run as root on a folder another user owns, becomes that user before anything is written: a keys.json left to root
 * would be unreadable to the server, which would then refuse every key and, restarted, not start at all. It takes the
 * user's own groups (from /etc/passwd and /etc/group), not the folder's group, which may be root's. Undefined when
 * nothing changed (not root, or a folder of root's); `became` names the user; `refused` says why it could not.
 */
export function becomeOwnerOf(folder: string): { became?: string; refused?: string } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const { uid, gid } = statSync(folder);
  if (uid === 0) return undefined;
  const account = accountOf(uid);
  if (account !== undefined) {
    process.setgroups!([account.gid, ...memberGroups(account.name)]);
    process.setgid!(account.gid);
  } else {
    if (gid === 0) return { refused: `${folder} belongs to uid ${uid}, which has no account in /etc/passwd: run this command as that user` };
    process.setgroups!([gid]);
    process.setgid!(gid);
  }
  process.setuid!(uid);
  return { became: account?.name ?? `uid ${uid}` };
}

/** The name of the account with this uid, from /etc/passwd; undefined where there is none. */
export function accountName(uid: number): string | undefined {
  return accountOf(uid)?.name;
}

/** The name and primary group of the account with this uid, from /etc/passwd; undefined where there is none. */
function accountOf(uid: number): { name: string; gid: number } | undefined {
  for (const [name, , id, group] of databaseLines('/etc/passwd')) {
    if (name !== undefined && Number(id) === uid && group !== undefined && /^\d+$/.test(group)) return { name, gid: Number(group) };
  }
  return undefined;
}

/** The groups /etc/group lists `user` as a member of (its supplementary groups, as a login would give them). */
function memberGroups(user: string): number[] {
  const groups: number[] = [];
  for (const [, , id, members] of databaseLines('/etc/group')) {
    if (id !== undefined && /^\d+$/.test(id) && (members ?? '').split(',').includes(user)) groups.push(Number(id));
  }
  return groups;
}

/** The colon-separated fields of each line of a system database file (none when it cannot be read). */
function databaseLines(file: string): string[][] {
  try {
    return readFileSync(file, 'utf8').split('\n').map((line) => line.split(':'));
  } catch {
    return [];
  }
}
