"""The WSGI app for gunicorn: `gunicorn service.wsgi:app` (settings from the environment)."""

import sys

from .api import create_app
from .config import SettingsError, StartupError, build_engine

# gunicorn halts (rather than restarting the worker forever) when a worker exits with this code
WORKER_BOOT_ERROR = 3

try:
    app = create_app(build_engine())
except (StartupError, SettingsError) as exc:
    print(f"batayo: {exc}", file=sys.stderr)
    raise SystemExit(WORKER_BOOT_ERROR) from None
