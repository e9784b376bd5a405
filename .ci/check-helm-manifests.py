#!/usr/bin/env python3
"""Checks the manifests `helm template` rendered from infra/helm/patchbay against the values they came from.

Usage: check-helm-manifests.py RENDERED.yaml RELEASE VALUES.yaml [MORE_VALUES.yaml ...]

For every enabled app: a Deployment running <prefix>/<app>:<tag> on its port with readiness, liveness
and startup probes on /healthz, resources (requests and limits), a read-only root filesystem, every
secretEnv key from a Secret; a ClusterIP Service selecting its pods; an HPA aimed at it when autoscaling
is on (and no fixed replicas then), fixed replicas and no HPA when it is off; a PodDisruptionBudget
selecting its pods when enabled; its URL in the ConfigMap; its migration Job (a pre-install/pre-upgrade
hook running its schema) when migrations are on. The same for each enabled worker (no Service), and
nothing at all for a disabled app. With the chart's default values, every folder of apps/ must have an
entry under `services`. Exits 1 listing every problem.
"""
import copy
import os
import sys

import yaml

rendered_path, release = sys.argv[1], sys.argv[2]
values_files = sys.argv[3:]
problems = []


def merge(base, over):
    """Helm's merge of values files: maps merge key by key, anything else replaces."""
    out = copy.deepcopy(base)
    for key, value in (over or {}).items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


values = {}
for path in values_files:
    with open(path) as f:
        values = merge(values, yaml.safe_load(f) or {})
with open(rendered_path) as f:
    docs = [d for d in yaml.safe_load_all(f) if d]

objects = {}
for doc in docs:
    objects[(doc["kind"], doc["metadata"]["name"])] = doc

fullname = release if "patchbay" in release else f"{release}-patchbay"
defaults = values.get("defaults", {})
tag = str(values.get("image", {}).get("tag") or "")


def setting(svc, key):
    return svc[key] if key in svc else defaults.get(key)


def expect(condition, message):
    if not condition:
        problems.append(message)


def container_of(deployment):
    return deployment["spec"]["template"]["spec"]["containers"][0]


REDIS_CONCERNS = {"REDIS_URL": "url", "REDIS_QUEUE_URL": "queueUrl", "REDIS_COUNTERS_URL": "countersUrl", "REDIS_CACHE_URL": "cacheUrl"}


