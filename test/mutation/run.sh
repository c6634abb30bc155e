#!/usr/bin/env bash
# Mutation score of one module: test/mutation/run.sh src/store/views/roster.ts test/store/views/roster.test.ts [more tests...]
# StrykerJS is not a dependency of this repository: install it once outside it (see docs/development.md, Mutation testing) and point
# STRYKER_HOME at that folder (default ../stryker). Runs with concurrency 1 (CONCURRENCY=2 at most: the machine is shared).
set -euo pipefail
cd "$(dirname "$0")/../.."
home="${STRYKER_HOME:-../stryker}"
[ -x "$home/node_modules/.bin/stryker" ] || { echo "no StrykerJS in $home: npm install --prefix $home @stryker-mutator/core@9.6 @stryker-mutator/tap-runner@9.6" >&2; exit 2; }
module="$1"; shift
[ "$#" -gt 0 ] || { echo "usage: $0 MODULE TEST_FILE..." >&2; exit 2; }
name="$(basename "$module" .ts)"
config=".stryker-$name.json"
node -e '
const [base, out, module, name, home, concurrency, ...tests] = process.argv.slice(1);
const config = JSON.parse(require("fs").readFileSync(base, "utf8"));
delete config.$comment;
Object.assign(config, {
  mutate: [module],
  tap: { ...config.tap, testFiles: tests },
  concurrency: Number(concurrency),
  tempDirName: `.stryker-tmp-${name}`,
  plugins: [require("path").resolve(home, "node_modules/@stryker-mutator/tap-runner/dist/src/index.js")],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
});
require("fs").writeFileSync(out, JSON.stringify(config, null, 2));
' test/mutation/stryker.base.json "$config" "$module" "$name" "$home" "${CONCURRENCY:-1}" "$@"
trap 'rm -f "$config"' EXIT
nice -n 10 "$home/node_modules/.bin/stryker" run "$config"
