"""The folders are the layers: every import points down, and no modules import each other.

The layers, bottom to top, are those of docs/architecture.md. Each module of
the package is given the layer of its folder (the rules core keeps a ladder of
its own inside ``game``). An import of a module in a higher layer, anywhere in
a file (inside a function too), fails this test; so does an import cycle
among the modules, or among the browser's scripts.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "twentynine"
SCRIPTS = PACKAGE / "web" / "static" / "js"

# Bottom to top. A module belongs to the longest prefix that names it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("twentynine.game.cards",),
    ("twentynine.game.rules",),
    ("twentynine.game.actions",),
    ("twentynine.game.dealing",),
    ("twentynine.game.contract",),
    ("twentynine.game.state",),
    ("twentynine.game.auction", "twentynine.game.pair", "twentynine.game.refusals"),
    ("twentynine.game.engine",),
    ("twentynine.game.match",),
    ("twentynine.game.observation",),
    ("twentynine.game.record", "twentynine.game.account", "twentynine.game.scoring"),
    ("twentynine.game",),
    ("twentynine", "twentynine.solver"),
    ("twentynine.bots",),
    ("twentynine.services",),
    ("twentynine.server",),
    ("twentynine.offline",),
    ("twentynine.web",),
    ("twentynine.tui",),
    ("twentynine.rl",),
    ("twentynine.benchmarks",),
    ("twentynine.cli",),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best, level = -1, -1
    for i, names in enumerate(LAYERS):
        for name in names:
            if (module == name or module.startswith(name + ".")) and len(name) > best:
                best, level = len(name), i
    assert level >= 0, f"{module} is in no layer: add its folder to LAYERS and the docs"
    return level


def imports_of(module: str) -> set[str]:
    """The package's modules that ``module`` imports, at the top or anywhere below it."""
    path = modules()[module]
    is_package = path.name == "__init__.py"
    here = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            # "from x import y" names module x.y when y is a module, else x
            names = [f"{stem}.{a.name}" for a in node.names] + [stem]
        else:
            continue
        for name in names:
            while name and name not in modules():
                name = name.rpartition(".")[0]
            if name and name != module and not module.startswith(name + "."):
                found.add(name)
    return found


def graph() -> dict[str, set[str]]:
    return {m: imports_of(m) for m in modules()}


def test_every_import_points_down_a_layer_or_stays_in_its_own() -> None:
    upward = [
        f"{m} (layer {layer_of(m)}) imports {t} (layer {layer_of(t)})"
        for m, targets in graph().items()
        for t in sorted(targets)
        if layer_of(t) > layer_of(m)
    ]
    assert not upward, "imports that point up a layer:\n" + "\n".join(upward)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_two_modules_import_each_other() -> None:
    # a package importing its own submodules (to re-export them) is no cycle
    edges = {
        m: {t for t in ts if not t.startswith(m + ".") and not m.startswith(t + ".")}
        for m, ts in graph().items()
    }
    assert cycles(edges) == []


_SCRIPT_IMPORT = re.compile(r"""^\s*import\s[^;]*?from\s+["']\./([\w-]+\.js)["']""", re.M)


def test_no_two_browser_scripts_import_each_other() -> None:
    edges = {
        p.name: set(_SCRIPT_IMPORT.findall(p.read_text())) for p in sorted(SCRIPTS.glob("*.js"))
    }
    assert any(edges.values()), "the scripts' imports were not found"
    assert cycles(edges) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from ..server.game import Game", "twentynine.server.game"),
        ("from .. import server", "twentynine.server"),
        ("import twentynine.cli.main", "twentynine.cli.main"),
        ("def f():\n    from ..web import app", "twentynine.web.app"),
    ],
)
def test_the_check_sees_every_form_of_import(
    source: str, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checker itself: relative, absolute and function-level imports are all found."""
    known = dict(modules())
    known["twentynine.bots.probe"] = tmp_path / "probe.py"
    (tmp_path / "probe.py").write_text(source)
    monkeypatch.setattr(sys.modules[__name__], "modules", lambda: known)
    found = imports_of("twentynine.bots.probe")
    assert expected in found
    assert layer_of(expected) > layer_of("twentynine.bots.probe")
