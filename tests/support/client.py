"""A Flask test client that checks every response against the contract: the one
generated for the registry as it is (so a test's toy game is in it), which for the built-in
games is the committed openapi.yaml (tests/test_openapi.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema_rs

from service.api.openapi import document

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"


class Contract:
    """One document's checks of an answer: the operation (path and method), a documented
    status, its media type, the body against its schema and each documented header present
    against its own (jsonschema-rs, with the document's components; the document itself is
    checked against OpenAPI's schema once, by tests/test_openapi.py)."""

    def __init__(self, doc: dict) -> None:
        self.doc = doc
        self.components = doc["components"]
        self.routes = [
            (re.compile("^" + re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(p)) + "$"), item)
            for p, item in doc["paths"].items()
        ]
        self._validators: dict[str, jsonschema_rs.Validator] = {}

    def validator(self, schema: dict) -> jsonschema_rs.Validator:
        key = json.dumps(schema, sort_keys=True)
        if key not in self._validators:
            root = {**schema, "components": self.components}
            self._validators[key] = jsonschema_rs.validator_for(root)
        return self._validators[key]

    def _resolved(self, node: dict) -> dict:
        while "$ref" in node:
            _, kind, name = node["$ref"].lstrip("#/").split("/")
            node = self.components[kind][name]
        return node

    def operation(self, method: str, path: str) -> dict | None:
        for pattern, item in self.routes:
            if pattern.match(path):
                return item.get(method.lower())
        return None

    def check(self, method: str, path: str, response) -> None:
        operation = self.operation(method, path.split("?", 1)[0])
        if operation is None:  # a route the spec does not have: it must not exist either
            assert response.status_code in (404, 405), (method, path)
            return
        documented = operation["responses"]
        status = str(response.status_code)
        assert status in documented, (method, path, status, response.get_data(as_text=True))
        answer = self._resolved(documented[status])
        for name, header in answer.get("headers", {}).items():
            header = self._resolved(header)
            if name in response.headers:
                self.validator(header["schema"]).validate(response.headers[name])
            else:
                assert not header.get("required"), (path, name)
        content = answer.get("content")
        if not content:
            assert not response.get_data(), (path, status)
            return
        assert response.mimetype in content, (path, status, response.mimetype)
        schema = content[response.mimetype]["schema"]
        if response.mimetype in ("application/json", "application/problem+json"):
            self.validator(schema).validate(response.get_json())


_contracts: dict[int, Contract] = {}
_streams: dict[int, tuple] = {}


def contract() -> Contract:
    """The checks of the current registry's contract (made once per document)."""
    doc = document()
    if id(doc) not in _contracts:
        _contracts.clear()
        _contracts[id(doc)] = Contract(doc)
    return _contracts[id(doc)]


def check_stream_message(fields: dict[str, str]) -> None:
    """One server-sent message (its `id`, `event`, `data` lines) against the contract's
    StreamItem, its `data:` JSON against the event or view it must be."""
    doc = document()
    if id(doc) not in _streams:
        _streams.clear()

        def of(name: str):
            return jsonschema_rs.validator_for(
                {"$ref": f"#/components/schemas/{name}", "components": doc["components"]}
            )

        _streams[id(doc)] = (of("StreamItem"), of("StreamMessage"))
    item, message = _streams[id(doc)]
    item.validate(fields)
    if "data" in fields:
        message.validate({**fields, "id": int(fields["id"]), "data": json.loads(fields["data"])})


def _check_stream(body: str) -> None:
    for block in body.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":")
        )
        if fields:
            if "retry" in fields:
                fields["retry"] = int(fields["retry"])
            check_stream_message(fields)


class CheckedClient:
    """Wraps a Flask test client: every response must conform to the spec, and none is a 5xx
    (but the 503 of a store that does not answer, for a test that makes it so)."""

    def __init__(self, client, unavailable: bool = False) -> None:
        self.client = client
        self.checked = 0
        self.worst = 503 if unavailable else 499

    def open(
        self, method: str, path: str, *, json_body=None, data=None, headers=None, content_type=None
    ):
        kwargs = {"headers": headers or {}}
        if json_body is not None:
            data, content_type = json.dumps(json_body), "application/json"
        if data is not None:
            kwargs.update(data=data, content_type=content_type or "application/json")
        response = self.client.open(path, method=method, **kwargs)
        assert response.status_code <= self.worst, response.get_data(as_text=True)
        if response.mimetype == "text/event-stream":  # each message, as the contract says
            assert response.status_code == 200
            _check_stream(response.get_data(as_text=True))
            self.checked += 1
            return response
        contract().check(method, path, response)
        if response.status_code >= 400:
            assert response.mimetype == "application/problem+json"
            assert response.json["status"] == response.status_code and response.json["code"]
        self.checked += 1
        return response

    def get(self, path: str, **kw):
        return self.open("GET", path, **kw)

    def post(self, path: str, json=None, **kw):
        return self.open("POST", path, json_body=json, **kw)
