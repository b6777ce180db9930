"""The WSGI app for gunicorn: `gunicorn service.wsgi:app` (settings from the environment)."""

from .api import create_app
from .config import build_engine

app = create_app(build_engine())
