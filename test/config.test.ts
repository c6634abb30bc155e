// Tests for parseServerConfig and serverUsage: defaults, flags beating the environment, both flag forms, and one-line ConfigErrors.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { commandName, ConfigError, packageVersion, parseServerConfig, serverUsage, SETTINGS, shellWord } from "../src/config.js";

/** Asserts parsing throws a ConfigError on one line whose message contains every part. */
function assertConfigError(argv: string[], env: Record<string, string>, ...parts: string[]): void {
  assert.throws(
    () => parseServerConfig(argv, env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.name, "ConfigError");
      assert.ok(!error.message.includes("\n"), "one line");
      for (const part of parts) assert.ok(error.message.includes(part), `message ${JSON.stringify(error.message)} lacks ${JSON.stringify(part)}`);
      return true;
    },
  );
}

test("parseServerConfig() gives the documented defaults", () => {
  assert.deepEqual(parseServerConfig([], {}), {
    help: false,
    version: false,
    port: 3000,
    host: "127.0.0.1",
    dataDir: "./data",
    rateLimit: 1000,
    rateWindow: 3600,
    corsOrigins: [],
    logLevel: "info",
    compactMinBytes: 67108864,
    console: true,
    timeZone: "UTC",
    store: "file",
    webhookHosts: [],
    approval: "off",
    notes: [],
  });
});

test("parseServerConfig() returns a frozen object", () => {
  assert.equal(Object.isFrozen(parseServerConfig([], {})), true);
});

test("parseServerConfig() reads every setting from the environment", () => {
  const config = parseServerConfig([], {
    PORT: "8080",
    HOST: "0.0.0.0",
    DATA_DIR: "/var/lib/events",
    RATE_LIMIT: "5",
    RATE_WINDOW: "60",
    CORS_ORIGIN: "https://events.campus.edu",
    LOG_LEVEL: "warn",
    COMPACT_MIN_BYTES: "1024",
    CONSOLE: "off",
    TIME_ZONE: "America/Los_Angeles",
    STORE: "postgres://campus:secret@db.campus.edu:5432/events",
    WEBHOOK_HOSTS: "hooks.campus.edu, *.signage.campus.edu",
    APPROVAL: "required",
  });
  assert.deepEqual(config, {
    help: false,
    version: false,
    port: 8080,
    host: "0.0.0.0",
    dataDir: "/var/lib/events",
    rateLimit: 5,
    rateWindow: 60,
    corsOrigins: ["https://events.campus.edu"],
    logLevel: "warn",
    compactMinBytes: 1024,
    console: false,
    timeZone: "America/Los_Angeles",
    store: "postgres://campus:secret@db.campus.edu:5432/events",
    webhookHosts: ["hooks.campus.edu", "*.signage.campus.edu"],
    approval: "required",
    notes: [],
  });
});

test("parseServerConfig() takes --flag value and --flag=value", () => {
  const config = parseServerConfig(["--port", "8080", "--host=::1", "--data-dir", "/tmp/x", "--rate-limit=7", "--rate-window", "30", "--cors-origin=http://localhost:5173", "--log-level", "debug", "--console", "off", "--time-zone", "Europe/Berlin", "--store=postgresql://db/events", "--webhook-hosts=*", "--approval=required"], {});
  assert.deepEqual(config, {
    help: false,
    version: false,
    port: 8080,
    host: "::1",
    dataDir: "/tmp/x",
    rateLimit: 7,
    rateWindow: 30,
    corsOrigins: ["http://localhost:5173"],
    logLevel: "debug",
    compactMinBytes: 67108864,
    console: false,
    timeZone: "Europe/Berlin",
    store: "postgresql://db/events",
    webhookHosts: ["*"],
    approval: "required",
    notes: [],
  });
});

test("parseServerConfig() --store: file, a postgres:// URL, or postgres with DATABASE_URL; anything else is a usage error that hides a password", () => {
  assert.equal(parseServerConfig(["--store", "postgres"], { DATABASE_URL: "postgres://u:p@h/d" }).store, "postgres://u:p@h/d");
  assert.throws(() => parseServerConfig(["--store", "postgres"], {}), /^ConfigError: --store postgres reads the database URL from DATABASE_URL, which is not set; set it, or give the URL itself/);
  assert.throws(() => parseServerConfig(["--store", "postgres"], { DATABASE_URL: "" }), /DATABASE_URL, which is not set/);
  assert.throws(() => parseServerConfig(["--store", "postgres"], { DATABASE_URL: "postgres" }), /DATABASE_URL .* must be a postgres:\/\/user:password@host:port\/database URL, got "postgres"/);
  assert.throws(() => parseServerConfig(["--store", "mysql://u:hunter2@h/d"], {}), (error: Error) => error instanceof ConfigError && !error.message.includes("hunter2") && error.message.includes("--store"));
});

