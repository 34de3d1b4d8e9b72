"""The OpenAPI schema (/api/schema/) names every API route of the URL resolver with each method
its view has, and what each answers on success: JSON with a schema, or a file (a download).
No path in the schema is without a route."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db

NOT_ROUTES = {"schema", "docs", "unknown"}  # the schema, its docs, the JSON 404
METHODS = ("get", "post", "put", "patch", "delete")


def api_routes() -> dict[str, tuple[str, list[str]]]:
    """Route name -> (its path as OpenAPI spells it, the methods its view has)."""
    found: dict[str, tuple[str, list[str]]] = {}

    def walk(patterns, namespace: str, prefix: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, p.namespace or namespace, prefix + str(p.pattern))
            elif isinstance(p, URLPattern) and namespace == "api" and p.name not in NOT_ROUTES:
                view = getattr(p.callback, "cls", None)
                assert view is not None, f"api:{p.name} is not a DRF view"
                allowed = getattr(view, "http_method_names", METHODS)
                methods = [m for m in METHODS if m in allowed and hasattr(view, m)]
                path = "/" + re.sub(r"<(?:[^>:]+:)?([^>]+)>", r"{\1}", prefix + str(p.pattern))
                found[f"api:{p.name}"] = (path, methods)

    walk(get_resolver().url_patterns, "", "")
    return found


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        response = Client().get("/api/schema/?format=json")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/")
    return response.json()


def test_the_schema_is_openapi_3_and_public(schema):
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "SciVer Studio API"
    assert "token" in schema["components"]["securitySchemes"]


def test_every_route_and_method_is_in_the_schema(schema):
    paths, missing = schema["paths"], []
    for name, (path, methods) in api_routes().items():
        if path not in paths:
            missing.append(f"{name}: {path}")
            continue
        missing += [f"{name}: {m.upper()} {path}" for m in methods if m not in paths[path]]
    assert not missing, "not in the schema:\n" + "\n".join(missing)


def test_no_path_of_the_schema_lacks_a_route(schema):
    routed = {path for path, _ in api_routes().values()}
    assert "/api/{path}" not in schema["paths"], (
        "the JSON 404 catch-all (api:unknown) is documented as an operation: exclude it from "
        "the schema (extend_schema(exclude=True) on its view, api/urls.py)"
    )
    assert set(schema["paths"]) <= routed, set(schema["paths"]) - routed
    for path, operations in schema["paths"].items():
        methods = next(m for p, m in api_routes().values() if p == path)
        documented = {m for m in operations if m in METHODS}
        assert documented <= set(methods), (path, documented - set(methods))


def _is_file(content: dict) -> bool:
    return any(
        media.get("schema", {}).get("format") == "binary"
        or media.get("schema", {}).get("type") == "string"
        for kind, media in content.items()
        if not kind.endswith("json")
    )


def _has_schema(media: dict) -> bool:
    described = media.get("schema")
    return bool(described) and described != {}


def test_every_operation_says_what_it_answers_on_success(schema):
    vague = []
    routed = {path for path, _ in api_routes().values()}
    for path, operations in schema["paths"].items():
        if path not in routed:
            continue  # test_no_path_of_the_schema_lacks_a_route says so
        for method, operation in operations.items():
            if method not in METHODS:
                continue
            success = {
                code: answer
                for code, answer in operation.get("responses", {}).items()
                if code.startswith("2")
            }
            good = [
                code
                for code, answer in success.items()
                if code == "204"
                or _has_schema(answer.get("content", {}).get("application/json", {}))
                or _is_file(answer.get("content", {}))
            ]
            if not good:
                vague.append(f"{method.upper()} {path}: {success or 'no 2xx answer'}")
    assert not vague, "no 2xx answer with a schema (or a file):\n" + "\n".join(vague)
