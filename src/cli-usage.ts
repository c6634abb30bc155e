// The CLI's usage, as --help prints it and a usage error without a command shows it.

/** The usage of the CLI run as `self`: `campus-events-cli` once installed, `node dist/cli.js` from a checkout. */
export function cliUsage(self: string): string {
  return `Usage: ${self} COMMAND [options]
   or: ${self === 'campus-events-cli' ? 'node dist/cli.js' : 'campus-events-cli'} COMMAND [options]

Commands:
  keys create --name NAME --email EMAIL [--role admin|organizer|reader|feed] [--json]
                          create a key and print its secret once (default role: organizer)
  keys list [--json]      list keys without their secrets (revoked ones included)
  keys revoke ID          revoke a key; a running server refuses it within 2 s
  verify [--json]         check the event log offline (read-only: a server may run); exit 0 when
                          it is healthy or only has a torn tail (the next start cuts it off, with
                          a warning), 1 when it is damaged (the line is named)
  backup --out FILE       copy the event log consistently while a server runs (FILE.tmp, fsync,
                          rename; never overwrites FILE); restore: put FILE in an empty data
                          folder as events.jsonl and start a server there
  migrate --from DATA_DIR --to postgres://USER:PASSWORD@HOST:PORT/DATABASE
                          copy a data folder (events, series, registrations, keys, webhooks)
                          into an empty PostgreSQL database (needs the pg package)

keys, verify and backup also take --store postgres://... (or STORE; "postgres" alone reads
DATABASE_URL): the keys and the log are then the database's (a backup from it holds the log
alone: keep keys and webhooks apart, as docs/postgres.md says).

Every command takes --data-dir DIR (or DATA_DIR; default ./data) anywhere after it; the folder must
exist (the server creates it on its first start). --version prints the version, --help this text.
Exit codes: 0 done, 1 failed, 2 usage error.
`;
}