test("parseServerConfig() --store takes several hosts (a primary and its standbys), and a bad host list is a one-line usage error without the password", () => {
  assert.equal(parseServerConfig(["--store", "postgres://u:hunter2@h1:5432,h2:5433,[::1]:5434/d"], {}).store, "postgres://u:hunter2@h1:5432,h2:5433,[::1]:5434/d");
  for (const [url, reason] of [
    ["postgres://u:hunter2@h1:5432,,h2/d", /host 2 .* is empty/],
    ["postgres://u:hunter2@h1:5432,h2:99999/d", /host 2 .* bad port/],
    ["postgres://u:hunter2@h1:5432,h2:/d", /host 2 .* bad port/],
    ["postgres://u:hunter2@h1:5432,h%2/d", /host 2 .* not a host name/],
    ["postgres://u:hunter2@/d", /names no host/],
  ] as const) {
    assert.throws(() => parseServerConfig(["--store", url], {}), (error: Error) => error instanceof ConfigError && reason.test(error.message) && !error.message.includes("hunter2") && !error.message.includes("\n") && error.message.includes("--store"), url);
  }
  assert.throws(() => parseServerConfig(["--store", "postgres"], { DATABASE_URL: "postgres://u:hunter2@h1,,h2/d" }), (error: Error) => error instanceof ConfigError && /DATABASE_URL/.test(error.message) && !error.message.includes("hunter2"));
});

test("parseServerConfig() lets a flag beat the environment, in both forms", () => {
  assert.equal(parseServerConfig(["--port", "4000"], { PORT: "5000" }).port, 4000);
  assert.equal(parseServerConfig(["--port=4000"], { PORT: "5000" }).port, 4000);
  assert.equal(parseServerConfig(["--data-dir", "flag"], { DATA_DIR: "env" }).dataDir, "flag");
});

test("parseServerConfig() does not parse the environment value a flag overrides", () => {
  assert.equal(parseServerConfig(["--port", "4000"], { PORT: "abc" }).port, 4000);
});

test("parseServerConfig() lets the last of a repeated flag win", () => {
  assert.equal(parseServerConfig(["--port", "1", "--port=2"], {}).port, 2);
});

test("parseServerConfig() treats an empty environment variable as unset", () => {
  assert.equal(parseServerConfig([], { PORT: "" }).port, 3000);
});

test("parseServerConfig() keeps an = inside a --flag=value value", () => {
  assert.equal(parseServerConfig(["--data-dir=/tmp/a=b"], {}).dataDir, "/tmp/a=b");
});

test("parseServerConfig() takes port 0 (any free port) and 65535", () => {
  assert.equal(parseServerConfig(["--port", "0"], {}).port, 0);
  assert.equal(parseServerConfig(["--port", "65535"], {}).port, 65535);
});

test("parseServerConfig() refuses an unknown flag, naming it", () => {
  assertConfigError(["--verbose"], {}, "unknown flag --verbose; see --help");
  assertConfigError(["-p", "3000"], {}, "unknown flag -p; see --help");
});

test("parseServerConfig() names the known flag an unknown one is close to: --data is --data-dir (issue 33.7)", () => {
  assertConfigError(["--data", "/tmp/x"], {}, "unknown flag --data; did you mean --data-dir?");
  assertConfigError(["--prot=3000"], {}, "unknown flag --prot; did you mean --port?");
  assertConfigError(["--timezone", "UTC"], {}, "unknown flag --timezone; did you mean --time-zone?");
});

test("parseServerConfig() refuses a stray argument", () => {
  assertConfigError(["serve"], {}, "unknown argument", '"serve"');
});

for (const port of ["abc", "70000", "65536", "-1", "3000.5", "1e3", "", " 80"]) {
  test(`parseServerConfig() refuses --port ${JSON.stringify(port)}, naming the flag and quoting the value`, () => {
    assertConfigError(["--port", port], {}, "--port must be an integer from 0 to 65535", `"${port}"`);
  });
}

test("parseServerConfig() refuses a bad PORT from the environment, naming the variable", () => {
  assertConfigError([], { PORT: "abc" }, "PORT must be an integer", '"abc"');
});

