"""The package as the browser gets it: one zip of its Python and its data.

``build()`` zips the ``twentynine`` package (sources and data files such as
``data/bidding.json``) without what the browser never runs: the web app's
static files and Pyodide, the terminal app, the research environments
(their libraries are not in the browser), caches. The zip is the same
bytes for the same files (fixed dates, sorted names), so its hash names it.
The web app builds it once at start-up (a few tens of milliseconds).
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
LEFT_OUT = ("web/static", "web/pyodide", "tui", "rl")
SUFFIXES = (".py", ".json", ".typed")
EPOCH = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class Bundle:
    data: bytes
    digest: str  # the first 12 hex digits of its SHA-256
    files: int

    @property
    def name(self) -> str:
        return f"twentynine-{self.digest}.zip"


def bundled(root: Path = PACKAGE) -> list[Path]:
    """The files of the package that go to the browser, in a stable order."""
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or "__pycache__" in rel or not rel.endswith(SUFFIXES):
            continue
        if any(rel == skip or rel.startswith(skip + "/") for skip in LEFT_OUT):
            continue
        out.append(path)
    return out


def build(root: Path = PACKAGE) -> Bundle:
    buf = io.BytesIO()
    files = bundled(root)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for path in files:
            info = zipfile.ZipInfo(f"twentynine/{path.relative_to(root).as_posix()}", EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, path.read_bytes())
    data = buf.getvalue()
    return Bundle(data, hashlib.sha256(data).hexdigest()[:12], len(files))