def check_workload(name, svc, app, kind):
    deployment = objects.get(("Deployment", f"{fullname}-{name}"))
    if not deployment:
        problems.append(f"{name}: no Deployment {fullname}-{name}")
        return None
    pod = deployment["spec"]["template"]
    labels = pod["metadata"]["labels"]
    expect(deployment["spec"]["selector"]["matchLabels"].items() <= labels.items(), f"{name}: the Deployment's selector does not match its pods")
    c = container_of(deployment)
    image = svc.get("image") or {}
    repository = image.get("repository") or f"{values['image']['prefix']}/{app}"
    if tag or image.get("tag"):
        expect(c["image"] == f"{repository}:{image.get('tag') or tag}", f"{name}: image {c['image']}, expected {repository}:{image.get('tag') or tag}")
    else:
        expect(c["image"].startswith(f"{repository}:"), f"{name}: image {c['image']} is not {repository}:<tag>")
    ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
    expect(ports.get("http") == svc["port"], f"{name}: container port http is {ports.get('http')}, expected {svc['port']}")
    env = {e["name"]: e for e in c.get("env", [])}
    expect(env.get("PORT", {}).get("value") == str(svc["port"]), f"{name}: PORT is not {svc['port']}")
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        http = (c.get(probe) or {}).get("httpGet") or {}
        expect(http.get("path") == "/healthz" and http.get("port") == "http", f"{name}: {probe} is not an HTTP GET of /healthz on port http")
    resources = c.get("resources") or {}
    for part in ("requests", "limits"):
        for unit in ("cpu", "memory"):
            expect(unit in (resources.get(part) or {}), f"{name}: resources.{part}.{unit} is not set")
    expect((c.get("securityContext") or {}).get("readOnlyRootFilesystem") is True, f"{name}: the root filesystem is not read-only")
    expect(pod["spec"].get("securityContext", {}).get("runAsNonRoot") is True, f"{name}: pods may run as root")
    redis = values.get("redis") or {}
    for key in svc.get("secretEnv") or []:
        if key == "REDIS_URL" and redis.get("url"):
            continue
        ref = (env.get(key, {}).get("valueFrom") or {}).get("secretKeyRef") or {}
        expect(ref.get("key") == key and ref.get("name"), f"{name}: {key} does not come from a Secret")
    # Redis per concern: a plain value from `redis`, else the Secret's optional key (REDIS_URL: required).
    if "REDIS_URL" in (svc.get("secretEnv") or []):
        for key, field in REDIS_CONCERNS.items():
            entry = env.get(key, {})
            ref = (entry.get("valueFrom") or {}).get("secretKeyRef") or {}
            if redis.get(field):
                expect(entry.get("value") == redis[field] and not ref, f"{name}: {key} is not redis.{field} ({redis[field]!r})")
            elif key != "REDIS_URL" and redis.get("splitFromSecret"):
                expect(ref.get("key") == key and ref.get("optional") is True, f"{name}: {key} does not come from the Secret's optional key")
            elif key != "REDIS_URL":
                expect(key not in env, f"{name}: {key} is set although neither redis.{field} nor redis.splitFromSecret is")
    else:
        for key in REDIS_CONCERNS:
            expect(key not in env, f"{name}: {key} is set on a workload without Redis")
    # A read replica only where the app reads lists and usage from one, and never on its workers.
    ref = (env.get("DATABASE_READ_URL", {}).get("valueFrom") or {}).get("secretKeyRef") or {}
    if svc.get("readReplica") and kind == "app" and (values.get("database") or {}).get("readUrlFromSecret"):
        expect(ref.get("key") == "DATABASE_READ_URL" and ref.get("optional") is True, f"{name}: DATABASE_READ_URL does not come from the Secret's optional key")
    else:
        expect("DATABASE_READ_URL" not in env, f"{name}: DATABASE_READ_URL is set although the app does not read from a replica")
    for key, value in (svc.get("env") or {}).items():
        expect(env.get(key, {}).get("value") == str(value), f"{name}: env {key} is not {value!r}")
    if svc.get("vendorKeys") and values.get("secrets", {}).get("vendorKeysSecret"):
        refs = [e.get("secretRef", {}).get("name") for e in c.get("envFrom", [])]
        expect(values["secrets"]["vendorKeysSecret"] in refs, f"{name}: the vendor keys Secret is not passed")
    if kind == "worker":
        expect(c.get("command") == svc.get("command"), f"{name}: command {c.get('command')} is not {svc.get('command')}")
        expect(("Service", f"{fullname}-{name}") not in objects, f"{name}: a worker needs no Service")
    autoscaling = setting(svc, "autoscaling") or {}
    hpa = objects.get(("HorizontalPodAutoscaler", f"{fullname}-{name}"))
    if autoscaling.get("enabled"):
        expect(hpa is not None, f"{name}: autoscaling is on but there is no HorizontalPodAutoscaler")
        if hpa:
            target = hpa["spec"]["scaleTargetRef"]
            expect(target["kind"] == "Deployment" and target["name"] == deployment["metadata"]["name"], f"{name}: the HPA does not scale its Deployment")
            expect(hpa["spec"]["maxReplicas"] == autoscaling["maxReplicas"], f"{name}: HPA maxReplicas differs from the values")
        expect("replicas" not in deployment["spec"], f"{name}: a fixed replica count fights the HPA")
    else:
        expect(hpa is None, f"{name}: autoscaling is off but an HPA exists")
        expect(deployment["spec"].get("replicas") == setting(svc, "replicas"), f"{name}: replicas is not {setting(svc, 'replicas')}")
    pdb_values = setting(svc, "podDisruptionBudget") or {}
    pdb = objects.get(("PodDisruptionBudget", f"{fullname}-{name}"))
    if pdb_values.get("enabled"):
        expect(pdb is not None and pdb["spec"]["selector"]["matchLabels"].items() <= labels.items(), f"{name}: no PodDisruptionBudget selecting its pods")
    else:
        expect(pdb is None, f"{name}: the PodDisruptionBudget is off but one exists")
    return deployment


