#!/usr/bin/env bash
# Validates docker-compose.yml without a Docker engine: the file must parse and interpolate
# (`docker-compose config`) without a warning, and its services must match the apps of the repository:
#   - every image is built from the one ./Dockerfile with the build argument APP naming a folder of apps/
#     (a service for an app whose code has not landed yet must sit behind a profile);
#   - an app's service is named after the app, its workers `<app>-worker...`, and they run its image;
#   - PORT in the environment is the PORT build argument; a worker runs an entry point its app has;
#   - every app in apps/ has a service, and the edge router has a *_URL for every app behind it.
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
unset PATCHBAY_SERVICE_TOKEN POSTGRES_PASSWORD PATCHBAY_PUBLIC_URL LOG_LEVEL PATCHBAY_PORT QUEUE_PREFIX \
  OTEL_EXPORTER_OTLP_ENDPOINT MODEL_GATEWAY_URL UNIFIED_DATA_URL \
  PATCHBAY_VENDOR_OPENAI_API_KEY PATCHBAY_VENDOR_ANTHROPIC_API_KEY PATCHBAY_VENDOR_GOOGLE_API_KEY

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
python3 - "$work/resolved.yml" "$project_dir" "$([ "$compose_file" = "$repo_root/docker-compose.yml" ] && echo repo || echo other)" <<'PY'
import os, re, sys, yaml

resolved, project_dir, which = sys.argv[1], sys.argv[2], sys.argv[3]
with open(resolved) as f:
    services = (yaml.safe_load(f) or {}).get("services") or {}
apps_dir = os.path.join(project_dir, "apps")
landed = sorted(d for d in os.listdir(apps_dir) if os.path.isfile(os.path.join(apps_dir, d, "package.json"))) if os.path.isdir(apps_dir) else []
problems = []
app_services = {}

def env_of(svc):
    env = svc.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, None) for item in env)
    return env

for name, svc in services.items():
    build = svc.get("build")
    if build is None:
        continue
    if isinstance(build, str):
        build = {"context": build}
    context = build.get("context", ".")
    dockerfile = build.get("dockerfile", "Dockerfile")
    path = dockerfile if os.path.isabs(dockerfile) else os.path.join(context, dockerfile)
    args = build.get("args") or {}
    if isinstance(args, list):
        args = dict(a.split("=", 1) for a in args)
    if os.path.realpath(path) != os.path.realpath(os.path.join(project_dir, "Dockerfile")):
        problems.append(f"service {name} builds from {path}; every app builds from the one ./Dockerfile")
    if not os.path.isfile(path):
        problems.append(f"service {name} builds from {path}, which does not exist")
    app = args.get("APP")
    if not app:
        problems.append(f"service {name} has no build argument APP")
        continue
    if app not in landed and not svc.get("profiles"):
        problems.append(f"service {name} builds apps/{app}, which does not exist: put it behind a profile until the app lands")
    worker = name != app
    if worker and not name.startswith(app + "-worker"):
        problems.append(f"service {name} builds apps/{app}: name the app's service {app} and its workers {app}-worker...")
    image = svc.get("image", "")
    if image and not image.startswith(f"patchbay/{app}:"):
        problems.append(f"service {name} builds apps/{app} but tags the image {image}")
    port = str(env_of(svc).get("PORT", ""))
    if not worker:
        app_services[app] = svc
        if str(args.get("PORT", "")) != port:
            problems.append(f"service {name}: PORT {port or '(unset)'} differs from the build argument PORT {args.get('PORT')}")
    else:
        command = svc.get("command") or []
        if isinstance(command, str):
            command = command.split()
        entry = next((c for c in command if re.match(r"^dist/.+\.js$", c)), None)
        if not entry:
            problems.append(f"worker service {name} must run an entry point of its app, e.g. [\"node\", \"dist/worker.js\"]")
        elif app in landed:
            source = os.path.join(apps_dir, app, "src", entry[len("dist/"):-3] + ".ts")
            if not os.path.isfile(source):
                problems.append(f"worker service {name} runs {entry}, but apps/{app} has no src/{entry[5:-3]}.ts")
        if not port:
            problems.append(f"worker service {name} needs a PORT for its /healthz")

if not app_services:
    problems.append("the file builds no app image")
if which == "repo":
    for app in landed:
        if app not in app_services:
            problems.append(f"apps/{app} has no service in docker-compose.yml (name it {app}, built with APP={app})")
    edge = services.get("edge-router")
    if edge:
        edge_env = env_of(edge)
        for app in app_services:
            if app == "edge-router":
                continue
            variable = re.sub(r"[^A-Z0-9]", "_", app.upper()) + "_URL"
            if app == "access-keys-and-audit":
                variable = "ACCESS_KEYS_URL"
            if variable not in edge_env:
                problems.append(f"edge-router has no {variable} for {app}")

for p in problems:
    print(f"validate-compose: {p}", file=sys.stderr)
if problems:
    print(f"validate-compose: {len(problems)} problem(s)", file=sys.stderr)
    sys.exit(1)
print(f"validate-compose: valid ({len(app_services)} app image(s), {sum(1 for s in services.values() if s.get('build'))} build(s), apps in the repository: {', '.join(landed)})")
PY
