// The start's words on who owns the data folder (owner-hint.ts), with the process's uid and the files' owners injected.
import assert from 'node:assert/strict';
import test from 'node:test';
import { permissionHint, rootOnOthersFolder, type OwnerProbe } from '../../../src/lib/fs/owner-hint.js';

const NAMES: Record<number, string> = { 0: 'root', 998: 'campus-events' };

/** A process running as `uid`, on files owned as `owners` says (a path missing there cannot be read). */
function probe(uid: number | undefined, owners: Record<string, number>): OwnerProbe {
  return { uid, ownerOf: (file) => owners[file], nameOf: (id) => NAMES[id] ?? `uid ${id}` };
}

const denied = (file: string, code = 'EACCES'): NodeJS.ErrnoException => Object.assign(new Error(`${code}: permission denied, open '${file}'`), { code, path: file });

test('root on a folder another account owns is warned, naming the account and how to start as it', () => {
  assert.equal(
    rootOnOthersFolder('/srv/ce', probe(0, { '/srv/ce': 998 })),
    "running as root on /srv/ce, which belongs to campus-events: files written now become root's, and campus-events's next start fails on them (permission denied). Start the server as campus-events (runuser -u campus-events -- …)",
  );
  assert.equal(rootOnOthersFolder('/srv/ce', probe(0, { '/srv/ce': 0 })), undefined, "root's own folder");
  assert.equal(rootOnOthersFolder('/srv/ce', probe(998, { '/srv/ce': 998 })), undefined, 'not root');
  assert.equal(rootOnOthersFolder('/srv/ce', probe(0, {})), undefined, 'a folder not made yet');
});

test('a file root left in the service\'s folder: named, with the chown that gives it back', () => {
  const owners = { '/srv/ce': 998, '/srv/ce/events.jsonl': 0 };
  assert.equal(
    permissionHint(denied('/srv/ce/events.jsonl'), '/srv/ce', probe(998, owners)),
    '/srv/ce/events.jsonl belongs to root, not to campus-events, whose folder it is and who runs this server (a start as root left it): give it back, as root, with chown -R campus-events /srv/ce',
  );
});

test('a folder of root\'s or of another account: hand it over, or run as its owner (never advised to run as root)', () => {
  assert.equal(
    permissionHint(denied('/srv/ce/LOCK.1.tmp', 'EPERM'), '/srv/ce', probe(998, { '/srv/ce': 0 })),
    '/srv/ce belongs to root, and this server runs as campus-events: as root, give the folder to campus-events (chown -R campus-events /srv/ce)',
  );
  assert.equal(
    permissionHint(denied('/srv/ce/keys.json'), '/srv/ce', probe(1001, { '/srv/ce': 998, '/srv/ce/keys.json': 998 })),
    '/srv/ce/keys.json belongs to campus-events, and this server runs as uid 1001: run it as campus-events (runuser -u campus-events -- …), or give the folder to uid 1001 (chown -R 1001 /srv/ce)',
  );
});

test('no hint for other errors, a file outside the folder\'s own owner, or a process without uids', () => {
  assert.equal(permissionHint(Object.assign(new Error('x'), { code: 'ENOSPC', path: '/srv/ce/events.jsonl' }), '/srv/ce', probe(998, { '/srv/ce': 0 })), undefined);
  assert.equal(permissionHint(denied('/srv/ce/events.jsonl'), '/srv/ce', probe(998, { '/srv/ce': 998, '/srv/ce/events.jsonl': 998 })), undefined, 'its own file: the cause is elsewhere');
  assert.equal(permissionHint(denied('/srv/ce/events.jsonl'), '/srv/ce', probe(undefined, { '/srv/ce': 0 })), undefined);
  assert.equal(permissionHint(new Error('plain'), '/srv/ce', probe(998, { '/srv/ce': 0 })), undefined);
});
