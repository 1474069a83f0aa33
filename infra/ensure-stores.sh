#!/usr/bin/env bash
# Make sure PostgreSQL and Redis answer before the app or the tests start.
#
#   bash infra/ensure-stores.sh
#
# For each store, in order:
#   1. DATABASE_URL / REDIS_URL set: it must answer there, or we stop with what to do.
#   2. The local default (127.0.0.1:5432 / 127.0.0.1:6379) answers: nothing to do.
#   3. A Docker engine answers: `docker compose up -d postgres|redis` (docker-compose.yml).
#   4. Local binaries (installed with apt when missing and we are root): a Debian cluster started
#      with pg_ctlcluster, else a cluster of our own in .data/postgres; redis-server with its data
#      (AOF) in .data/redis.
#   5. Otherwise: say what to do and exit 1.
# It only makes the servers answer; the `ferry` database is created by the migrate step.
# Idempotent, and fast (a few ms) when both already answer.
#
# Progress goes to stderr only: `pnpm --silent seed --json` runs this and its stdout must stay JSON.
set -euo pipefail
exec 1>&2

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DATA_DIR="$ROOT/.data"
WAIT_SECONDS="${ENSURE_STORES_WAIT_SECONDS:-30}"
LOCAL_PG_URL="postgres://postgres@127.0.0.1:5432/postgres"
LOCAL_REDIS_URL="redis://127.0.0.1:6379/0"

log() { printf 'ensure-stores: %s\n' "$*"; }
die() {
  printf 'ensure-stores: %s\n' "$@"
  exit 1
}
have() { command -v "$1" >/dev/null 2>&1; }
is_root() { [[ "$(id -u)" == 0 ]]; }
# A URL fit for a log line: the password, if any, masked.
redact() { sed -E 's#(://[^:/@]*):[^@/]*@#\1:***@#' <<<"$1"; }

# True when something accepts a TCP connection at the URL's host:port (node is always here).
tcp_answers() { # url default-port
  timeout 5 node -e '
    const u = new URL(process.argv[1]);
    const host = (u.hostname || "127.0.0.1").replace(/^\[|\]$/g, "");
    const socket = require("node:net").connect({ host, port: Number(u.port || process.argv[2]) });
    socket.setTimeout(2000, () => process.exit(1));
    socket.on("connect", () => process.exit(0));
    socket.on("error", () => process.exit(1));
  ' "$1" "$2" >/dev/null 2>&1
}

pg_answers() { # url
  if have pg_isready; then
    PGCONNECT_TIMEOUT=3 pg_isready -q -d "$1" >/dev/null 2>&1
  else
    tcp_answers "$1" 5432
  fi
}

