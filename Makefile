# campus-events: `make run` and `make test` work from a fresh clone with only Node 20+ and npm.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE_TEST := node --import tsx --test --test-reporter=spec
TEST_FILES = $(shell find test -name '*.test.ts' -not -path 'test/bench/*' -not -path '*/node_modules/*' | sort)
# Most tests run three files at a time on two cores, since most of them wait on a server rather than compute (the
# crash tests among them: their checks hold whatever the timing, and they run as many kill rounds as fit in their
# budget); three took 247 s where two took 287, both cores busy. Then the browser tests and the PostgreSQL fault
# tests, which time real processes, run one file at a time each, the two lanes side by side: a browser computes while
# a fault test mostly waits for a time-out. A third lane (the PostgreSQL tests in two halves) took 50 s less, but
# the history test's checks failed under its load twice in five runs. About 9½ minutes in all on 2 cores.
CONSOLE_TESTS = $(filter test/console/%,$(TEST_FILES))
POSTGRES_TESTS = $(filter test/store/postgres/%,$(TEST_FILES))
# The slowest of the rest (10 to 25 s each) start first, so that none is left running alone at the end.
SLOW_TESTS = $(addprefix test/,webhooks/shared-webhooks.test.ts store/file/log-replay.test.ts durability/registrations-crash.test.ts \
  durability/kill-set.test.ts hardening/timeouts.test.ts store/file/log-replay-registrations.test.ts webhooks/checkpoint-gap.test.ts \
  cli-postgres.test.ts start-server.test.ts search/search-index-model.test.ts series/expand-property.test.ts server.test.ts \
  hardening/keep-alive-bursts.test.ts readme.test.ts openapi/generated-types.test.ts)
PAIRED_TESTS = $(filter $(SLOW_TESTS),$(TEST_FILES)) $(filter-out $(SLOW_TESTS) $(CONSOLE_TESTS) $(POSTGRES_TESTS),$(TEST_FILES))
# The browser lane is the shorter by about two minutes: the PostgreSQL files from `primary` on (by name) run in it,
# after the browser tests, so that both lanes end about together.
LATE_POSTGRES_TESTS = $(shell printf '%s\n' $(POSTGRES_TESTS) | awk -F/ '$$NF >= "primary"')
EARLY_POSTGRES_TESTS = $(filter-out $(LATE_POSTGRES_TESTS),$(POSTGRES_TESTS))

.PHONY: help install build run test check bench bench-full soak clean

help:
	@echo "make run    install, build and start the server on ./data"
	@echo "make test   install, build and run every test"
	@echo "make check  type-check sources and tests"
	@echo "make bench  benchmarks against bare node:http and a bare durable append (about 5 minutes, and 3 to 6 more for PostgreSQL start-up at 2M writes); bench-full adds 1M events"
	@echo "make soak   the PostgreSQL fault phases of the history test for minutes each (SOAK_PHASE_SECONDS, SOAK_CLIENTS, SOAK_SEED)"
	@echo "make clean  remove build output and installed packages"

# The root package.json holds what building and running need, plus what the tests need from the root: TypeScript,
# tsx (`node --import tsx` resolves it from the working folder), the Node types, and pg (src/ loads it with import()).
# package.json's allowScripts denies esbuild's postinstall (tsx runs esbuild's binary from @esbuild/<platform>, which
# npm installs without any script), so npm 11 has no unreviewed install script to warn about.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

# test/package.json holds what only tests and benchmarks import (a browser driver, validators, parsers, Fastify):
# installed into test/node_modules, which Node and TypeScript find from every file under test/.
# test/tools/openapi-typegen holds openapi-typescript and the TypeScript 5 it needs (the build uses 7), for one test.
# `make test` installs both, `make run` neither.
test/node_modules/.installed: test/package.json test/package-lock.json
	npm ci --no-audit --no-fund --prefix test
	@touch $@

test/tools/openapi-typegen/node_modules/.installed: test/tools/openapi-typegen/package.json test/tools/openapi-typegen/package-lock.json
	npm ci --no-audit --no-fund --prefix test/tools/openapi-typegen
	@touch $@

