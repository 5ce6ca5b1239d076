"""The Kubernetes manifests under deploy/k8s: valid against the API schemas (kubernetes-validate,
strict: no unknown fields), and wired to one another and to the app as documented."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.support import ROOT

K8S = ROOT / "deploy" / "k8s"
#: The newest schemas the validator ships, and an older release still widely run.
VERSIONS = (kubernetes_validate.latest_version(), "1.30.0")


def _documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def _manifests() -> dict[tuple[str, str], dict[str, Any]]:
    """Every resource of the kustomization (and the example Secret), by (kind, name)."""
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    files = [*kustomization["resources"], "secret.example.yaml"]
    return {
        (doc["kind"], doc["metadata"]["name"]): doc
        for name in files
        for doc in _documents(K8S / name)
    }


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("path", sorted(K8S.glob("*.yaml")), ids=lambda p: p.name)
def test_each_manifest_is_valid_for_kubernetes(path: Path, version: str) -> None:
    if path.name == "kustomization.yaml":
        kustomization = yaml.safe_load(path.read_text())
        listed = set(kustomization["resources"])
        assert listed == {p.name for p in K8S.glob("*.yaml")} - {path.name, "secret.example.yaml"}
        return
    for document in _documents(path):
        kubernetes_validate.validate(document, version, strict=True)


def test_the_app_is_probed_on_health_and_shares_redis_and_the_secret() -> None:
    resources = _manifests()
    app = resources[("Deployment", "arena-app")]["spec"]
    container = app["template"]["spec"]["containers"][0]
    env = {item["name"]: item.get("value") for item in container["env"]}

    assert app["replicas"] >= 2
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/health", "port": "http"}
    assert container["ports"] == [{"name": "http", "containerPort": 3001}]
    assert env["ARENA_RATING_WORKER"] == "off"
    redis_service = resources[("Service", env["REDIS_URL"].split("//")[1].split(":")[0])]
    assert env["REDIS_URL"].endswith(f":{redis_service['spec']['ports'][0]['port']}/0")
    secret = resources[("Secret", container["envFrom"][0]["secretRef"]["name"])]
    assert {"DATABASE_URL", "MATCHUP_TOKEN_SECRET"} <= set(secret["stringData"])


def test_one_rating_worker_the_service_and_the_ingress_reach_the_app() -> None:
    resources = _manifests()
    worker = resources[("Deployment", "arena-worker")]["spec"]
    service = resources[("Service", "arena")]["spec"]
    ingress = resources[("Ingress", "arena")]["spec"]
    app_labels = resources[("Deployment", "arena-app")]["spec"]["template"]["metadata"]["labels"]

    assert worker["replicas"] == 1 and worker["strategy"]["type"] == "Recreate"
    command = worker["template"]["spec"]["containers"][0]["command"]
    assert command == ["arena", "rate", "--loop", "--style"]
    assert service["selector"].items() <= app_labels.items()
    assert service["ports"][0]["targetPort"] == "http"
    backend = ingress["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend == {"name": "arena", "port": {"name": service["ports"][0]["name"]}}


def test_the_validator_refuses_a_misspelt_field() -> None:
    app = _manifests()[("Deployment", "arena-app")]
    broken = {**app, "spec": {**app["spec"], "replica": 2}}

    with pytest.raises(kubernetes_validate.ValidationError, match="replica"):
        kubernetes_validate.validate(broken, VERSIONS[0], strict=True)
