"""The Prometheus alert rules under deploy/prometheus: valid for ``promtool``, every rule proven
to fire and to stay quiet by ``promtool test rules``, and written over metrics the product
exports."""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Any

import pytest
import yaml
from prometheus_client.metrics_core import Metric

from arena_api.metrics import ArenaMetrics
from tests.support import ROOT

RULES_DIR = ROOT / "deploy" / "prometheus"
RULES = RULES_DIR / "alerts.yml"
RULE_TESTS = RULES_DIR / "alerts.test.yml"
PROMTOOL = shutil.which("promtool")
#: The series each metric type exposes, by suffix.
SUFFIXES = {
    "counter": ("_total",),
    "gauge": ("",),
    "histogram": ("_bucket", "_count", "_sum"),
}

needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool is not installed (`make test` installs Debian's prometheus)"
)


def _alerts() -> list[dict[str, Any]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def _promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run(
        [PROMTOOL, *args], cwd=RULES_DIR, capture_output=True, text=True, timeout=60, check=False
    )


def _exported(family: Metric) -> set[str]:
    return {family.name + suffix for suffix in SUFFIXES[family.type]}


@needs_promtool
def test_promtool_accepts_the_rules() -> None:
    checked = _promtool("check", "rules", RULES.name)

    assert checked.returncode == 0, checked.stdout + checked.stderr


@needs_promtool
def test_every_rule_fires_and_stays_quiet_as_its_unit_tests_say() -> None:
    tested = _promtool("test", "rules", RULE_TESTS.name)

    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_every_alert_is_shown_firing_and_quiet_in_the_unit_tests() -> None:
    cases = [
        case
        for test in yaml.safe_load(RULE_TESTS.read_text())["tests"]
        for case in test["alert_rule_test"]
    ]
    firing = {case["alertname"] for case in cases if case["exp_alerts"]}
    quiet = {case["alertname"] for case in cases if not case["exp_alerts"]}

    names = {rule["alert"] for rule in _alerts()}
    assert firing == names
    assert quiet == names


@pytest.mark.parametrize("rule", _alerts(), ids=lambda rule: rule["alert"])
def test_every_alert_has_a_severity_a_summary_a_description_and_a_delay(
    rule: dict[str, Any],
) -> None:
    assert rule["labels"]["severity"] in {"critical", "warning", "info"}
    assert rule["annotations"]["summary"] and rule["annotations"]["description"]
    assert re.fullmatch(r"\d+[sm]", rule["for"])


def test_the_rules_read_only_metrics_the_product_exports() -> None:
    exported = {name for family in ArenaMetrics().registry.collect() for name in _exported(family)}

    used = {name for rule in _alerts() for name in re.findall(r"\barena_\w+", rule["expr"])}

    assert used <= exported, sorted(used - exported)
