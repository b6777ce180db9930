"""RQ jobs: bot moves and clocks, run by `rq worker --with-scheduler batayo`."""
