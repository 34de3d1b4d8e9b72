"""The rules of starting an evaluation run (no database, no network): the endpoint and model
asked for, the export's state, and hidden labels bound for another machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluation.release import ReleasePart
from evaluation.rules import (
    MAX_MODEL,
    EvaluationRefused,
    check_export_ready,
    check_hidden_labels,
    check_run_request,
)

LOCAL, REMOTE = "http://127.0.0.1:8000/v1", "http://203.0.113.5/v1"


def test_the_endpoint_must_be_configured_and_the_model_named():
    with pytest.raises(EvaluationRefused, match="No endpoint 'x' is configured; endpoints: a, b"):
        check_run_request(endpoint="x", endpoints=["b", "a"], model="m")
    with pytest.raises(EvaluationRefused, match=r"endpoints: none \(set EVALUATION_ENDPOINTS\)"):
        check_run_request(endpoint="x", endpoints=[], model="m")
    with pytest.raises(EvaluationRefused, match="Name the model"):
        check_run_request(endpoint="a", endpoints=["a"], model="  ")
    with pytest.raises(EvaluationRefused, match="Nothing was recorded"):
        check_run_request(endpoint="a", endpoints=["a"], model="m" * (MAX_MODEL + 1))
    assert check_run_request(endpoint="a", endpoints=["a"], model=" gpt-4o ") == "gpt-4o"


def test_the_export_must_be_finished_and_still_there():
    check_export_ready(status="finished", folder_exists=True)
    for status, exists in (("finished", False), ("running", True), (None, True)):
        with pytest.raises(EvaluationRefused, match="not finished"):
            check_export_ready(status=status, folder_exists=exists)


def test_hidden_labels_leave_this_machine_only_when_confirmed():
    hidden = ReleasePart(Path("r"), "test", "r", [], hidden=True)
    with pytest.raises(EvaluationRefused, match="The test labels of this release are hidden"):
        check_hidden_labels(hidden, endpoint=REMOTE, confirmed=False)
    assert check_hidden_labels(hidden, endpoint=REMOTE, confirmed=True) is True
    assert check_hidden_labels(hidden, endpoint=LOCAL, confirmed=False) is False
    shown = ReleasePart(Path("r"), "validation", "r", [], hidden=False)
    assert check_hidden_labels(shown, endpoint=REMOTE, confirmed=False) is False