services = values.get("services", {})
configmap = objects.get(("ConfigMap", f"{fullname}-config"), {}).get("data", {})
migrations = values.get("migrations", {}).get("enabled")
checked = []
for app, svc in services.items():
    workers = {w: s for w, s in (svc.get("workers") or {}).items() if s.get("enabled")}
    if not svc.get("enabled"):
        leftovers = [k for k in objects if k[1] == f"{fullname}-{app}" or k[1].startswith(f"{fullname}-{app}-")]
        expect(not leftovers, f"{app}: disabled, yet {leftovers} rendered")
        continue
    app_env = dict(svc.get("env") or {})
    for worker in workers.values():
        app_env.update(worker.get("appEnv") or {})
    deployment = check_workload(app, {**svc, "env": app_env}, app, "app")
    checked.append(app)
    service = objects.get(("Service", f"{fullname}-{app}"))
    if not service:
        problems.append(f"{app}: no Service")
    elif deployment:
        expect(service["spec"]["type"] == "ClusterIP", f"{app}: the Service is not ClusterIP")
        expect(service["spec"]["ports"][0]["port"] == svc["port"] and service["spec"]["ports"][0]["targetPort"] == "http", f"{app}: the Service does not forward port {svc['port']} to http")
        expect(service["spec"]["selector"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items(), f"{app}: the Service selects no pod of the app")
    if svc.get("urlEnv"):
        expect(configmap.get(svc["urlEnv"]) == f"http://{fullname}-{app}:{svc['port']}", f"{app}: ConfigMap {svc['urlEnv']} is {configmap.get(svc['urlEnv'])}")
    job = objects.get(("Job", f"{fullname}-{app}-migrate"))
    if migrations and svc.get("schema"):
        if not job:
            problems.append(f"{app}: migrations are on but there is no Job {fullname}-{app}-migrate")
        else:
            hooks = set(job["metadata"].get("annotations", {}).get("helm.sh/hook", "").split(","))
            expect({"pre-install", "pre-upgrade"} <= hooks, f"{app}: the migration Job is not a pre-install/pre-upgrade hook")
            command = container_of({"spec": job["spec"]})["command"]
            expect(svc["schema"] in command and "prisma/migrations" in command, f"{app}: the migration Job does not migrate schema {svc['schema']}")
            expect(container_of({"spec": job["spec"]})["image"] == container_of(deployment)["image"] if deployment else False, f"{app}: the migration Job runs another image than the app")
    else:
        expect(job is None, f"{app}: a migration Job exists although migrations are off or the app has no schema")
    for worker, wsvc in workers.items():
        inherited = {k: svc[k] for k in ("secretEnv", "existingSecret", "image", "vendorKeys", "extraEnv") if k in svc}
        merged = {**inherited, **{k: v for k, v in wsvc.items() if k not in ("env", "appEnv", "enabled")}, "env": {**(svc.get("env") or {}), **(wsvc.get("env") or {})}}
        check_workload(f"{app}-{worker}", merged, app, "worker")
        checked.append(f"{app}-{worker}")
if migrations:
    expect(configmap.get("PATCHBAY_MIGRATE_ON_START") == "false", "migrations run as Jobs, yet the apps still migrate at start")

# The chart must know every app of the repository (checked on the chart's own values.yaml alone).
repo = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
if len(values_files) == 1:
    for app in sorted(os.listdir(os.path.join(repo, "apps"))):
        if os.path.isfile(os.path.join(repo, "apps", app, "package.json")):
            expect(app in services, f"apps/{app} has no entry under services in {values_files[0]}")

for p in problems:
    print(f"check-helm-manifests: {p}", file=sys.stderr)
if problems:
    print(f"check-helm-manifests: {len(problems)} problem(s) in {rendered_path}", file=sys.stderr)
    sys.exit(1)
print(f"check-helm-manifests: {len(checked)} workload(s) checked ({', '.join(checked)})")
