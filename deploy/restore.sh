#!/usr/bin/env bash
# Restore a dump of deploy/backup.sh into a database of its own, new or empty.
#
#   deploy/restore.sh [--force] DUMP TARGET
#
# TARGET is a database's name on the server of DATABASE_URL (or, without it, of libpq's PG*
# variables: PGHOST, PGPORT, PGUSER, PGPASSWORD or ~/.pgpass), or a whole postgres:// URL. The
# database is created when it does not exist. A database that holds tables already is refused
# unless --force is given: then the dump's objects replace those of the same names (pg_restore
# --clean --if-exists). The restore runs in one transaction (--single-transaction,
# --exit-on-error): it is whole or nothing. Owners and grants are not restored (--no-owner,
# --no-acl): the objects belong to the user who restores, as they would on a new server whose
# roles differ. The planner's statistics are rebuilt after (ANALYZE).
# Exits 1 with one line on standard error when anything fails; prints the database restored.
set -euo pipefail

PROGRAM=restore.sh
usage() {
    echo "usage: $PROGRAM [--force] DUMP TARGET  (TARGET: a database name on DATABASE_URL's or PG*'s server, or a postgres:// URL)" >&2
    exit 2
}
fail() {
    echo "$PROGRAM: $*" >&2
    exit 1
}
first_line() { head -n 1 "$1" | tr -d '\r'; }

force=0
arguments=()
for argument in "$@"; do
    case "$argument" in
    --force) force=1 ;;
    -h | --help | -*) usage ;;
    *) arguments+=("$argument") ;;
    esac
done
[ "${#arguments[@]}" -eq 2 ] || usage
dump="${arguments[0]}"
target="${arguments[1]}"

# The same URL with another database in its path (its user, host, port and query kept).
with_database() {
    local url="$1" name="$2" base query rest
    base="${url%%\?*}"
    query="${url:${#base}}"
    rest="${base#*://}"
    echo "${base%%://*}://${rest%%/*}/$name$query"
}
is_url() { [[ "$1" == postgres://* || "$1" == postgresql://* ]]; }

if is_url "$target"; then
    name="${target%%\?*}"
    name="${name#*://}"
    [[ "$name" == */* ]] && name="${name##*/}" || name=""
    [ -n "$name" ] || fail "the target URL names no database"
    target_url="$target"
    maintenance="$(with_database "$target" postgres)"
else
    name="$target"
    if [ -n "${DATABASE_URL:-}" ]; then
        is_url "$DATABASE_URL" || fail "DATABASE_URL is not a PostgreSQL URL (postgres://...)"
        target_url="$(with_database "$DATABASE_URL" "$name")"
        maintenance="$(with_database "$DATABASE_URL" postgres)"
    else
        target_url="$name"
        maintenance=postgres
    fi
fi
[[ "$name" =~ ^[A-Za-z0-9_][A-Za-z0-9_-]*$ ]] ||
    fail "a target database's name holds only letters, digits, '_' and '-', not '$name'"

[ -f "$dump" ] && [ -r "$dump" ] || fail "cannot read the dump $dump"
errors="$(mktemp)"
trap 'rm -f -- "$errors"' EXIT
pg_restore --list "$dump" >/dev/null 2>"$errors" ||
    fail "$dump is not a dump of pg_dump -Fc: $(first_line "$errors")"

# --no-password everywhere: fail at once rather than wait for a password nobody will type.
sql() { psql --no-password --no-psqlrc --quiet --tuples-only --no-align "$@"; }

# The server's own database ("postgres") says whether the target exists; psql quotes the name.
exists="$(sql --dbname="$maintenance" --set=name="$name" 2>"$errors" <<<"SELECT count(*)
    FROM pg_database WHERE datname = :'name'")" ||
    fail "cannot connect to the server of database $name: $(first_line "$errors")"
if [ "$exists" -gt 0 ]; then
    tables="$(sql --dbname="$target_url" --command="SELECT count(*) FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema')
        AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%'" 2>"$errors")" ||
        fail "cannot read database $name: $(first_line "$errors")"
    if [ "$tables" -gt 0 ] && [ "$force" -eq 0 ]; then
        fail "database $name is not empty ($tables tables, views or sequences): restore into a new database, or pass --force to replace its objects with the dump's"
    fi
else
    createdb --no-password --maintenance-db="$maintenance" "$name" 2>"$errors" ||
        fail "cannot create database $name: $(first_line "$errors")"
fi

clean=()
[ "$force" -eq 0 ] || clean=(--clean --if-exists)
pg_restore --no-password --no-owner --no-acl --exit-on-error --single-transaction \
    "${clean[@]}" --dbname="$target_url" "$dump" 2>"$errors" ||
    fail "pg_restore into database $name failed, nothing was restored: $(first_line "$errors")"
sql --dbname="$target_url" --command='ANALYZE' 2>"$errors" ||
    fail "ANALYZE of database $name failed: $(first_line "$errors")"
echo "$name"
