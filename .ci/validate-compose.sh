#!/usr/bin/env bash
# Validates docker-compose.yml without a Docker engine: the compose file must parse and interpolate
# (`docker-compose config`), and every Dockerfile it builds from must exist and name its own app.
# Usage: .ci/validate-compose.sh [path/to/docker-compose.yml]   (exits non-zero on any problem)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
compose_file="${1:-$repo_root/docker-compose.yml}"
[ -f "$compose_file" ] || { echo "validate-compose: $compose_file not found" >&2; exit 1; }
compose_file="$(cd "$(dirname "$compose_file")" && pwd)/$(basename "$compose_file")"

if ! command -v docker-compose >/dev/null 2>&1; then
  echo "validate-compose: installing docker-compose (Debian package)"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # The package lists may be stale on a fresh machine: refresh them only when the first try fails.
  if ! $sudo apt-get install -y -qq --no-install-recommends docker-compose >/dev/null; then
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends docker-compose >/dev/null
  fi
fi

# Variables the file interpolates with defaults must not be required: validate with a clean slate
# for them so a developer's own exports cannot hide a missing default.
unset PATCHBAY_SERVICE_TOKEN POSTGRES_PASSWORD PATCHBAY_PUBLIC_URL LOG_LEVEL PATCHBAY_PORT

project_dir="$(dirname "$compose_file")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The resolved form, as docker compose would run it (interpolated, merged, paths made absolute).
# A clean file prints nothing on stderr; anything there (an unset variable, a deprecated key) fails.
# Secrets the file requires (${VAR:?...}) get dummy values: this checks the file, not a deployment.
export PATCHBAY_ENCRYPTION_KEYS="${PATCHBAY_ENCRYPTION_KEYS:-validate:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=}"
if ! docker-compose --project-directory "$project_dir" -f "$compose_file" config >"$work/resolved.yml" 2>"$work/stderr"; then
  cat "$work/stderr" >&2
  echo "validate-compose: $compose_file is not a valid compose file" >&2
  exit 1
fi
if [ -s "$work/stderr" ]; then
  cat "$work/stderr" >&2
  echo "validate-compose: docker-compose warned about $compose_file" >&2
  exit 1
fi
docker-compose --project-directory "$project_dir" -f "$compose_file" config -q

# docker-compose depends on PyYAML, so python3 can read the resolved file.
python3 - "$work/resolved.yml" >"$work/builds.tsv" <<'PY'
import sys, yaml
with open(sys.argv[1]) as f:
    doc = yaml.safe_load(f)
for name, svc in (doc.get("services") or {}).items():
    build = svc.get("build")
    if build is None:
        continue
    if isinstance(build, str):
        build = {"context": build}
    print("\t".join([name, build.get("context", "."), build.get("dockerfile", "Dockerfile")]))
PY

# Every build must point at an existing Dockerfile inside its context; an app's service is named after
# the app, and its Dockerfile defaults APP to the app's directory name (they are copies of one template).
problems=0
checked=0
while IFS=$'\t' read -r service context dockerfile; do
  checked=$((checked + 1))
  path="$context/$dockerfile"
  case "$dockerfile" in /*) path="$dockerfile" ;; esac
  if [ ! -f "$path" ]; then
    echo "validate-compose: service $service builds from $path, which does not exist" >&2
    problems=$((problems + 1))
    continue
  fi
  if [[ "$dockerfile" =~ ^apps/([^/]+)/Dockerfile$ ]]; then
    app="${BASH_REMATCH[1]}"
    if [ "$service" != "$app" ]; then
      echo "validate-compose: service $service builds apps/$app; name the service $app" >&2
      problems=$((problems + 1))
    fi
    if ! grep -Eq "^ARG APP=${app}\$" "$path"; then
      echo "validate-compose: $path does not default APP to $app" >&2
      problems=$((problems + 1))
    fi
  fi
done <"$work/builds.tsv"

if [ "$checked" -eq 0 ]; then
  echo "validate-compose: $compose_file builds no image" >&2
  problems=$((problems + 1))
fi
# An app that ships a Dockerfile belongs in the repository's compose file.
if [ "$compose_file" = "$repo_root/docker-compose.yml" ]; then
  for dockerfile in "$repo_root"/apps/*/Dockerfile; do
    [ -f "$dockerfile" ] || continue
    relative="${dockerfile#"$repo_root"/}"
    if ! cut -f3 "$work/builds.tsv" | grep -qxF "$relative"; then
      echo "validate-compose: $relative is not built by any service in docker-compose.yml" >&2
      problems=$((problems + 1))
    fi
  done
fi

if [ "$problems" -gt 0 ]; then
  echo "validate-compose: $problems problem(s) in $compose_file" >&2
  exit 1
fi
echo "validate-compose: $compose_file is valid ($checked image build(s) checked)"
