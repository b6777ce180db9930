"""RQ jobs: bot moves, clocks, sweeps and audits, run by `batayo worker` (which also pumps them
from the store's outbox into the `batayo-clocks` and `batayo` queues)."""
