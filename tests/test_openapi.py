"""openapi.yaml is a valid OpenAPI document and describes exactly the routes the app serves
(every response the API tests see is also validated against it: tests/apiclient.py)."""

from __future__ import annotations

import re

import fakeredis
import yaml
from openapi_spec_validator import validate

from service.api import create_app
from service.engine import Engine
from service.store import Store
from tests.support.client import SPEC

API_ROOT_ROUTES = {"/healthz", "/readyz", "/metrics"}


def test_the_spec_is_valid_openapi():
    validate(yaml.safe_load(SPEC.read_text()))


def test_the_spec_and_the_app_have_the_same_operations():
    app = create_app(Engine(Store(fakeredis.FakeRedis())))
    served = set()
    for rule in app.url_map.iter_rules():
        if not (rule.rule.startswith("/v1/") or rule.rule in API_ROOT_ROUTES):
            continue  # the browser pages are not part of the API contract
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        served |= {(m.lower(), path) for m in rule.methods - {"HEAD", "OPTIONS"}}
    spec = yaml.safe_load(SPEC.read_text())
    documented = {
        (method, path)
        for path, item in spec["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert served == documented
