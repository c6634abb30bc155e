// problemFrom() and describeProblem(): every API failure becomes a sentence, never raw JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiProblem, describeProblem, problemFrom } from '../../../src/console/web/problem.js';

test('problemFrom() keeps the API code, message and details of a JSON error', () => {
  const problem = problemFrom(400, JSON.stringify({ error: 'validation_failed', message: 'The event has 1 problem.', details: [{ field: 'title', message: 'title is required' }, { bogus: 1 }] }), null, null);
  assert.equal(problem.code, 'validation_failed');
  assert.equal(problem.message, 'The event has 1 problem.');
  assert.deepEqual(problem.details, [{ field: 'title', message: 'title is required' }]);
});

test('problemFrom() turns a body that is not JSON (a proxy page) into a plain sentence with the status, and what to do', () => {
  assert.equal(problemFrom(400, '<html>Bad request</html>', null, null).message, 'The server answered with status 400.');
  // A proxy's own 502, 503 or 504: the service behind it is down or restarting, which passes.
  for (const status of [502, 503, 504]) {
    assert.equal(problemFrom(status, '<html>Bad gateway</html>', null, null).message, `The server answered with status ${status}: it, or a proxy in front of it, cannot reach the service just now (it may be restarting). Try again in a moment.`);
  }
});

test('describeProblem() answers words for every failure, never the JSON body', () => {
  const cases = [
    problemFrom(401, '{"error":"unauthorized","message":"x"}', null, null),
    problemFrom(403, '{"error":"forbidden","message":"Your key may update only events you organise."}', null, null),
    problemFrom(412, '{"error":"precondition_failed","message":"If-Match ..."}', null, null),
    problemFrom(500, '{"error":"internal","message":"The server hit an unexpected error."}', null, 'abc-1'),
    problemFrom(429, '{"error":"rate_limited","message":"retry in 5 s."}', '5', null),
    new TypeError('fetch failed'),
  ];
  for (const error of cases) {
    const words = describeProblem(error);
    assert.ok(words.length > 10 && !words.includes('{'), words);
  }
  assert.match(describeProblem(cases[2]), /Someone else changed this event/);
  assert.match(describeProblem(cases[3]), /abc-1/, 'a 500 gives the request id to pass on');
  assert.ok(cases[0] instanceof ApiProblem);
});
