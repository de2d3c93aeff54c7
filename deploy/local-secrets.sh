#!/usr/bin/env bash
# Generates the secrets of a local deployment into two files that git ignores, readable by their owner only:
#
#   .env                              (repository root) read by `docker compose` by itself: GRAPH_JWT_SECRET,
#                                     GRAPH_TOKEN_SECRET, GRAPH_CURSOR_KEY, GRAPH_SERVICE_TOKEN, POSTGRES_PASSWORD,
#                                     GRAFANA_ADMIN_PASSWORD
#   deploy/overlays/local/secrets.env the local Kustomize overlay's Secret graph-secrets: jwt-secret, token-secret,
#                                     cursor-key, service-token, postgres-password (the keys the base's pods read)
#
# Both files get the same value for the same secret, so a token minted with .env's GRAPH_JWT_SECRET works against
# either deployment. Each value is 48 random bytes from /dev/urandom, base64url without padding: 64 characters,
# twice the 32 bytes the services require of the JWT secret, the follow-token secret, the cursor key and the
# service credential (GatewayProperties, WriteProperties, CheckProperties, ServiceGuardProperties); the launcher's
# Secrets makes its own the same way.
#
# Idempotent: a value already in either file is kept (and copied into the other one if missing); other lines of .env
# are left alone. --force replaces every value (the deployment then needs a restart, and PostgreSQL, which set its
# password when its data directory was created, a fresh volume: `docker compose down -v`).
#
#   deploy/local-secrets.sh [--force]
set -euo pipefail

usage() {
  echo "usage: $0 [--force]" >&2
  exit 2
}

force=false
case $# in
  0) ;;
  1) [ "$1" = --force ] || usage; force=true ;;
  *) usage ;;
esac

root="$(cd "$(dirname "$0")/.." && pwd)"
compose_file="$root/.env"
kustomize_file="$root/deploy/overlays/local/secrets.env"

# compose variable, Kustomize key, minimum length in bytes (0: none)
secrets=(
  "GRAPH_JWT_SECRET jwt-secret 32"
  "GRAPH_TOKEN_SECRET token-secret 32"
  "GRAPH_CURSOR_KEY cursor-key 32"
  "GRAPH_SERVICE_TOKEN service-token 32"
  "POSTGRES_PASSWORD postgres-password 0"
  "GRAFANA_ADMIN_PASSWORD - 0"
)

# The value of NAME in FILE (the last NAME=... line), empty when absent.
value_of() {
  local file=$1 name=$2
  [ -f "$file" ] || return 0
  sed -n "s/^${name}=//p" "$file" | tail -n 1
}

random_value() {
  head -c 48 /dev/urandom | base64 | tr -d '\n=' | tr '+/' '-_'
}

# Removes the NAME=... lines from FILE in place (no sed -i: GNU and BSD sed spell it differently).
drop() {
  local file=$1 name=$2 kept
  kept="$(grep -v "^${name}=" "$file" || true)"
  if [ -n "$kept" ]; then printf '%s\n' "$kept" >"$file"; else : >"$file"; fi
}

# Check every value that is kept (all of them but with --force) before writing anything.
if ! $force; then
  for entry in "${secrets[@]}"; do
    read -r variable key minimum <<<"$entry"
    kept=("$(value_of "$compose_file" "$variable")")
    [ "$key" = - ] || kept+=("$(value_of "$kustomize_file" "$key")")
    for value in "${kept[@]}"; do
      if [ -n "$value" ] && [ "${#value}" -lt "$minimum" ]; then
        echo "$0: $variable ($key) is shorter than $minimum bytes; fix it or run with --force" >&2
        exit 1
      fi
    done
  done
fi

umask 077
touch "$compose_file" "$kustomize_file"
if $force; then
  for entry in "${secrets[@]}"; do
    read -r variable key _ <<<"$entry"
    # The loop below writes new values.
    drop "$compose_file" "$variable"
    [ "$key" = - ] || drop "$kustomize_file" "$key"
  done
fi

# A file that does not end in a newline would glue the first appended line to its last one.
for file in "$compose_file" "$kustomize_file"; do
  if [ -s "$file" ] && [ -n "$(tail -c 1 "$file")" ]; then
    echo >>"$file"
  fi
done

written=0
for entry in "${secrets[@]}"; do
  read -r variable key _ <<<"$entry"
  in_compose="$(value_of "$compose_file" "$variable")"
  in_kustomize=""
  [ "$key" = - ] || in_kustomize="$(value_of "$kustomize_file" "$key")"
  value="${in_compose:-${in_kustomize:-$(random_value)}}"
  if [ -z "$in_compose" ]; then
    echo "$variable=$value" >>"$compose_file"
    written=$((written + 1))
  fi
  if [ "$key" != - ] && [ -z "$in_kustomize" ]; then
    echo "$key=$value" >>"$kustomize_file"
    written=$((written + 1))
  fi
done

chmod 600 "$compose_file" "$kustomize_file"
echo "$written value(s) written to ${compose_file#"$root"/} and ${kustomize_file#"$root"/}"
