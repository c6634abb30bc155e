// The --store URL's host list: parsed and checked, its primary found in the URL's order, its password never shown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connect } from 'node:net';
import { findPrimary, parseStoreUrl, redactUrl, StoreUrlError, type HostRole } from '../../../src/store/postgres/hosts.js';

describe('parseStoreUrl', () => {
  it('splits a host list into single-host URLs with the same user, password, database and parameters, default port 5432', () => {
    const url = parseStoreUrl('postgres://campus:s3cr%40t@db1.campus.edu:5432,10.0.0.2,[2001:db8::7]:6432/events?sslmode=require');
    assert.deepEqual(url.hosts, [{ host: 'db1.campus.edu', port: 5432 }, { host: '10.0.0.2', port: 5432 }, { host: '[2001:db8::7]', port: 6432 }]);
    assert.equal(url.urlFor(0), 'postgres://campus:s3cr%40t@db1.campus.edu:5432/events?sslmode=require');
    assert.equal(url.urlFor(2), 'postgres://campus:s3cr%40t@[2001:db8::7]:6432/events?sslmode=require');
    assert.equal(url.nameOf(1), '10.0.0.2:5432');
    assert.deepEqual(parseStoreUrl('postgresql://db/events').hosts, [{ host: 'db', port: 5432 }]);
    assert.equal(parseStoreUrl('postgres://u@h:1').urlFor(0), 'postgres://u@h:1');
  });

  it('refuses an empty host, a bad port, a name that is no host and too many hosts, saying which', () => {
    for (const [url, reason] of [
      ['postgres://u:p@h1,/d', /host 2 .* empty/],
      ['postgres://u:p@,h1/d', /host 1 .* empty/],
      ['postgres://u:p@h1:0/d', /host 1 .* bad port/],
      ['postgres://u:p@h1:65536/d', /bad port/],
      ['postgres://u:p@h1:54x/d', /bad port/],
      ['postgres://u:p@ho st/d', /not a host name/],
      ['postgres://u:p@2001:db8::1/d', /bad port/],
      [`postgres://u:p@${Array.from({ length: 17 }, (_, i) => `h${i}`).join(',')}/d`, /17 hosts; at most 16/],
      ['mysql://u:p@h/d', /starts with postgres/],
    ] as const) {
      assert.throws(() => parseStoreUrl(url), (error: Error) => error instanceof StoreUrlError && reason.test(error.message), url);
    }
  });
});

describe('redactUrl', () => {
  it('hides the password of one host or several, even one holding a stray @ or /, and leaves a URL without one alone', () => {
    assert.equal(redactUrl('postgres://campus:hunter2@h1:5432,h2:5432/events'), 'postgres://campus:***@h1:5432,h2:5432/events');
    assert.equal(redactUrl('postgres://campus:hun@ter/2@h1/events?application_name=x'), 'postgres://campus:***@h1/events?application_name=x');
    assert.equal(redactUrl('postgres://campus@h1/events'), 'postgres://campus@h1/events');
    assert.equal(redactUrl('mysql://u:hunter2@h/d'), 'mysql://u:***@h/d');
    // A ? or # in a password not percent-encoded: the URL's query seems to start inside it.
    assert.equal(redactUrl('postgres://campus:top?secret@nohost.invalid/db'), 'postgres://campus:***@nohost.invalid/db');
    assert.equal(redactUrl('postgres://campus:top#secret@h1:5432/db?sslmode=require'), 'postgres://campus:***@h1:5432/db?sslmode=require');
    assert.equal(redactUrl('postgres://campus:p@h1/db?options=a@b'), 'postgres://campus:***@h1/db?options=a@b');
  });
});

describe('findPrimary', () => {
  const names = (i: number): string => `h${i + 1}:5432`;
  const probeOf = (roles: readonly (HostRole | Error)[]) => (i: number): Promise<HostRole> => (roles[i] instanceof Error ? Promise.reject(roles[i]) : Promise.resolve(roles[i] as HostRole));

  const primary = (server = 'server A'): HostRole => ({ primary: server });

  it('takes the first primary in the URL\'s order, past hosts that fail or are standbys; one server named twice is one primary', async () => {
    assert.equal(await findPrimary(3, probeOf([primary(), primary(), 'standby']), names), 0);
    assert.equal(await findPrimary(3, probeOf([new Error('ECONNREFUSED'), 'standby', primary()]), names), 2);
    assert.equal(await findPrimary(2, probeOf(['standby', primary()]), names), 1);
  });

  it('throws, naming them, when two servers are primaries (a former primary started again after its standby was promoted)', async () => {
    await assert.rejects(findPrimary(3, probeOf([primary('old'), 'standby', primary('promoted')]), names), /more than one primary among the hosts of the URL \(h1:5432, h3:5432\).*rebuild it as a standby/);
  });

  it('probes every host at once, so a host that never answers costs one wait, not one per host', async () => {
    const started: number[] = [];
    const primary = await findPrimary(3, (i) => {
      started.push(i);
      return i === 2 ? Promise.resolve<HostRole>({ primary: 'server A' }) : new Promise<HostRole>((resolve) => setTimeout(() => resolve('standby'), 20));
    }, names);
    assert.equal(primary, 2);
    assert.deepEqual(started, [0, 1, 2]);
  });

  it('throws, saying what each host answered, when none is a primary', async () => {
    await assert.rejects(findPrimary(2, probeOf([new Error('connect ECONNREFUSED'), 'standby']), names), /no primary among .*h1:5432: connect ECONNREFUSED; h2:5432: a standby \(in recovery\)/);
    // A connection refused, as Node reports it, in words.
    const refused = await new Promise<Error>((resolve) => connect({ host: '127.0.0.1', port: 1 }).on('error', resolve));
    await assert.rejects(findPrimary(2, probeOf([refused, 'standby']), names), /no primary among the hosts of the URL \(h1:5432: nothing accepts connections there \(ECONNREFUSED\); h2:5432: a standby/);
  });
});