TEST_TOOLS := test/node_modules/.installed test/tools/openapi-typegen/node_modules/.installed

install: node_modules/.installed $(TEST_TOOLS)

# dist/server.js stands for the whole build (no stamp file inside dist/, which npm would pack).
dist/server.js: node_modules/.installed tsconfig.json $(shell find src -name '*.ts' -o -name '*.html' -o -name '*.css' -o -name '*.svg' -o -name 'tsconfig.json')
	rm -rf dist
	npx tsc -p tsconfig.json
	npx tsc -p src/console/web/tsconfig.json
	cp src/console/web/index.html src/console/web/console.css src/console/web/icon.svg dist/console/web/
	@touch $@

build: dist/server.js

# The clone's data/ comes from git as 0755; the log in it holds organizers' e-mails (docs/operations.md).
# Settings pass as environment variables (PORT=8080 DATA_DIR=/srv/campus make run); the folder is made private first.
run: build
	@mkdir -p "$${DATA_DIR:-data}" && chmod 700 "$${DATA_DIR:-data}"
	@node dist/server.js

# Node 20's --test neither expands globs nor finds .ts files in folders, and exits 0 when
# nothing ran: pass the lists, and fail unless each of the three summaries counts at least one test.
# The browser lane's report is printed after the PostgreSQL lane's, so the two never interleave. When a test failed,
# its failure is printed again last, where a CI log's tail shows it.
test: build $(TEST_TOOLS)
	@test -n "$(PAIRED_TESTS)" -a -n "$(CONSOLE_TESTS)" -a -n "$(POSTGRES_TESTS)" || { echo "make test: no test files found under test/" >&2; exit 1; }
	npx tsc -p test/tsconfig.json --noEmit
	@set -o pipefail; ( \
	  $(NODE_TEST) --test-concurrency=3 $(PAIRED_TESTS); paired=$$?; \
	  $(NODE_TEST) --test-concurrency=1 $(CONSOLE_TESTS) $(LATE_POSTGRES_TESTS) > .test-console.log 2>&1 & console=$$!; \
	  $(NODE_TEST) --test-concurrency=1 $(EARLY_POSTGRES_TESTS); postgres=$$?; \
	  wait $$console; console=$$?; cat .test-console.log; \
	  exit $$(( paired || console || postgres )) ) 2>&1 | tee .test-output.log || { \
	  echo "make test: the failing tests once more, without their stacks (each lane's whole report is above):"; \
	  awk '/^✖ failing tests:/ { on = 1 } /^(▶|✔|﹣|ℹ) / { on = 0 } on && !/^ +at /' .test-output.log | head -n 150; exit 1; }
	@test "$$(grep -cE '^. tests [1-9]' .test-output.log)" -eq 3 || { echo "make test: no test ran" >&2; exit 1; }
	@rm -f .test-output.log .test-console.log

check: install
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p test/tsconfig.json --noEmit
	npx tsc -p src/console/web/tsconfig.json --noEmit

# postgres-bench checks exchanges with ajv and measures against a Fastify peer, both from test/node_modules.
bench: build test/node_modules/.installed
	node --import tsx test/bench/run.ts
	node --import tsx test/bench/feeds-bench.ts
	node --import tsx test/bench/postgres-bench.ts
	node --import tsx test/bench/postgres-startup-bench.ts
	node --import tsx test/bench/rate-lease-bench.ts
	node --import tsx test/bench/series-bench.ts
	node --import tsx test/bench/webhooks-bench.ts
	node --import tsx test/bench/write-cost-bench.ts
	node --import tsx test/bench/write-core-bench.ts
	node --import tsx test/bench/search-bench.ts
	node --import tsx test/bench/client-input-memory.ts
	node --import tsx test/bench/fairness-bench.ts
	node --import tsx test/bench/heavy-requests-bench.ts

bench-full: build
	node --import tsx test/bench/run.ts --full
	node --import tsx test/bench/search-bench.ts --full

soak: build
	node --import tsx test/bench/history-soak.ts

clean:
	rm -rf dist node_modules test/node_modules test/tools/openapi-typegen/node_modules .test-output.log .test-console.log
