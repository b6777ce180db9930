"""The sweep's watchdog: a thread in each `batayo worker` that starts the sweep's chain again when
the queue lost its next job (the queue's keys flushed or evicted): the sweep that would restore
lost clocks and bot moves lives in that queue too, so something outside it must notice."""

from __future__ import annotations

import logging
import threading

from service.engine import Engine

log = logging.getLogger("batayo.watchdog")


def watch(engine: Engine, every_s: int, stop: threading.Event) -> None:
    """Check every `every_s` seconds until `stop` is set; a failed check (the store away) waits
    for the next one."""
    while not stop.wait(every_s):
        try:
            if engine.scheduler.rearm(every_s):
                log.warning("the sweep's next job was lost with the queue: started it again")
        except Exception:  # the store away, most likely: the next check tries again
            log.exception("the sweep watchdog's check failed")


def start(engine: Engine, every_s: int) -> threading.Event:
    """The watchdog on a daemon thread; set the event it returns to stop it."""
    stop = threading.Event()
    threading.Thread(
        target=watch, args=(engine, every_s, stop), name="batayo-sweep-watchdog", daemon=True
    ).start()
    return stop