test("parseServerConfig() refuses rate-limit 0 and rate-window 0", () => {
  assertConfigError(["--rate-limit", "0"], {}, "--rate-limit must be an integer from 1", '"0"');
  assertConfigError([], { RATE_LIMIT: "0" }, "RATE_LIMIT");
  assertConfigError(["--rate-window=0"], {}, "--rate-window", '"0"');
  assertConfigError(["--rate-limit", "ten"], {}, "--rate-limit", '"ten"');
});

test("parseServerConfig() refuses a flag without its value", () => {
  assertConfigError(["--port"], {}, "--port needs a value");
  assertConfigError(["--host", "localhost", "--data-dir"], {}, "--data-dir needs a value");
  assertConfigError(["--host", "--data-dir", "/tmp/x"], {}, "--host needs a value; got the flag --data-dir after it");
  assert.equal(parseServerConfig(["--data-dir=--odd"], {}).dataDir, "--odd", "a value starting with -- is written with =");
});

test("parseServerConfig() refuses an empty host or data folder", () => {
  assertConfigError(["--host="], {}, "--host must not be empty");
  for (const host of ["bad host", "http://x", "999.1.1.1", "10.0.0", "*.campus.edu", "host:80"]) assertConfigError(["--host", host], {}, `--host must be an IP address or a host name, got "${host}"`);
  assertConfigError([], { HOST: "a/b" }, 'HOST must be an IP address or a host name, got "a/b"');
  for (const [host, listened] of [["0.0.0.0", "0.0.0.0"], ["::", "::"], ["[::1]", "::1"], ["events.campus.edu", "events.campus.edu"], ["localhost", "localhost"]]) assert.equal(parseServerConfig(["--host", host!], {}).host, listened);
  assertConfigError(["--data-dir", "  "], {}, "--data-dir must not be empty");
});

test("parseServerConfig() refuses an unknown log level", () => {
  assertConfigError(["--log-level", "loud"], {}, "--log-level must be one of", '"loud"');
});

test("parseServerConfig() sets help for --help and -h, with the other defaults intact", () => {
  const config = parseServerConfig(["--help"], {});
  assert.equal(config.help, true);
  assert.equal(config.port, 3000);
  assert.equal(parseServerConfig(["-h"], {}).help, true);
  assert.equal(parseServerConfig(["--port", "1", "--help"], {}).help, true);
});

test("parseServerConfig() answers --help and --version whatever the values: bad flags and environment are not read", () => {
  assert.equal(parseServerConfig(["--help", "--port", "abc"], {}).help, true);
  assert.equal(parseServerConfig(["--version"], { PORT: "abc", STORE: "postgres" }).version, true);
  assert.equal(parseServerConfig(["--help"], { RATE_LIMIT: "0" }).rateLimit, 1000, "the defaults stand in");
  // An unknown flag is still a usage error, as in the CLI.
  assertConfigError(["--help", "--verbose"], {}, "unknown flag --verbose; see --help");
});

test("parseServerConfig() parses a comma-separated origin list, trimming and skipping empties", () => {
  assert.deepEqual(parseServerConfig(["--cors-origin", " https://a.campus.edu , http://localhost:3000,,https://b.campus.edu:8443 "], {}).corsOrigins, [
    "https://a.campus.edu",
    "http://localhost:3000",
    "https://b.campus.edu:8443",
  ]);
  assert.deepEqual(parseServerConfig([], { CORS_ORIGIN: "https://a.campus.edu,https://b.campus.edu" }).corsOrigins, ["https://a.campus.edu", "https://b.campus.edu"]);
  assert.deepEqual(parseServerConfig(["--cors-origin="], {}).corsOrigins, []);
});

test("parseServerConfig() takes an origin in any case and with its default port (CorsPolicy allows it as a browser sends it)", () => {
  const written = ["HTTP://LocalHost:5173", "https://Events.Campus.edu:443", "http://[::1]:80", "https://b.campus.edu:8443"];
  assert.deepEqual(parseServerConfig(["--cors-origin", written.join(",")], {}).corsOrigins, written);
});

test("parseServerConfig() refuses an origin with a path or a trailing slash, saying how to write it", () => {
  assertConfigError(["--cors-origin", "https://events.campus.edu/"], {}, `got "https://events.campus.edu/": an origin has no path; write it as https://events.campus.edu`);
  assertConfigError(["--cors-origin", "http://localhost:5173/app/"], {}, `got "http://localhost:5173/app/": an origin has no path; write it as http://localhost:5173`);
});