# A redis+sentinel:// URL (packages/core redis-url.ts) answers when one of its Sentinels names a
# master for its master name (redis-cli), or, without redis-cli, when one accepts a connection.
sentinel_answers() { # url
  local rest="${1#redis+sentinel://}"
  rest="${rest#*@}"
  local hosts="${rest%%/*}" name="${rest#*/}"
  name="${name%%[/?]*}"
  local entry host port
  IFS=, read -r -a entries <<<"$hosts"
  for entry in "${entries[@]}"; do
    if [[ "$entry" == \[* ]]; then
      host="${entry#[}" && host="${host%%]*}" && port="${entry##*]}" && port="${port#:}"
    else
      host="${entry%%:*}" && port="${entry#"$host"}" && port="${port#:}"
    fi
    port="${port:-26379}"
    if have redis-cli; then
      [[ -n "$(timeout 5 redis-cli -h "$host" -p "$port" sentinel get-master-addr-by-name "$name" 2>/dev/null)" ]] && return 0
    else
      [[ "$host" == *:* ]] && host="[$host]"
      tcp_answers "redis://$host:$port" 26379 && return 0
    fi
  done
  return 1
}

redis_answers() { # url
  if [[ "$1" == redis+sentinel://* ]]; then
    sentinel_answers "$1"
  elif have redis-cli && [[ "$1" == redis://* ]]; then
    [[ "$(timeout 5 redis-cli --no-auth-warning -u "$1" ping 2>/dev/null)" == PONG ]]
  else
    tcp_answers "$1" 6379
  fi
}

wait_until() { # what, command...
  local what="$1" deadline=$((SECONDS + WAIT_SECONDS))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || die "$what did not answer within ${WAIT_SECONDS}s."
    sleep 0.3
  done
  log "$what answers."
}

docker_usable() {
  have docker && timeout 10 docker info >/dev/null 2>&1 || return 1
  compose version >/dev/null 2>&1
}

compose() {
  if docker compose version >/dev/null 2>&1; then
    docker compose -f "$ROOT/docker-compose.yml" "$@"
  elif have docker-compose; then
    docker-compose -f "$ROOT/docker-compose.yml" "$@"
  else
    return 1
  fi
}

APT_UPDATED=
apt_install() { # packages...
  is_root && have apt-get || return 1
  log "installing $* with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  if [[ -z "$APT_UPDATED" ]]; then
    apt-get update -qq
    APT_UPDATED=1
  fi
  apt-get install -y -qq "$@" >/dev/null
}

# ---------------------------------------------------------------------------------------- Postgres

pg_bin_dir() { # newest Debian PostgreSQL bin dir, or the one initdb is on PATH in
  local dir
  dir="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)"
  if [[ -n "$dir" ]]; then
    echo "$dir"
  elif have initdb && have pg_ctl; then
    dirname "$(command -v initdb)"
  else
    return 1
  fi
}

# Debian's default pg_hba.conf asks for a password on 127.0.0.1; our default URL carries none.
# Only for a cluster this script started: trust loopback connections, as the project expects.
pg_trust_loopback() { # version cluster
  have psql || return 0
  psql "$LOCAL_PG_URL" -Atqc 'select 1' >/dev/null 2>&1 && return 0
  local hba="/etc/postgresql/$1/$2/pg_hba.conf"
  if ! is_root || [[ ! -w "$hba" ]]; then
    log "warning: $LOCAL_PG_URL refuses a passwordless login; set DATABASE_URL with a password."
    return 0
  fi
  log "allowing passwordless (trust) logins from 127.0.0.1 and ::1 in $hba"
  local tmp
  tmp="$(mktemp)"
  {
    echo '# added by ferry infra/ensure-stores.sh: local development trusts loopback'
    echo 'host all all 127.0.0.1/32 trust'
    echo 'host all all ::1/128 trust'
    cat "$hba"
  } >"$tmp"
  cat "$tmp" >"$hba"
  rm -f "$tmp"
  pg_ctlcluster --skip-systemctl-redirect "$1" "$2" reload
}

debian_cluster_5432() { # prints "version cluster" of a Debian cluster configured for port 5432
  have pg_lsclusters && have pg_ctlcluster || return 1
  local found
  # awk reads a here-string: piped, its early exit could end pg_lsclusters by SIGPIPE (pipefail).
  found="$(awk '$3 == 5432 { print $1, $2; exit }' <<<"$(pg_lsclusters -h 2>/dev/null || true)")"
  [[ -n "$found" ]] && echo "$found"
}

start_debian_cluster() { # version cluster
  log "starting PostgreSQL cluster $1/$2 (pg_ctlcluster)"
  if is_root; then
    pg_ctlcluster --skip-systemctl-redirect "$1" "$2" start
  else
    pg_ctlcluster "$1" "$2" start
  fi
  wait_until "PostgreSQL on 127.0.0.1:5432" pg_answers "$LOCAL_PG_URL"
  pg_trust_loopback "$1" "$2"
}

start_own_cluster() { # a trust-auth cluster of our own, listening on 127.0.0.1:5432 only
  local bin="$1" pgdata="$DATA_DIR/postgres" run_as=()
  if is_root; then
    # initdb refuses to run as root: the cluster belongs to the `postgres` user.
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --create-home \
      --shell /bin/bash postgres
    run_as=(runuser -u postgres --)
    mkdir -p "$DATA_DIR"
    if ! "${run_as[@]}" test -x "$DATA_DIR"; then
      # The checkout is not reachable by `postgres` (e.g. under /root): keep the cluster in its home.
      pgdata="$(getent passwd postgres | cut -d: -f6)/ferry-$(cksum <<<"$ROOT" | cut -d' ' -f1)"
    fi
    mkdir -p "$pgdata"
    chown postgres: "$pgdata"
  fi
  mkdir -p "$pgdata"
  chmod 700 "$pgdata"
  if [[ ! -s "$pgdata/PG_VERSION" ]]; then
    log "creating a PostgreSQL cluster in $pgdata"
    "${run_as[@]}" "$bin/initdb" -D "$pgdata" -U postgres -A trust -E UTF8 >/dev/null
    cat >>"$pgdata/postgresql.conf" <<'EOF'

# ferry infra/ensure-stores.sh: local development cluster, TCP on loopback only.
listen_addresses = '127.0.0.1'
port = 5432
unix_socket_directories = ''
EOF
  fi
  log "starting PostgreSQL from $pgdata (log: $pgdata/server.log)"
  "${run_as[@]}" "$bin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w -t "$WAIT_SECONDS" start >/dev/null
  wait_until "PostgreSQL on 127.0.0.1:5432" pg_answers "$LOCAL_PG_URL"
}

ensure_postgres() {
  if [[ -n "${DATABASE_URL:-}" ]]; then
    pg_answers "$DATABASE_URL" || die \
      "DATABASE_URL is set to $(redact "$DATABASE_URL") but no PostgreSQL answers there." \
      "Start that server, correct DATABASE_URL, or unset it to use (or start) a local one on 127.0.0.1:5432."
    return 0
  fi
  pg_answers "$LOCAL_PG_URL" && return 0

  log "nothing answers on 127.0.0.1:5432"
  if docker_usable; then
    log "starting PostgreSQL with docker compose"
    compose up -d postgres
    wait_until "PostgreSQL on 127.0.0.1:5432" pg_answers "$LOCAL_PG_URL"
    return 0
  fi

  local bin cluster
  if ! bin="$(pg_bin_dir)"; then
    apt_install postgresql || true
    # Debian's package creates a 'main' cluster, and in most setups starts it.
    if pg_answers "$LOCAL_PG_URL"; then
      if cluster="$(debian_cluster_5432)"; then
        # shellcheck disable=SC2086 # "version name"
        pg_trust_loopback $cluster
      fi
      log "PostgreSQL on 127.0.0.1:5432 answers."
      return 0
    fi
    bin="$(pg_bin_dir)" || die \
      "PostgreSQL is needed and none could be found or started. Do one of:" \
      "  - set DATABASE_URL to a PostgreSQL 15+ server (e.g. postgres://postgres@host:5432/ferry);" \
      "  - install PostgreSQL (sudo apt-get install -y postgresql) and run this script again;" \
      "  - start a Docker engine, then run this script again (it runs docker compose up -d postgres)."
  fi
  if cluster="$(debian_cluster_5432)"; then
    # shellcheck disable=SC2086 # "version name"
    start_debian_cluster $cluster
  else
    start_own_cluster "$bin"
  fi
}

# ------------------------------------------------------------------------------------------- Redis

start_local_redis() {
  local dir="$DATA_DIR/redis"
  mkdir -p "$dir"
  log "starting redis-server on 127.0.0.1:6379 (data and log in $dir)"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --dir "$dir" \
    --appendonly yes --logfile "$dir/redis.log" --pidfile "$dir/redis.pid" >/dev/null
  wait_until "Redis on 127.0.0.1:6379" redis_answers "$LOCAL_REDIS_URL"
}

ensure_redis() {
  if [[ -n "${REDIS_URL:-}" ]]; then
    redis_answers "$REDIS_URL" || die \
      "REDIS_URL is set to $(redact "$REDIS_URL") but no Redis answers there." \
      "Start that server, correct REDIS_URL, or unset it to use (or start) a local one on 127.0.0.1:6379."
    return 0
  fi
  redis_answers "$LOCAL_REDIS_URL" && return 0

  log "nothing answers on 127.0.0.1:6379"
  if docker_usable; then
    log "starting Redis with docker compose"
    compose up -d redis
    wait_until "Redis on 127.0.0.1:6379" redis_answers "$LOCAL_REDIS_URL"
    return 0
  fi

  if ! have redis-server; then
    apt_install redis-server || true
    # Debian's package may have started its own service already.
    redis_answers "$LOCAL_REDIS_URL" && return 0
    have redis-server || die \
      "Redis is needed and none could be found or started. Do one of:" \
      "  - set REDIS_URL to a Redis 7 server (e.g. redis://host:6379/0);" \
      "  - install Redis (sudo apt-get install -y redis-server) and run this script again;" \
      "  - start a Docker engine, then run this script again (it runs docker compose up -d redis)."
  fi
  start_local_redis
}

ensure_postgres
ensure_redis
