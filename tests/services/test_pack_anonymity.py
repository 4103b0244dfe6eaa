"""An offline pack does not let its annotator name the models: its model ids (and each turn's
output ids) come in a random order, fresh per pack, so sorting them maps no more models to the
announced names than guessing would; merging still finds every model."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.services.campaign_helpers import build_campaign_bundle, registry_with_all_protocols
from workbench.services.campaigns import CampaignSpec, add_annotator, create_campaign
from workbench.services.packs import anonymous_model_name, export_pack, merge_pack
from workbench.services.voting import AnnotationSession
from workbench.storage import Bundle
from workbench.storage.models import Campaign

PLUGINS = registry_with_all_protocols()
#: ten models whose names sort in a known order, as a public leaderboard announces them
MODELS = tuple(f"{letter}-vlm" for letter in "abcdefghij")
PACKS = 8


def sort_attack(pack: Path, announced: list[str]) -> dict[str, str]:
    """What an annotator can do with plain sqlite3: sort the pack's model ids and pair them
    with the announced names in alphabetical order. Returns pack model name -> guessed name."""
    with sqlite3.connect(pack) as connection:
        ids = connection.execute("SELECT name FROM models ORDER BY id").fetchall()
    return {name: guess for (name,), guess in zip(ids, sorted(announced), strict=True)}


def test_sorting_a_pack_s_ids_maps_no_model_beyond_chance_and_merging_still_works(
    tmp_path: Path,
) -> None:
    bundle_path = build_campaign_bundle(tmp_path / "main", items=6, models=MODELS, turns=1)
    handles = [f"ann{n}" for n in range(PACKS)]
    with Bundle.open(bundle_path) as bundle:
        for handle in handles:
            add_annotator(bundle, handle)
        create_campaign(
            bundle,
            CampaignSpec("c", "chirp-five-criteria", seed=3, votes_per_pair=PACKS),
            PLUGINS,
        )
        with bundle.read_session() as session:
            campaign = session.query(Campaign).one()
            salt = str(campaign.settings["pack_salt"])

    right = guessed = 0
    outputs_in_model_order = 0
    packs = []
    for handle in handles:
        pack = tmp_path / f"{handle}.wbb"
        with Bundle.open(bundle_path) as bundle:
            export_pack(bundle, "c", handle, pack)
        packs.append((handle, pack))
        truth = {anonymous_model_name(salt, name): name for name in MODELS}
        with sqlite3.connect(pack) as connection:
            in_pack = [name for (name,) in connection.execute("SELECT name FROM models")]
            # each turn's outputs in id order, against the order of the models' own ids
            for (turn,) in connection.execute("SELECT DISTINCT turn_id FROM outputs"):
                by_output = [
                    model
                    for (model,) in connection.execute(
                        "SELECT model_id FROM outputs WHERE turn_id = ? ORDER BY id", (turn,)
                    )
                ]
                outputs_in_model_order += by_output == sorted(by_output)
        announced = [truth[name] for name in in_pack]  # the attacker even knows which are in
        guesses = sort_attack(pack, announced)
        right += sum(truth[name] == guess for name, guess in guesses.items())
        guessed += len(guesses)
        assert len(guesses) == len(MODELS)

    # Guessing a random order maps one model per pack on average (8 of 80 here); the ids given
    # in the names' order mapped every one (80 of 80). 24 or more by chance has a probability
    # below 1e-6.
    assert guessed == PACKS * len(MODELS)
    assert right < 24, f"the sort attack mapped {right} of {guessed} models"
    # outputs do not come in the main bundle's model order either
    with sqlite3.connect(packs[0][1]) as connection:
        turns = connection.execute("SELECT count(DISTINCT turn_id) FROM outputs").fetchone()[0]
    assert outputs_in_model_order < PACKS * turns

    # the pack's votes still merge onto the right models
    handle, pack = packs[0]
    with Bundle.open(pack) as opened:
        annotator = AnnotationSession(opened, "c", handle, PLUGINS)
        task = annotator.next_task()
        assert task is not None
        criteria = [c.name for c in PLUGINS.protocol("chirp-five-criteria").criteria]
        annotator.cast(task.token, dict.fromkeys(criteria, "a"))
    with sqlite3.connect(pack) as connection:
        pack_left = connection.execute(
            "SELECT m.name FROM votes v JOIN models m ON m.id = v.model_a_id"
        ).fetchone()[0]
    with Bundle.open(bundle_path) as bundle:
        report = merge_pack(bundle, pack)
    assert report.added >= 1
    with sqlite3.connect(bundle_path) as connection:
        merged_left = connection.execute(
            "SELECT m.name FROM votes v JOIN models m ON m.id = v.model_a_id"
        ).fetchone()[0]
    assert anonymous_model_name(salt, merged_left) == pack_left