for (const origin of ["events.campus.edu", "https://events.campus.edu\\app", "https://events.campus.edu/", "https://events.campus.edu/app", "ftp://events.campus.edu", "*", "https://"]) {
  test(`parseServerConfig() refuses the CORS origin ${JSON.stringify(origin)}, quoting it`, () => {
    assertConfigError(["--cors-origin", `https://ok.campus.edu,${origin}`], {}, "--cors-origin must be a comma-separated list of origins", `"${origin}"`);
  });
}

test("serverUsage() names every flag, its variable and its default", () => {
  const usage = serverUsage();
  assert.match(usage, /^Usage: campus-events \[options\]\n   or: node dist\/server\.js \[options\]\n/);
  assert.match(serverUsage("node dist/server.js"), /^Usage: node dist\/server\.js \[options\]\n   or: campus-events \[options\]\n/);
  for (const setting of SETTINGS) {
    assert.ok(usage.includes(setting.flag), setting.flag);
    assert.ok(usage.includes(`env ${setting.env}`), setting.env);
  }
  for (const part of ["--help", "default 3000", "default 127.0.0.1", "default ./data", "default 1000", "default 3600", "default none"]) {
    assert.ok(usage.includes(part), part);
  }
});

test("SETTINGS covers every setting of API.md §1", () => {
  const rows = SETTINGS.map((s) => [s.flag, s.env, s.default]);
  for (const row of [
    ["--port", "PORT", "3000"],
    ["--host", "HOST", "127.0.0.1"],
    ["--data-dir", "DATA_DIR", "./data"],
    ["--rate-limit", "RATE_LIMIT", "1000"],
    ["--rate-window", "RATE_WINDOW", "3600"],
    ["--cors-origin", "CORS_ORIGIN", ""],
  ]) {
    assert.ok(rows.some((r) => JSON.stringify(r) === JSON.stringify(row)), JSON.stringify(row));
  }
});

test("parseServerConfig() turns the console off with --console off or CONSOLE=off, and refuses other values", () => {
  assert.equal(parseServerConfig(["--console", "off"], {}).console, false);
  assert.equal(parseServerConfig([], { CONSOLE: "off" }).console, false);
  assert.equal(parseServerConfig(["--console=on"], { CONSOLE: "off" }).console, true);
  assertConfigError(["--console", "no"], {}, "--console", '"on" or "off"', '"no"');
  assertConfigError([], { CONSOLE: "false" }, "CONSOLE", '"false"');
});

test("parseServerConfig() sets version for --version", () => {
  assert.equal(parseServerConfig(["--version"], {}).version, true);
  assert.equal(parseServerConfig([], {}).version, false);
});

test("packageVersion() is the version in package.json", () => {
  assert.equal(packageVersion(), JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version);
});

