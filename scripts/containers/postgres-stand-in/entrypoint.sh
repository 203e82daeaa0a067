#!/bin/sh
# A new data directory is initialised as the official image does; then the server runs in the foreground.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  printf '%s' "$POSTGRES_PASSWORD" > /tmp/password
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile=/tmp/password -A scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  rm /tmp/password
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  PGPASSWORD="$POSTGRES_PASSWORD" psql -q -U "$POSTGRES_USER" -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\""
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
