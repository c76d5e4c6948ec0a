"""Where ``twentynine score`` keeps its sheets: one JSON file per sheet (a match),
in a folder of their own unless a path is given, so a table's matches can be
listed, finished ones apart, and any of them resumed.

A file is written whole to a temporary name and then renamed over the old
one, so a sheet is never left half written. A file that cannot be read is
reported with the reason and left alone.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from ..game.scoresheet import Sheet, sheet_csv, sheet_from_link
from ..game.scoring import ScoreError

# Where ``twentynine serve`` listens by default: the address of a printed link.
DEFAULT_BASE = "http://127.0.0.1:8029"
# A sheet's name in the folder: letters, digits, spaces, dots, dashes, underscores.
NAME = re.compile(r"^\w[\w .-]{0,59}$")
SUFFIX = ".json"


class FileError(ValueError):
    """A sheet file (or a shared link) that cannot be read or written; says why."""


def sheets_dir(given: str | None = None) -> Path:
    """``--dir``, else ``$TWENTYNINE_SHEETS``, else ``$XDG_DATA_HOME/twentynine/sheets``."""
    if given:
        return Path(given).expanduser()
    if os.environ.get("TWENTYNINE_SHEETS"):
        return Path(os.environ["TWENTYNINE_SHEETS"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "twentynine" / "sheets"


def sheet_path(name: str, folder: str | None = None) -> Path:
    """A path as given (it has a slash or ends in .json), else a name in the sheets folder."""
    if "/" in name or os.sep in name or name.endswith(SUFFIX):
        return Path(name).expanduser()
    if not NAME.match(name):
        raise FileError(
            f"{name!r} is not a sheet name: use letters, digits, spaces, '.', '-' or '_' "
            "(up to 60), or give a path ending in .json"
        )
    return sheets_dir(folder) / f"{name}{SUFFIX}"


def read_file(path: Path) -> Sheet:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise FileError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise FileError(f"{path} is not a text file") from None
    try:
        data = json.loads(text)
    except ValueError as e:
        raise FileError(f"{path} is not JSON: {e}") from None
    try:
        return Sheet.from_json(data)
    except ScoreError as e:
        raise FileError(f"{path}: {e}") from None


def load_sheet(path: Path | None, source: str | None = None) -> Sheet | None:
    """The sheet kept at ``path``, or the one ``source`` (a file or a link) holds;
    None for a new sheet. ``source`` never overwrites a kept sheet."""
    if source is not None:
        if path is not None and path.exists():
            raise FileError(f"{path} exists already: --from starts a new sheet, name another")
        candidate = Path(source).expanduser()
        if candidate.is_file():
            return read_file(candidate)
        try:
            return sheet_from_link(source)
        except ScoreError as e:
            raise FileError(f"--from is neither a sheet file nor a sheet link: {e}") from None
    if path is None or not path.exists():
        return None
    return read_file(path)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as e:
        raise FileError(f"cannot write {path}: {e.strerror or e}") from None


def save_sheet(sheet: Sheet, path: Path) -> None:
    """Write the sheet with its history, stamped with when it began and last changed."""
    sheet.created = sheet.created or now()
    sheet.updated = now()
    _write(path, json.dumps(sheet.to_json(), indent=1, ensure_ascii=False) + "\n")


def write_export(sheet: Sheet, path: Path) -> Path:
    """The sheet as CSV or JSON (by the file's ending); the JSON opens with --sheet or
    in the web app's import."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        _write(path, sheet_csv(sheet))
    elif suffix == SUFFIX:
        _write(path, json.dumps(sheet.to_json(), indent=1, ensure_ascii=False) + "\n")
    else:
        raise FileError(f"export to a file ending in .csv or .json, not {path.name!r}")
    return path


Row = tuple[str, Sheet, str]


def list_sheets(folder: Path) -> tuple[list[Row], list[Row], list[tuple[str, str]]]:
    """The sheets of the folder in play and finished (each the last changed first),
    and the files that cannot be read with the reason."""
    playing: list[Row] = []
    finished: list[Row] = []
    broken: list[tuple[str, str]] = []
    files = sorted(folder.glob(f"*{SUFFIX}")) if folder.is_dir() else []
    for file in files:
        name = file.name[: -len(SUFFIX)]
        try:
            sheet = read_file(file)
        except FileError as e:
            broken.append((name, str(e).removeprefix(f"{file}: ")))
            continue
        stamp = sheet.updated or datetime.fromtimestamp(file.stat().st_mtime, UTC).isoformat(
            timespec="seconds"
        )
        (finished if sheet.over else playing).append((name, sheet, stamp[:16].replace("T", " ")))
    for rows in (playing, finished):
        rows.sort(key=lambda row: row[2], reverse=True)
    return playing, finished, broken