test("commandName() is the installed name through npm's link, else node and the file's path from where the user stands", () => {
  assert.equal(commandName("/usr/local/bin/campus-events-cli", "campus-events-cli", "cli.js"), "campus-events-cli");
  assert.equal(commandName("/srv/app/node_modules/.bin/campus-events", "campus-events", "server.js"), "campus-events");
  assert.equal(commandName("/opt/campus-events/dist/server.js", "campus-events", "server.js", "/opt/campus-events"), "node dist/server.js");
  assert.equal(commandName("dist/server.js", "campus-events", "cli.js", "/opt/campus-events"), "node dist/cli.js");
  assert.equal(commandName("/srv/app/node_modules/campus-events/dist/server.js", "campus-events", "cli.js", "/srv/app"), "node node_modules/campus-events/dist/cli.js");
  assert.equal(commandName("/opt/campus-events/dist/cli.js", "campus-events-cli", "server.js", "/opt/campus-events/dist"), "node server.js");
  // From elsewhere, the whole path, quoted for a shell where it must be.
  assert.equal(commandName("/opt/campus events/dist/cli.js", "campus-events-cli", "cli.js", "/home/it"), "node '/opt/campus events/dist/cli.js'");
  // A link to the program (/usr/local/bin/campus-server) names the CLI beside the program itself, not beside the link.
  const root = mkdtempSync(path.join(tmpdir(), "campus-link-"));
  try {
    mkdirSync(path.join(root, "app", "dist"), { recursive: true });
    mkdirSync(path.join(root, "bin"));
    writeFileSync(path.join(root, "app", "dist", "server.js"), "");
    symlinkSync(path.join(root, "app", "dist", "server.js"), path.join(root, "bin", "campus-server"));
    assert.equal(commandName(path.join(root, "bin", "campus-server"), "campus-events", "cli.js", path.join(root, "app")), "node dist/cli.js");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  assert.equal(commandName(undefined, "campus-events", "server.js"), "node dist/server.js");
});

test("shellWord() leaves a plain path as it is and single-quotes anything a shell would read", () => {
  assert.equal(shellWord("/var/lib/campus-events"), "/var/lib/campus-events");
  assert.equal(shellWord("/srv/campus events"), "'/srv/campus events'");
  assert.equal(shellWord("/srv/it's"), "'/srv/it'\\''s'");
  assert.equal(shellWord("/srv/$HOME/a\\b"), "'/srv/$HOME/a\\b'");
});

test("parseServerConfig() refuses a time zone ICU does not know, naming the flag and the value", () => {
  assert.throws(() => parseServerConfig(["--time-zone", "Mars/Olympus_Mons"], {}), (error: Error) => error instanceof ConfigError && /--time-zone .*IANA.*"Mars\/Olympus_Mons"/.test(error.message));
  assert.throws(() => parseServerConfig([], { TIME_ZONE: "CEST+2" }), /TIME_ZONE must be an IANA time zone name/);
});

test("parseServerConfig() refuses a --webhook-hosts entry that is not a host, naming it", () => {
  assert.throws(() => parseServerConfig(["--webhook-hosts", "hooks.campus.edu,http://x/y"], {}), /--webhook-hosts .*"http:\/\/x\/y"/);
});

test("parseServerConfig() refuses --webhook-hosts entries that are no host: a port, a path, empty or hyphen-edged labels", () => {
  for (const bad of ["127.0.0.1:8080", "hooks.campus.edu:443", "-bad.campus.edu", "a..b", "hooks/x", "[::1", "*.", "*x.campus.edu"]) {
    assert.throws(() => parseServerConfig(["--webhook-hosts", bad], {}), (error: Error) => error instanceof ConfigError && error.message.includes(`"${bad}"`), bad);
  }
  const good = ["*", "localhost", "127.0.0.1", "::1", "[::1]", "hooks.campus.edu", "hooks.campus.edu.", "*.signage.campus.edu", "my_host", "xn--bcher-kva.example"];
  assert.deepEqual(parseServerConfig(["--webhook-hosts", good.join(",")], {}).webhookHosts, good);
});

test("parseServerConfig() takes --approval off or required and refuses anything else, naming the flag and the value", () => {
  assert.equal(parseServerConfig(["--approval", "required"], {}).approval, "required");
  assert.equal(parseServerConfig([], { APPROVAL: "required" }).approval, "required");
  assert.equal(parseServerConfig(["--approval=off"], { APPROVAL: "required" }).approval, "off");
  assert.throws(() => parseServerConfig(["--approval", "yes"], {}), (error: Error) => error instanceof ConfigError && /--approval must be "off" or "required", got "yes"/.test(error.message));
  assert.throws(() => parseServerConfig([], { APPROVAL: "Required" }), (error: Error) => error instanceof ConfigError && /APPROVAL/.test(error.message));
});

test("parseServerConfig(): --data-dir on the command line leaves STORE from the environment in charge (a flag beats its own variable), with a note that the folder is not used", () => {
  const env = { STORE: "postgres://campus:secret@db.campus.edu:5432/events", DATA_DIR: "/var/lib/events" };
  const named = parseServerConfig(["--data-dir", "/var/lib/campus-events-back"], env);
  assert.equal(named.store, env.STORE);
  assert.deepEqual(named.notes, ["--data-dir /var/lib/campus-events-back is not used: STORE in the environment names a database, which this server uses; to serve the folder, add --store file"]);
  assert.equal(parseServerConfig(["--data-dir", "/x", "--store", "file"], env).store, "file");
  assert.deepEqual(parseServerConfig(["--data-dir", "/x", "--store", "file"], env).notes, []);
  assert.deepEqual(parseServerConfig(["--data-dir", "/x", "--store", "postgres://a:b@h/d"], {}).notes, [], "both flags: the user chose");
  assert.deepEqual(parseServerConfig([], env).notes, [], "both from the environment: DATA_DIR is a default");
  assert.deepEqual(parseServerConfig(["--data-dir", "/x"], {}).notes, []);
});
