"""What the store keeps and gives back: the log of a game (append, truncate,
finish, load), a change written whole in one transaction with its replies and
version, rooms (saved, pruned), summaries and token hashes; clear errors for
unknown games, corrupt rows and a failing database. Every test runs against
SQLite and PostgreSQL (``backend`` and ``store`` from ``store_helpers``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import played
from store_helpers import QUICK, QUICK_BOTS, Backend, put
from store_helpers import backend as backend
from store_helpers import store as store

from twentynine.server.lobby import Lobby
from twentynine.server.rooms import ROOM_PRUNE_EVERY
from twentynine.server.setup import parse_setup
from twentynine.server.store import (
    REPLIES_KEPT,
    Change,
    SQLStore,
    StoredGame,
    StoredReply,
    StoredSummary,
    StoreError,
    UnknownGame,
    hash_token,
)
from twentynine.server.store import sql as store_module

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


# ---------------------------------------------------------------------- the log of a game


def test_append_load_truncate_finish(store: SQLStore) -> None:
    setup = parse_setup({"seed": 7})
    store.create("g1", setup.to_json(), 7, [hash_token("secret")], {"pace": 0.4})
    store.append("g1", 0, {"seat": 1, "bid": 16})
    store.append("g1", 1, {"seat": 2, "pass": True})
    got = store.load("g1")
    assert got.log == [{"seat": 1, "bid": 16}, {"seat": 2, "pass": True}]
    assert got.seed == 7 and got.setup == setup.to_json() and got.settings == {"pace": 0.4}
    assert got.admits("secret") and not got.admits("secreT")
    assert store.unfinished() == ["g1"]

    store.truncate("g1", 1)
    assert store.load("g1").log == [{"seat": 1, "bid": 16}]
    store.append("g1", 1, {"next_deal": True})
    assert store.load("g1").log[-1] == {"next_deal": True}

    store.settings("g1", {"pace": 1.8, "auto_pair": True})
    assert store.load("g1").settings == {"pace": 1.8, "auto_pair": True}

    store.finish("g1", {"format": "29-record/1", "deals": []})
    done = store.load("g1")
    assert done.finished and done.record == {"format": "29-record/1", "deals": []}
    assert store.unfinished() == []
    with pytest.raises(StoreError, match="finished"):
        store.append("g1", 2, {"seat": 0, "pass": True})


def test_big_seeds_text_and_the_order_of_unfinished_games(store: SQLStore) -> None:
    seed = 2**63 - 1  # the largest seed a setup allows
    setup = parse_setup({"seed": seed}).to_json()
    for ident in ("a", "b", "c"):
        store.create(ident, setup, seed, [hash_token(ident)])
    store.append("b", 0, {"note": "Ünïcode ♠ and a \x00 and 'quotes' and ? and %s"})
    store.append("a", 0, {"seat": 1, "pass": True})
    got = store.load("b")
    assert got.seed == seed
    assert got.log == [{"note": "Ünïcode ♠ and a \x00 and 'quotes' and ? and %s"}]
    assert store.unfinished() == ["a", "b", "c"]
    assert store.unfinished(limit=2) == ["a", "b"]
    assert store.unfinished(limit=0) == []
    with pytest.raises(StoreError, match="64 bits"):
        store.create("d", setup, 2**63, [hash_token("d")])


def test_only_a_hash_of_the_token_is_stored(backend: Backend, tmp_path: Path) -> None:
    s = backend.open()
    s.create("g", parse_setup({"seed": 1}).to_json(), 1, [hash_token("the-very-token")])
    s.save_room("ROOM", {"players": ["ann"]}, "g")
    s.close()
    if backend.name == "sqlite":
        raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    else:
        rows = backend.rows("SELECT g::text FROM games g") + backend.rows(
            "SELECT r::text FROM rooms r"
        )
        raw = repr(rows).encode()
    assert b"the-very-token" not in raw
    assert hash_token("the-very-token").encode() in raw


def test_the_log_stays_in_order(store: SQLStore) -> None:
    store.create("g", parse_setup({"seed": 1}).to_json(), 1, [hash_token("t")])
    store.append("g", 0, {"seat": 1, "pass": True})
    with pytest.raises(StoreError, match="entry 2 cannot follow 1 entries"):
        store.append("g", 2, {"seat": 2, "pass": True})
    with pytest.raises(StoreError, match="entry 0 cannot follow 1 entries"):
        store.append("g", 0, {"seat": 2, "pass": True})
    with pytest.raises(StoreError, match="cannot cut"):
        store.truncate("g", 5)
    with pytest.raises(StoreError, match="already in the store"):
        store.create("g", {}, 1, [hash_token("u")])
    assert store.load("g").log == [{"seat": 1, "pass": True}]


def test_unknown_games_and_corrupt_rows_give_clear_errors(
    store: SQLStore, backend: Backend
) -> None:
    for call in (
        lambda: store.load("nope"),
        lambda: store.append("nope", 0, {}),
        lambda: store.truncate("nope", 0),
        lambda: store.finish("nope", {}),
        lambda: store.settings("nope", {}),
    ):
        with pytest.raises(UnknownGame, match="no game 'nope'"):
            call()
    put(store, "g", played(3, steps=12))
    backend.raw("UPDATE actions SET entry = '{not json' WHERE game = 'g' AND idx = 4")
    with pytest.raises(StoreError, match="game 'g': log entry 4 is not valid JSON"):
        store.load("g")
    backend.raw("UPDATE actions SET entry = '[1, 2]' WHERE game = 'g' AND idx = 4")
    with pytest.raises(StoreError, match="log entry 4 must be a JSON object"):
        store.load("g")
    backend.raw("DELETE FROM actions WHERE game = 'g' AND idx = 4")
    with pytest.raises(StoreError, match="misses entry 4"):
        store.load("g")
    backend.raw("UPDATE games SET tokens = '[\"not a hash\"]' WHERE id = 'g'")
    with pytest.raises(StoreError, match="token hashes are not a list of one or four"):
        store.load("g")
    with pytest.raises(StoreError, match="token hashes"):
        store.summaries(["g"])
    backend.raw("UPDATE games SET setup = 'oops' WHERE id = 'g'")
    with pytest.raises(StoreError, match="the setup is not valid JSON"):
        store.load("g")
    if backend.name == "sqlite":  # PostgreSQL's columns have types
        backend.raw("UPDATE games SET setup = '{}', seed = 'x' WHERE id = 'g'")
        with pytest.raises(StoreError, match="the seed 'x' is not a whole number"):
            store.load("g")


def test_driver_errors_never_leak(store: SQLStore, backend: Backend) -> None:
    put(store, "g", played(3, steps=3))
    backend.raw("DROP TABLE actions")
    with pytest.raises(StoreError, match="the games database failed") as failed:
        store.append("g", 3, {"seat": 0, "pass": True})
    assert type(failed.value) is StoreError
    with pytest.raises(StoreError, match="the games database failed"):
        store.load("g")
    assert store.unfinished() == ["g"]  # the store still works for what is left
    store.close()
    with pytest.raises(StoreError):
        store.unfinished()


# ---------------------------------------------------------------------- one change, one transaction


def ack(ident: str, v: int) -> dict[str, Any]:
    return {"type": "ack", "v": v, "id": ident}


def test_a_change_is_written_whole_with_its_reply_and_version(store: SQLStore) -> None:
    game = played(4, steps=12)
    store.create("g", game.setup.to_json(), game.seed, [hash_token("t")])
    entries = tuple(enumerate(game.log[:10]))
    store.save(
        "g",
        Change(
            entries=entries,
            settings={"pace": 0.4},
            version=70,
            replies=(StoredReply((0,), "a1", ack("a1", 7)),),
        ),
    )
    got = store.load("g")
    assert got.log == game.log[:10] and got.settings == {"pace": 0.4} and got.version == 70
    assert got.replies == (StoredReply((0,), "a1", ack("a1", 7)),)
    # an undo and a new move, with the reply to the undo, at once
    store.save(
        "g",
        Change(
            keep=8,
            entries=((8, game.log[8]),),
            version=71,
            replies=(StoredReply((0,), "u1", ack("u1", 9)),),
        ),
    )
    got = store.load("g")
    assert got.log == game.log[:9] and [r.ident for r in got.replies] == ["a1", "u1"]


def test_a_change_that_fails_writes_nothing_at_all(store: SQLStore) -> None:
    game = played(4, steps=12)
    store.create("g", game.setup.to_json(), game.seed, [hash_token("t")], {"pace": 1.0})
    store.save("g", Change(entries=tuple(enumerate(game.log[:3])), version=10))
    before = store.load("g")
    bad = [
        Change(entries=((3, game.log[3]), (5, game.log[5])), version=99),  # a gap in the log
        Change(keep=7, replies=(StoredReply((0,), "x", ack("x", 1)),)),  # cut beyond the end
        Change(settings={"pace": 2}, replies=(StoredReply((9,), "x", ack("x", 1)),)),  # seat 9
    ]
    for change in bad:
        with pytest.raises(StoreError):
            store.save("g", change)
        assert store.load("g") == before
    with pytest.raises(UnknownGame):
        store.save("nope", Change(version=3))


def test_the_version_ceiling_never_goes_down(store: SQLStore) -> None:
    store.create("g", {}, 1, [hash_token("t")])
    for version, expected in ((5, 5), (3, 5), (5, 5), (80, 80), (0, 80)):
        store.save("g", Change(version=version))
        assert store.load("g").version == expected


def test_replies_are_kept_per_seats_the_newest_first_to_stay(store: SQLStore) -> None:
    store.create("g", {}, 1, [hash_token(str(s)) if s != 1 else "" for s in range(4)])
    extra = 20
    for n in range(REPLIES_KEPT + extra):
        store.save("g", Change(replies=(StoredReply((0,), f"m{n}", ack(f"m{n}", n)),)))
    # the same id from another seat is another message, and a resent id is kept once
    store.save("g", Change(replies=(StoredReply((2,), "m5", ack("m5", 1)),)))
    store.save("g", Change(replies=(StoredReply((2,), "m5", ack("m5", 2)),)))
    got = store.load("g").replies
    south = [r.ident for r in got if r.seats == (0,)]
    assert south == [f"m{n}" for n in range(extra, REPLIES_KEPT + extra)]
    assert [r.reply["v"] for r in got if r.seats == (2,)] == [2]
    hot = Change(replies=(StoredReply((0, 2), "h", ack("h", 1)),))  # one device, two seats
    store.save("g", hot)
    assert store.load("g").replies[-1].seats == (0, 2)


def test_a_finished_game_takes_replies_but_no_more_moves(store: SQLStore) -> None:
    store.create("g", {}, 1, [hash_token("t")])
    store.save("g", Change(record={"deals": []}))
    store.save("g", Change(version=9, replies=(StoredReply((0,), "late", ack("late", 9)),)))
    with pytest.raises(StoreError, match="finished"):
        store.save("g", Change(entries=((0, {"seat": 0, "pass": True}),)))
    got = store.load("g")
    assert got.finished and got.version == 9 and got.replies[0].ident == "late"


# ---------------------------------------------------------------------- rooms, summaries, seats


def test_rooms_are_saved_replaced_listed_and_dropped(store: SQLStore) -> None:
    assert store.rooms() == []
    store.save_room("BBB", {"host": "ann", "seats": ["ann", None, None, None]})
    store.save_room("AAA", {"host": "bob"})
    store.save_room("CCC", {"host": "cy"}, game=None)
    # a new state keeps the room's place (its creation time)
    store.save_room("BBB", {"host": "ann", "seats": ["ann", "dee", None, None]}, game="g1")
    assert store.rooms() == [
        ("BBB", {"host": "ann", "seats": ["ann", "dee", None, None]}, "g1"),
        ("AAA", {"host": "bob"}, None),
        ("CCC", {"host": "cy"}, None),
    ]
    store.drop_room("AAA")
    store.drop_room("AAA")  # not there: no error
    store.drop_room("never")
    assert [code for code, _, _ in store.rooms()] == ["BBB", "CCC"]
    with pytest.raises(StoreError, match="code"):
        store.save_room("", {})
    with pytest.raises(StoreError, match="JSON object"):
        store.save_room("X", ["not", "an", "object"])  # type: ignore[arg-type]


def test_old_rooms_are_pruned_unless_their_game_is_being_played(
    store: SQLStore, backend: Backend
) -> None:
    setup = parse_setup({"seed": 1}).to_json()
    for ident in ("live", "done", "stale"):
        store.create(ident, setup, 1, [hash_token(ident)])
    store.finish("done", {"format": "29-record/1", "deals": []})
    rooms = {
        "EMPTY": None,  # never started
        "LIVE": "live",  # its game moves on: kept, however old the room
        "DONE": "done",  # its game is over
        "STALE": "stale",  # its game stopped long ago
        "GONE": "nowhere",  # its game is not kept
        "FRESH": None,  # touched lately: kept
    }
    for code, game in rooms.items():
        store.save_room(code, {"host": code.lower()}, game=game)
    now = 1_000_000_000.0
    day = 86_400.0
    backend.raw(
        f"UPDATE rooms SET updated = {now - 10 * day}",
        f"UPDATE rooms SET updated = {now - day} WHERE code = 'FRESH'",
        f"UPDATE games SET updated = {now - 10 * day}",
        f"UPDATE games SET updated = {now - day} WHERE id = 'live'",
    )
    assert store.prune_rooms(now - 7 * day) == 4
    assert sorted(code for code, _, _ in store.rooms()) == ["FRESH", "LIVE"]
    assert store.prune_rooms(now - 7 * day) == 0  # nothing more: no error either


def test_one_of_many_processes_prunes_the_stored_rooms_when_a_room_is_made(
    store: SQLStore, backend: Backend
) -> None:
    store.save_room("OLD", {"host": "x"})
    backend.raw("UPDATE rooms SET updated = 0")
    lobby = Lobby(QUICK, store=store)
    lobby.cluster = object()  # one of many processes: nothing is restored at start
    assert lobby.shared
    lobby._prune_rooms_if_due()
    assert store.rooms() == []
    # at most once an hour: a room left since waits for the next time
    store.save_room("OLD2", {"host": "y"})
    backend.raw("UPDATE rooms SET updated = 0")
    lobby._prune_rooms_if_due()
    assert [code for code, _, _ in store.rooms()] == ["OLD2"]
    lobby._rooms_pruned -= ROOM_PRUNE_EVERY + 1
    lobby._prune_rooms_if_due()
    assert store.rooms() == []
    lobby.close()


def test_a_lone_server_prunes_the_stored_rooms_before_it_restores_them(
    store: SQLStore, backend: Backend
) -> None:
    store.save_room("OLD", {"host": "x"})
    store.save_room("NEW", {"host": "y"})
    backend.raw("UPDATE rooms SET updated = 0 WHERE code = 'OLD'")
    lobby = Lobby(QUICK, store=store)
    lobby.start()
    assert [code for code, _, _ in store.rooms()] == ["NEW"]
    lobby.close()


def test_a_corrupt_room_gives_a_clear_error(store: SQLStore, backend: Backend) -> None:
    store.save_room("R", {"ok": True})
    backend.raw("UPDATE rooms SET state = '[1]' WHERE code = 'R'")
    with pytest.raises(StoreError, match="room 'R': the state must be a JSON object"):
        store.rooms()


def test_summaries_one_row_per_known_game_in_one_query(
    store: SQLStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = parse_setup({"seed": 1}).to_json()
    two = parse_setup({"seed": 2, "seats": [{"human": True}, *QUICK_BOTS]}).to_json()
    store.create("a", one, 1, [hash_token("ta")])
    store.create("b", two, 2, [hash_token("tb"), "", "", ""])
    store.append("b", 0, {"seat": 1, "pass": True})
    store.finish("b", {"format": "29-record/1", "deals": [1]})
    store.create("c", one, 1, [hash_token("tc")])

    statements: list[str] = []
    real_run = store_module.Tx.run

    def counted(tx: store_module.Tx, sql: str, *params: Any) -> Any:
        statements.append(sql)
        return real_run(tx, sql, *params)

    monkeypatch.setattr(store_module.Tx, "run", counted)
    got = store.summaries(["b", "nope", "a", "b"])
    assert len(statements) == 1
    monkeypatch.undo()

    assert [g.ident for g in got] == ["b", "a"]
    b, a = got
    assert isinstance(b, StoredSummary)
    assert b.setup == two and b.finished and b.record == {"format": "29-record/1", "deals": [1]}
    assert b.token_hashes == (hash_token("tb"), "", "", "")
    assert b.seats_of("tb", [0]) == (0,) and b.admits("tb") and not b.admits("")
    assert a.setup == one and not a.finished and a.record is None
    assert a.created <= a.updated < b.updated
    assert b.updated >= b.created
    assert store.summaries([]) == []
    assert store.summaries(["nope"]) == []


def test_summaries_of_a_long_list(store: SQLStore) -> None:
    setup = parse_setup({"seed": 1}).to_json()
    for i in range(0, 1300, 100):
        store.create(f"g{i}", setup, 1, [hash_token("t")])
    idents = [f"g{i}" for i in range(1300)]
    got = store.summaries(idents)
    assert [s.ident for s in got] == [f"g{i}" for i in range(0, 1300, 100)]


def test_token_hashes_one_for_all_human_seats_or_one_per_seat(store: SQLStore) -> None:
    setup = parse_setup({"seed": 1}).to_json()
    shared = StoredGame("h", setup, 1, (hash_token("all"),), [])
    assert shared.seats_of("all", [2, 0]) == (0, 2)
    assert shared.seats_of("other", [0, 2]) == ()
    assert shared.admits("all") and not shared.admits("")

    per_seat = (hash_token("s0"), "", hash_token("s2"), hash_token("s2"))
    store.create("p", setup, 1, per_seat)
    got = store.load("p")
    assert got.token_hashes == per_seat
    assert got.seats_of("s0", range(4)) == (0,)
    assert got.seats_of("s2", range(4)) == (2, 3)
    assert got.seats_of("s2", [0, 2]) == (2,)  # only among the human seats given
    assert got.seats_of("", range(4)) == ()  # an empty hash is no seat's token
    assert got.admits("s0") and got.admits("s2") and not got.admits("s1")

    for bad in (
        [],
        ["the-raw-token"],
        [hash_token("a"), hash_token("b")],
        ["", "", "", ""],
        [hash_token("a"), "", "", "x"],
        [""],
    ):
        with pytest.raises(StoreError, match="one token hash"):
            store.create("bad", setup, 1, bad)
    assert store.summaries(["bad"]) == []
