"""The browser pages: a game list, a new-game form, and a replay viewer where a seat can play.

Plain HTML, CSS and JavaScript in `static/`, no build step, using only the public `/v1` API
(so `static/*.js` doubles as a reference client). The routes serve files only: `/` (the list
and the form), `/games/<game_id>` (one game) and `/web/static/<path>`.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, send_from_directory

from ..core import bounds

STATIC = Path(__file__).resolve().parent / "static"
GAME_ID = bounds.matcher(bounds.GAME_ID)

bp = Blueprint("web", __name__, static_folder="static", static_url_path="/web/static")


def _page(name: str) -> Response:
    response = send_from_directory(STATIC, name, mimetype="text/html", max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/")
def index() -> Response:
    return _page("index.html")


@bp.get("/games/<game_id>")
def game_page(game_id: str) -> Response:
    if not GAME_ID(game_id):
        abort(404)
    return _page("game.html")
