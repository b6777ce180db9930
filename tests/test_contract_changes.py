"""The contract says what it said before its schemas were generated from the checks' own
declarations, but for the additions listed here: `tests/golden/contract/openapi.json` is the
contract as the hand-written schemas had it, normalized (descriptions dropped, keys sorted;
tests/support/spec_diff.py), and every `$ref` is followed when comparing, so a component that
is renamed or inlined compares as its content.

A deliberate change of the contract lists its differences in ALLOWED (`<component>/<path>:
<change>`, as `differences` prints them), or rewrites the fixture:
`python -m tests.test_contract_changes`.
"""

from __future__ import annotations

import fnmatch
import json
import sys
from pathlib import Path

from service.api.openapi import build, builtin
from tests.support.spec_diff import differences, dumps, normalized

FIXTURE = Path(__file__).resolve().parent / "golden" / "contract" / "openapi.json"

# what the generated schemas say that the hand-written ones did not (each a pattern)
ALLOWED = [
    # a create's game and a bot seat's bot: the length every game's name and bot's name has,
    # beside the one name (const) or the game's bots (enum) the contract already gave
    "*Create/properties/game: +m??Length",
    "*SeatBot/properties/bot: +m??Length",
    # hints come from every game's strong bot: a worker may still be searching (202), and the
    # reason is a code with parameters the viewer words in the reader's language
    "Hint/properties/reason: +*",
    'Hint/properties/reason/type: "string" -> "object"',
    "/components/schemas: +HintPending",
    "/paths//v1/games/{game_id}/hint/get/responses: +202",
    "/paths//v1/games/{game_id}/hint/get/summary: *",
    # what the public log tells of each seat's cards: in the Bataille table; in BATAYO, a part
    # of the view of its own, computed only when read (a bot seldom reads it)
    "BatailleTable/properties/players/items/properties: +known_pack",
    "BatailleTable/properties/players/items/properties: +known_won",
    "BatayoView/properties: +known",
    # (`[[]`: a `[` itself; fnmatch reads a bare `[` as the start of a set of characters)
    'BatayoView/required: [[]*"skippable"] -> [[]*"skippable", "known"]',
    # each game's bots' measured strength, from the ladder's committed results
    "GameRules/properties: +strength",
    'GameRules/required: [[]*"traits"] -> [[]*"traits", "strength"]',
    "/components/schemas: +Strength",
]


def test_the_contract_changes_only_by_listed_additions():
    old = json.loads(FIXTURE.read_text())
    found = differences(old, normalized(build(builtin())))
    unlisted = [d for d in found if not any(fnmatch.fnmatchcase(d, p) for p in ALLOWED)]
    assert unlisted == [], "\n".join(unlisted)
    unused = [p for p in ALLOWED if not any(fnmatch.fnmatchcase(d, p) for d in found)]
    assert unused == [], f"listed changes the contract no longer makes: {unused}"


def test_the_comparison_sees_a_change_behind_a_ref():
    doc = normalized(build(builtin()))
    changed = json.loads(json.dumps(doc))
    changed["components"]["schemas"]["GameId"]["pattern"] = "^[0-9a-f]{8}$"
    del changed["components"]["schemas"]["Join"]["additionalProperties"]
    assert differences(doc, changed) == [
        'GameId/pattern: "^[0-9a-f]{16}$" -> "^[0-9a-f]{8}$"',
        "Join: -additionalProperties",
    ]


if __name__ == "__main__":
    FIXTURE.write_text(dumps(build(builtin())))
    sys.exit(0)
