"""`python -m service.api.openapi > openapi.yaml`: the built-in games' contract."""

import sys

from . import build, builtin, dump

sys.stdout.write(dump(build(builtin())))
