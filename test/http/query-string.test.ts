// checkQueryEncoding(): broken percent-encoding is a 400 naming the parameter (API.md §5), valid encoding passes untouched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/http/errors.js';
import { checkQueryEncoding, firstParameterName } from '../../src/http/query-string.js';

function refusal(query: string): string {
  try {
    checkQueryEncoding(query);
  } catch (error) {
    assert.ok(error instanceof ApiError, query);
    assert.equal(error.code, 'bad_request', query);
    return error.message;
  }
  assert.fail(`${query} was taken`);
}

test('checkQueryEncoding() refuses q=alpha% and q=%zz, which were read as text (issue 33.6), naming the parameter', () => {
  assert.match(refusal('q=alpha%'), /^Query parameter "q" is not valid percent-encoded UTF-8, got "alpha%"/);
  assert.match(refusal('q=%zz'), /"q"/);
  assert.match(refusal('limit=5&q=50%'), /"q"/);
  assert.match(refusal('category=%E0%A4'), /"category"/, 'a UTF-8 sequence cut short');
  assert.match(refusal('q=%C0%AF'), /"q"/, 'an overlong encoding');
  assert.match(refusal('q=%ED%A0%80'), /"q"/, 'an encoded surrogate');
  assert.match(refusal('q%zz=1'), /name "q%zz"/);
  assert.match(refusal('%E2%82=x'), /name/);
});

test('checkQueryEncoding() names a broken parameter by its decoded name and never echoes a key', () => {
  assert.match(refusal('st%61rt_date=%zz'), /"start_date"/);
  const message = refusal('key=cek_abcdefghijklmnopqrstuvwxyz012345%');
  assert.match(message, /"key"/);
  assert.doesNotMatch(message, /abcdefgh/);
});

test('checkQueryEncoding() takes valid encoding, + for a space, empty values and bare names', () => {
  for (const query of ['', 'q=chem%20lab', 'q=chem+lab', 'q=%C3%A9t%C3%A9', 'q=%F0%9F%8E%89', 'q=50%25', 'category=academic,social&limit=5', 'a', 'a=&b', '&&', 'q=%2B%26%3D']) {
    assert.doesNotThrow(() => checkQueryEncoding(query), query);
  }
});

test('firstParameterName() names the first parameter decoded and quoted, and redacts a key used as a name', () => {
  assert.equal(firstParameterName('foo=1&bar=2'), '"foo"');
  assert.equal(firstParameterName('&st%61tus'), '"status"');
  assert.equal(firstParameterName('a+b=1'), '"a b"');
  assert.doesNotMatch(firstParameterName('cek_0X5YfLbSX7upNVA4yuiFhNPqNTdUhP0em0pjqG2=1'), /X5YfLb/);
});
