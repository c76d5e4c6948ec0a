"""``twentynine play --plain`` through a pipe: a scripted game, errors, the end of input.

The script of commands is worked out by playing the same seeded game
in-process (the bots are deterministic for a seed), then piped to the real
command; the output must tell the same deal to its end.
"""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

from twentynine.game.actions import Action
from twentynine.game.cards import SUITS, card_text
from twentynine.game.rules import resolve
from twentynine.tui.plain import PlainGame
from twentynine.tui.session import Table, seat_plan
from twentynine.tui.text import Glyphs, legal_plays, read_action


def command() -> list[str]:
    script = Path(sys.executable).with_name("twentynine")
    return [str(script)] if script.exists() else [sys.executable, "-m", "twentynine.cli.main"]


def play(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run(
        [*command(), "play", "--plain", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stderr
    return proc


def words_for(action: Action, table: Table, rng: random.Random) -> str:
    """A command a person could type for ``action`` (varying the accepted forms)."""
    if action.kind == "bid":
        return rng.choice([str(action.value), f"bid {action.value}"])
    if action.kind == "pass":
        return rng.choice(["pass", "p"])
    if action.kind == "trump":
        assert action.value is not None
        return rng.choice([f"trump {SUITS[action.value]}", SUITS[action.value].lower()])
    if action.kind == "play":
        assert action.value is not None
        obs = table.observation(action.seat)
        index = legal_plays(obs).index(action.value) + 1
        return rng.choice([card_text(action.value), str(index), card_text(action.value).lower()])
    return action.kind


def script_for(profile: str, options: dict[str, str], seed: int, deals: int = 1) -> list[str]:
    table = Table(resolve(profile, options), seed, seat_plan(1, bots=["pip"]))
    rng = random.Random(seed)
    lines: list[str] = []
    played = 1
    while True:
        if table.deal_over:
            if table.match_over or played >= deals:
                return lines
            lines.append("")
            table.next_deal()
            played += 1
            continue
        if table.bot_to_act:
            table.step_bot()
            continue
        obs = table.observation(0)
        legal = list(obs.legal)
        action = legal[rng.randrange(len(legal))]
        if action.kind == "bid" and rng.random() < 0.7:
            action = next(a for a in legal if a.kind == "pass")
        text = words_for(action, table, rng)
        assert read_action(text, obs) == action, text
        lines.append(text)
        table.act(action)


def test_a_scripted_deal_through_a_pipe_ends_with_its_result() -> None:
    for profile, options, seed in (
        ("pagat", {}, 4),
        ("modern", {"single_hand": "3", "seventh_card": "yes"}, 9),
        ("bhoos", {}, 12),
    ):
        lines = script_for(profile, options, seed, deals=2)
        sets = [f"--set={k}={v}" for k, v in options.items()]
        proc = play(
            "--profile",
            profile,
            *sets,
            "--seed",
            str(seed),
            "--bots",
            "pip",
            stdin="\n".join(lines) + "\n",
        )
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout
        assert "! " not in out, out  # every scripted command was accepted
        assert out.count("Hands were:") == 2
        assert "Deal 2:" in out
        assert any(
            w in out for w in ("Contract made", "Contract failed", "single hand", "cancelled")
        )
        # the end of input quits cleanly (unless the match was already decided)
        assert out.rstrip().endswith(("Bye.", "win the match.")), out[-300:]


def test_wrong_commands_get_one_line_and_the_game_goes_on() -> None:
    proc = play("--seed", "3", "--bots", "pip", stdin="banana\n99\nS\n?\nstate\npass\nq\n")
    assert proc.returncode == 0
    out = proc.stdout
    assert "! bid a number or pass" in out
    assert "! bid 99 is not possible" in out
    assert "Commands at your turn" in out
    assert "You pass." in out
    assert out.rstrip().endswith("Bye.")


def test_empty_input_quits_at_once() -> None:
    proc = play("--seed", "1", stdin="")
    assert proc.returncode == 0 and "Bye." in proc.stdout


def test_bad_options_are_one_line_and_status_2() -> None:
    proc = play("--profile", "nope", stdin="")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "unknown profile" in proc.stderr
    proc = play("--bots", "nobody", stdin="")
    assert proc.returncode == 2 and "unknown bot" in proc.stderr


def test_watch_prints_four_bots_game_in_letters() -> None:
    out = io.StringIO()
    table = Table(resolve("arcade", {}), 6, seat_plan(0, bots=["pip"]))
    game = PlainGame(table, inp=io.StringIO(""), out=out, glyphs=Glyphs(False), max_deals=1)
    assert game.run() == 0
    text = out.getvalue()
    assert "Watching four bots" in text and "Hands were:" in text
    assert not any(sym in text for sym in "♠♥♦♣●")


def test_only_the_players_own_hand_is_printed_before_the_deal_ends() -> None:
    lines = script_for("pagat", {}, 21)
    out = io.StringIO()
    table = Table(resolve("pagat", {}), 21, seat_plan(1, bots=["pip"]))
    hands = table.match.deal.hands
    PlainGame(table, inp=io.StringIO("\n".join(lines) + "\n"), out=out, glyphs=Glyphs(False)).run()
    before_end = out.getvalue().split("Hands were:")[0]
    for line in before_end.splitlines():
        if line.startswith("Hand: "):
            shown = line[len("Hand: ") :]
            for seat in (1, 2, 3):
                for c in hands[seat]:
                    suit, rank = card_text(c)[1], card_text(c)[0]
                    group = next((g for g in shown.split("  ") if g.startswith(suit)), "")
                    assert rank not in group.split()[1:], f"seat {seat}'s {card_text(c)} shown"
