"""A Flask test client that checks every request and response against openapi.yaml."""

from __future__ import annotations

import json
from pathlib import Path

from openapi_core import Config, OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest, WerkzeugOpenAPIResponse
from openapi_core.templating.paths.exceptions import PathNotFound
from werkzeug.test import EnvironBuilder

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
_openapi = OpenAPI.from_file_path(
    str(SPEC),
    config=Config(extra_media_type_deserializers={"application/problem+json": json.loads}),
)


class CheckedClient:
    """Wraps a Flask test client: every response must conform to the spec (and no 5xx)."""

    def __init__(self, client) -> None:
        self.client = client
        self.checked = 0

    def open(
        self, method: str, path: str, *, json_body=None, data=None, headers=None, content_type=None
    ):
        kwargs = {"headers": headers or {}}
        if json_body is not None:
            data, content_type = json.dumps(json_body), "application/json"
        if data is not None:
            kwargs.update(data=data, content_type=content_type or "application/json")
        response = self.client.open(path, method=method, **kwargs)
        assert response.status_code < 500, response.get_data(as_text=True)
        request = EnvironBuilder(path=path, method=method, **kwargs).get_request()
        try:
            _openapi.validate_response(
                WerkzeugOpenAPIRequest(request), WerkzeugOpenAPIResponse(response)
            )
        except PathNotFound:  # a route the spec does not have: it must not exist either
            assert response.status_code in (404, 405), path
        if response.status_code >= 400:
            assert response.mimetype == "application/problem+json"
            assert response.json["status"] == response.status_code and response.json["code"]
        self.checked += 1
        return response

    def get(self, path: str, **kw):
        return self.open("GET", path, **kw)

    def post(self, path: str, json=None, **kw):
        return self.open("POST", path, json_body=json, **kw)
