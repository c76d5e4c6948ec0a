"""Variants of a bot (``expert[read_drops=0]``): how they are read, what each of
the expert's switches turns off, and the ablation benchmark that uses them."""

from __future__ import annotations

import random

import pytest

from twentynine.bots import ExpertBot, ExpertV1Bot, make_bot, spec_error
from twentynine.bots.knowledge import analyse
from twentynine.cli.main import main as cli
from twentynine.game.dealing import deal_hands
from twentynine.game.engine import OVER, PLAYING, Deal
from twentynine.game.observation import Observation, observe_deal
from twentynine.game.rules import PROFILES


def test_a_variant_sets_the_knobs_it_names_and_no_others() -> None:
    bot = make_bot("expert[read_drops=0, exact_from=9,bid_margin=0.25]", seed=3)
    assert isinstance(bot, ExpertBot)
    assert bot.read_drops is False and bot.exact_from == 9 and bot.bid_margin == 0.25
    assert bot.read_auction is True and ExpertBot.read_drops is True  # the class is untouched
    plain = make_bot("expert", seed=3)
    assert plain.read_drops is True and plain.exact_from == ExpertBot.exact_from
    for word in ("no", "false", "off", "0"):
        assert make_bot(f"expert[read_auction={word}]").read_auction is False  # type: ignore[attr-defined]
    assert make_bot("expert[read_auction=yes]").read_auction is True  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("wizard", "unknown bot level 'wizard'"),
        ("wizard[read_drops=0]", "unknown bot level 'wizard'"),
        ("expert[nope=1]", "expert has no knob 'nope'; its knobs: read_auction"),
        ("strong[read_drops=0]", "strong has no knob 'read_drops'; its knobs: none"),
        ("expert[read_drops=2]", "read_drops is a switch (0 or 1), not '2'"),
        ("expert[exact_from=soon]", "exact_from is a whole number, not 'soon'"),
        ("expert[bid_margin=lots]", "bid_margin is a number, not 'lots'"),
        ("expert[read_drops]", "'read_drops' is not knob=value"),
        ("expert[read_drops=0,read_drops=1]", "'read_drops' is set twice"),
        ("expert[read_drops=0", "cannot read the bot"),
        ("expert]", "cannot read the bot"),
        ("", "cannot read the bot"),
    ],
)
def test_a_bad_variant_is_refused_with_what_is_wrong(spec: str, says: str) -> None:
    error = spec_error(spec)
    assert error is not None and says in error, error
    with pytest.raises(ValueError) as raised:
        make_bot(spec)
    assert str(raised.value) == error  # make_bot says the same


def test_every_level_and_every_knob_at_its_own_value_is_a_good_spec() -> None:
    for level in ("random", "novice", "casual", "strong", "expert", "expert-v1"):
        assert spec_error(level) is None
    same = ",".join(
        f"{k}={int(v) if isinstance(v, bool) else v}"
        for k, v in ((k, getattr(ExpertBot, k)) for k in ExpertBot.knobs)
    )
    assert spec_error(f"expert[{same}]") is None


def positions(profile: str, count: int) -> list[Observation]:
    """Observations of seats about to play a card in random games played by casual bots."""
    rules = PROFILES[profile]
    rng = random.Random(5)
    found: list[Observation] = []
    for seed in range(200):
        deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
        driver = [make_bot("casual", seed=s) for s in range(4)]
        stop = rng.randrange(10, 26)
        for _ in range(stop):
            if deal.phase == OVER:
                break
            deal.apply(driver[deal.to_act].act(observe_deal(deal, deal.to_act)))
        if deal.phase == PLAYING:
            found.append(observe_deal(deal, deal.to_act))
        if len(found) >= count:
            break
    return found


def test_switching_off_all_reading_leaves_every_world_the_same_weight() -> None:
    whole = make_bot("expert", seed=1)
    blind = make_bot("expert[read_auction=0,read_trump_choice=0,read_discards=0]", seed=1)
    differed = 0
    for obs in positions("pagat", 12):
        know = whole.knowledge(obs, random.Random(0))  # type: ignore[attr-defined]
        worlds = [whole.sample(obs, know, random.Random(i)) for i in range(12)]  # type: ignore[attr-defined]
        mine = {round(blind.weight(obs, know, w), 12) for w in worlds}  # type: ignore[attr-defined]
        assert len(mine) == 1, mine
        theirs = {round(whole.weight(obs, know, w), 12) for w in worlds}  # type: ignore[attr-defined]
        differed += len(theirs) > 1
    assert differed >= 6  # while the whole expert weighs the same worlds apart


