"""``twentynine play --plain`` through a pipe: a scripted game, errors, the end of input.

The script of commands is worked out by playing the same seeded game
in-process (the bots are deterministic for a seed), then piped to the real
command; the output must tell the same deal to its end.
"""

from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from twentynine.game.actions import Action
from twentynine.game.cards import SUITS, card_text
from twentynine.game.rules import resolve
from twentynine.tui.command import EXAMPLES
from twentynine.tui.plain import PlainGame
from twentynine.tui.session import Table, seat_plan
from twentynine.tui.text import (
    HELP_WORDS,
    QUIT_WORDS,
    STATE_WORDS,
    CommandError,
    Glyphs,
    legal_plays,
    read_action,
)


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
            w in out for w in (": made", ": failed", "single hand", "cancelled", "never shown")
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


def plain_game(stdin: str, seed: int = 3, profile: str = "pagat", **options: str) -> str:
    """The output of an in-process ``--plain`` game fed ``stdin`` (letters, no symbols)."""
    out = io.StringIO()
    table = Table(resolve(profile, options), seed, seat_plan(1, bots=["pip"]))
    PlainGame(table, inp=io.StringIO(stdin), out=out, glyphs=Glyphs(False)).run()
    return out.getvalue()


def test_h_at_the_trump_prompt_chooses_hearts_and_each_line_answers_its_own_prompt() -> None:
    for h in ("H", "h"):
        out = plain_game(f"28\n{h}\n")
        assert "You chose H hearts as trumps" in out, out
        assert "Commands at your turn" not in out
        # the line after H (none: the end of input) is read at the next prompt, not the trump one
        assert out.count("Choose trumps") == 1


def test_every_prompt_says_how_to_reach_the_help_and_it_collides_with_no_answer() -> None:
    out = plain_game("28\n?\nhelp\nS\n")
    assert out.count("Commands at your turn") == 2
    assert "You chose S spades as trumps" in out
    for line in out.splitlines():
        if line.startswith("Your turn:"):
            assert "? help" in line, line


def test_no_word_that_works_at_every_prompt_is_also_an_answer() -> None:
    meta = HELP_WORDS + STATE_WORDS + QUIT_WORDS
    for profile, options, seed in (
        ("pagat", {}, 3),
        ("modern", {"single_hand": "3", "seventh_card": "yes"}, 9),
        ("bhoos", {}, 12),
    ):
        table = Table(resolve(profile, options), seed, seat_plan(1, bots=["pip"]))
        rng = random.Random(seed)
        phases = set()
        while not table.deal_over:
            if table.bot_to_act:
                table.step_bot()
                continue
            obs = table.observation(0)
            phases.add(obs.phase)
            for word in meta:
                with pytest.raises(CommandError):
                    read_action(word, obs)
            legal = list(obs.legal)
            table.act(legal[rng.randrange(len(legal))])
        assert {"auction", "play"} <= phases


def test_the_help_lists_the_commands_of_these_rules_only() -> None:
    pagat = plain_game("?\n")
    assert "Commands at your turn" in pagat and "pair" in pagat
    for word in ("seventh", "reveal", "double", "single"):
        assert word not in pagat.split("Commands at your turn")[1], word
    bhoos = plain_game("?\n", profile="bhoos")
    assert "reveal, ask" in bhoos and "seventh" not in bhoos
    modern = plain_game("?\n", profile="modern", seventh_card="yes", single_hand="3")
    assert "seventh)" in modern and "single, double, redouble, pair" in modern


def test_the_scripted_example_of_the_help_is_answered_line_by_line() -> None:
    line = next(x for x in EXAMPLES.splitlines() if "printf" in x)
    found = re.search(
        r"printf '([^']*)' \| twentynine play --plain --seed (\d+) --bots (\w+)", line
    )
    assert found, line
    stdin = found.group(1).replace("\\n", "\n")
    out = io.StringIO()
    table = Table(resolve("pagat", {}), int(found.group(2)), seat_plan(1, bots=[found.group(3)]))
    PlainGame(table, inp=io.StringIO(stdin), out=out, glyphs=Glyphs(False)).run()
    text = out.getvalue()
    assert "! " not in text, text  # no line was refused
    assert text.count("\n> ") == stdin.count("\n") + 1  # each line answered a prompt; then EOF
