#!/usr/bin/env bash
# Back up the site's PostgreSQL database: one pg_dump in custom format (-Fc) a run, named with
# the time in UTC, the newest BACKUP_KEEP kept.
#
#   deploy/backup.sh [BACKUP_DIR]
#
# The database is DATABASE_URL's (postgres://user:password@host:port/name, as the site reads it)
# or, without it, libpq's PG* variables (PGHOST, PGPORT, PGUSER, PGDATABASE, PGPASSWORD or
# ~/.pgpass). The folder is the argument or BACKUP_DIR. A dump is written under a temporary name
# in that folder, checked (pg_restore --list reads it whole) and only then renamed to
# setgames-<database>-<YYYYmmddTHHMMSSZ>.dump, so a file with that name is always complete.
# Exits 1 with one line on standard error when anything fails; prints the file written.
set -euo pipefail
# A dump holds every account's password hash and session: only its owner reads it.
umask 077

PROGRAM=backup.sh
usage() {
    echo "usage: $PROGRAM [BACKUP_DIR]  (or BACKUP_DIR=...; BACKUP_KEEP=14; DATABASE_URL or PG*)" >&2
    exit 2
}
fail() {
    echo "$PROGRAM: $*" >&2
    exit 1
}
first_line() { head -n 1 "$1" | tr -d '\r'; }

case "${1:-}" in
-h | --help) usage ;;
-*) usage ;;
esac
[ $# -le 1 ] || usage

dir="${1:-${BACKUP_DIR:-}}"
[ -n "$dir" ] || usage
keep="${BACKUP_KEEP:-14}"
[[ "$keep" =~ ^[1-9][0-9]*$ ]] || fail "BACKUP_KEEP must be a whole number of at least 1, not '$keep'"
prefix="${BACKUP_PREFIX:-setgames}"
[[ "$prefix" =~ ^[A-Za-z0-9._-]+$ ]] || fail "BACKUP_PREFIX may hold only letters, digits, '.', '_' and '-'"

# libpq reads a postgres:// URL as a connection string; its path is the database's name.
connection=()
if [ -n "${DATABASE_URL:-}" ]; then
    case "$DATABASE_URL" in
    postgres://* | postgresql://*) ;;
    *) fail "DATABASE_URL is not a PostgreSQL URL (postgres://...): nothing to back up with pg_dump" ;;
    esac
    connection=(--dbname="$DATABASE_URL")
    database="${DATABASE_URL%%\?*}"
    database="${database#*://}"
    [[ "$database" == */* ]] && database="${database##*/}" || database=""
fi
database="${database:-${PGDATABASE:-${PGUSER:-$(id -un)}}}"
label="$(printf '%s' "$database" | tr -c 'A-Za-z0-9._-' '_')"

mkdir -p -m 700 -- "$dir" 2>/dev/null || fail "cannot create the backup folder $dir"
[ -w "$dir" ] || fail "cannot write to the backup folder $dir"

stamp="$(date -u +%Y%m%dT%H%M%SZ)"
final="$dir/$prefix-$label-$stamp.dump"
partial="$dir/.$prefix-$label-$stamp.dump.partial.$$"
errors="$(mktemp)"
trap 'rm -f -- "$partial" "$errors"' EXIT

# --no-password: a cron job or a timer fails at once instead of waiting for a typed password.
if ! pg_dump --format=custom --no-password --file="$partial" "${connection[@]}" 2>"$errors"; then
    fail "pg_dump of database $database failed: $(first_line "$errors")"
fi
if ! pg_restore --list "$partial" >/dev/null 2>"$errors"; then
    fail "the dump of database $database does not read back: $(first_line "$errors")"
fi
[ ! -e "$final" ] || fail "$final exists already (two backups in the same second?)"
mv -- "$partial" "$final" || fail "cannot rename the finished dump to $final"

# The newest BACKUP_KEEP of this database's dumps stay; the names sort by their time.
shopt -s nullglob
export LC_COLLATE=C
digits8='[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]'
digits6='[0-9][0-9][0-9][0-9][0-9][0-9]'
# shellcheck disable=SC2206 # the pattern is a glob on purpose
dumps=("$dir/$prefix-$label-"${digits8}T${digits6}Z.dump)
if [ "${#dumps[@]}" -gt "$keep" ]; then
    rm -f -- "${dumps[@]:0:${#dumps[@]}-keep}" || fail "cannot remove old dumps in $dir"
fi
echo "$final"