def test_each_reading_switch_changes_only_its_own_part() -> None:
    whole = make_bot("expert", seed=1)
    v1 = ExpertV1Bot(seed=1)
    no_choice = make_bot("expert[read_trump_choice=0]", seed=1)
    no_drops = make_bot("expert[read_drops=0]", seed=1)
    for obs in positions("pagat", 8):
        know = whole.knowledge(obs, random.Random(0))  # type: ignore[attr-defined]
        world = whole.sample(obs, know, random.Random(3))  # type: ignore[attr-defined]
        # all on: exactly the frozen expert-v1's weights
        assert whole.weight(obs, know, world) == v1.weight(obs, know, world)  # type: ignore[attr-defined]
        assert no_choice.trump_odds(obs, world.first[obs.bidder]) == [1.0] * 4  # type: ignore[attr-defined]
        assert no_drops.knowledge(obs, random.Random(0)) == analyse(obs)  # type: ignore[attr-defined]


def test_without_contracts_by_simulation_the_expert_bids_as_the_fitted_model() -> None:
    rules = PROFILES["pagat"]
    checked = 0
    for seed in range(30):
        deal = Deal(rules, seed % 4, deal_hands(seed, seed % 4, rules.clockwise))
        obs = observe_deal(deal, deal.to_act)
        model = make_bot("expert[simulate_contract=0]", seed=seed, budget=0.02)
        v1 = make_bot("expert-v1", seed=seed, budget=0.02)
        assert model.act(obs) == v1.act(obs)
        checked += 1
    assert checked == 30


def test_the_arena_seats_a_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["arena", "expert[read_drops=0]", "casual", "--deals", "1", "--quiet"]) == 0
    assert "expert[read_drops=0]" in capsys.readouterr().out
    assert cli(["arena", "expert[read_drops=7]", "casual", "--deals", "1", "--quiet"]) == 2
    assert "read_drops is a switch" in capsys.readouterr().err


def test_the_ablation_benchmark_runs_on_a_tiny_input(capsys: pytest.CaptureFixture[str]) -> None:
    from twentynine.benchmarks import ablation

    # a cheaper expert as the whole: few worlds at bid time, the exact play from the end
    base = "expert[auction_worlds=4,exact_from=8]"
    argv = ["--deals", "1", "--piece", "drop signals", "--profile", "bhoos", "--base", base]
    assert ablation.main(argv) == 0
    out = capsys.readouterr().out
    assert f"# ablation: {base} against {base} without one piece" in out
    assert "| without | deals | whole − without (95% CI) |" in out
    assert "| drop signals | 1 | +0.000" in out  # no bot signals: the same cards
    assert "# drop signals: no bot makes a drop signal" in out
    assert ablation.without(base, "read_drops=0") == (
        "expert[auction_worlds=4,exact_from=8,read_drops=0]"
    )
    assert ablation.without("expert", "read_drops=0") == "expert[read_drops=0]"


def test_the_ablation_leaves_out_by_default_the_piece_no_arena_can_measure(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from twentynine.benchmarks import ablation

    played: list[str] = []

    def boards(rules, a, b, deals, seed, jobs):
        played.append(b)
        return []

    monkeypatch.setattr(ablation, "run_boards", boards)
    monkeypatch.setattr(ablation, "row", lambda piece, s: f"| {piece} |")
    assert ablation.main(["--deals", "1"]) == 0
    assert played == [f"expert[{k}]" for p, k in ablation.PIECES.items() if p != "drop signals"]


def test_the_ablation_refuses_a_base_it_cannot_take_apart(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from twentynine.benchmarks import ablation

    for base, says in (
        ("wizard", "unknown bot level"),
        ("strong", "has no knob 'read_drops'"),
        ("expert[read_drops=1]", "set twice"),
    ):
        with pytest.raises(SystemExit) as stop:
            ablation.main(["--deals", "1", "--piece", "drop signals", "--base", base])
        assert stop.value.code == 2
        assert says in capsys.readouterr().err, base
