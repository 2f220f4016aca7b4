"""Reads a catalog from a JSON/YAML file or a folder of them and validates all of it.

Every problem is reported with its file, evidence_id and field; nothing is written unless the
whole catalog is valid (the store writes only what this returns).

Every input file goes through `read_text`: only regular files are read (a FIFO or /dev/zero would
block or never end), at most MAX_FILE_BYTES, as UTF-8; YAML and JSON with a duplicate key are refused
(YAML with its line), and input nested deeper than MAX_DEPTH is refused instead of exhausting the stack.
YAML is read with libyaml when available, and a document whose aliases expand far beyond what is
written (an "alias bomb": 1 KB that expands to a billion values) is refused before it is built.
Ids and text fields are bounded and checked in core/catalog/evidence.py.
"""
from __future__ import annotations

import errno
import json
import os
import re
import stat
import unicodedata
from collections.abc import Iterable, MutableSequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import yaml
from pydantic import BaseModel, ValidationError

from core.catalog.bulk import collector_paused
from core.catalog.evidence import Catalog, CatalogSettings, Evidence, Kind, Principal, Role, id_problem, input_problems
from core.ingest import sql_check

SUFFIXES = {".json", ".yaml", ".yml"}
# Large enough for a 100k-object catalog or a big dbt manifest; small enough that a wrong path
# (a disk image, a log) is refused before it fills memory. ASOF_MAX_FILE_MB overrides it.
MAX_FILE_BYTES = int(float(os.environ.get("ASOF_MAX_FILE_MB", "512")) * 1024 * 1024)
MAX_DEPTH = 64  # no catalog, overlay or dbt artifact nests anywhere near this
# Aliases may repeat what is written (a shared ACL list), not multiply it: a YAML document may hold at most
# this many times its written values, plus a margin, once every alias is expanded.
MAX_ALIAS_EXPANSION = 10
ALIAS_MARGIN = 100_000


class Problem(BaseModel):
    file: str
    evidence_id: str | None = None
    field: str | None = None
    message: str

    def __str__(self) -> str:
        where = self.file
        if self.evidence_id:
            where += f": evidence {self.evidence_id}"
        if self.field:
            where += f": field {self.field}"
        return f"{where}: {self.message}"


class CatalogError(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def _fail(path: Path | str, message: str, field: str | None = None) -> CatalogError:
    return CatalogError([Problem(file=str(path), field=field, message=message)])


def open_regular(path: Path, follow: bool = True) -> BinaryIO:
    """`path` opened for reading if it is a regular file, else CatalogError saying what it is. Opened first and
    judged by what was opened (fstat), so nothing can be swapped in between; O_NONBLOCK so a FIFO is refused instead
    of waiting for a writer. With `follow`, a link to /dev/zero is judged by what it points at; without (a file
    found inside a folder), a link put in its place after the folder was listed is refused, not read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW))
    except FileNotFoundError:
        raise _fail(path, "no such file" + (" (a symlink whose target is missing)" if path.is_symlink() else "")) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise _fail(path, "is a symbolic link; only regular files inside the folder are read") from None
        raise _fail(path, f"cannot read: {exc.strerror or exc}") from None
    opened = os.fstat(fd)
    mode = opened.st_mode
    listed = getattr(path, "identity", None)
    if listed is not None and (opened.st_dev, opened.st_ino) != listed:
        os.close(fd)  # a folder above it was replaced (by a link, or moved) after the walk listed the file
        raise _fail(path, "is not the file that was listed in its folder (a folder on its path was replaced, by a "
                          "symbolic link or otherwise, while the ingest read it); not read")
    if stat.S_ISREG(mode):
        return os.fdopen(fd, "rb")
    os.close(fd)  # a folder opens too, but is no file
    if stat.S_ISDIR(mode):
        raise _fail(path, "is a folder where a file was expected")
    kind = ("a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise _fail(path, f"is {kind}; only regular files are read")


def read_text(path: Path | str, max_bytes: int | None = None, follow: bool = True) -> str:
    """The text of a regular file, or CatalogError naming the file and why it cannot be read (`follow`: as
    open_regular)."""
    path = path if isinstance(path, Path) else Path(path)  # a Listed path keeps the identity it was listed with
    limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
    with open_regular(path, follow) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise _fail(path, f"is {size:,} bytes, over the {limit:,}-byte limit (ASOF_MAX_FILE_MB)")
        try:
            data = fh.read(limit + 1)  # the file may grow between fstat and read
        except OSError as exc:
            raise _fail(path, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise _fail(path, f"is over the {limit:,}-byte limit (ASOF_MAX_FILE_MB)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise _fail(path, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line}, offset {exc.start})") from None


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml: a 50 MB file in seconds
    """SafeLoader that refuses a mapping with the same key twice (PyYAML keeps the last silently,
    so a second `evidence:` key would quietly drop every object above it)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
            seen: dict = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    hash(key)
                except TypeError:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark, "found an unhashable key",
                        key_node.start_mark) from None
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"duplicate key {key!r} (first at line {seen[key] + 1})", key_node.start_mark)
                seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


def _yaml_values(root: yaml.Node) -> tuple[int, int] | None:
    """(values written, values once every alias is expanded) of a composed YAML document, counted over its
    node graph without expanding it; None when an alias contains itself. Iterative: deep input is fine."""
    limit = (1 << 62)
    size: dict[int, int] = {}
    open_: set[int] = set()  # nodes whose children are being counted: the current path
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        children = ([n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) else
                    node.value if isinstance(node, yaml.SequenceNode) else [])
        if done:
            size[id(node)] = min(limit, 1 + sum(size[id(c)] for c in children))
            open_.discard(id(node))
            continue
        if id(node) in size:
            continue
        if id(node) in open_:
            return None
        open_.add(id(node))
        stack.append((node, True))
        for child in children:
            if id(child) in open_:
                return None
            if id(child) not in size:
                stack.append((child, False))
    return len(size), size[id(root)]


def _load_yaml(text: str, path: Path | str) -> Any:
    loader = _UniqueKeyLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        counted = _yaml_values(node)
        if counted is None:
            raise _fail(path, "YAML alias refers to itself (a recursive anchor); refused")
        written, expanded = counted
        if expanded > written * MAX_ALIAS_EXPANSION + ALIAS_MARGIN:
            raise _fail(path, f"YAML aliases expand {written:,} written values to "
                              f"{'more than ' if expanded >= 1 << 62 else ''}{expanded:,}; refused as an alias "
                              f"bomb (at most {MAX_ALIAS_EXPANSION}x what is written, plus {ALIAS_MARGIN:,})")
        return loader.construct_document(node)
    finally:
        loader.dispose()


class _DuplicateJSONKey(ValueError):
    def __init__(self, key: str, pairs: list[tuple[str, Any]]):
        owner = next((v for k, v in pairs if k == "evidence_id" and isinstance(v, str)), None)
        self.key, self.owner = key, owner
        super().__init__(key)


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict:
    """json.loads keeps the last of two equal keys silently; a catalog must say which one it means."""
    seen = dict(pairs)  # built in C; a shorter dict than the pairs means a key came twice
    if len(seen) == len(pairs):
        return seen
    seen.clear()
    for key, value in pairs:
        if key in seen:
            raise _DuplicateJSONKey(key, pairs)
        seen[key] = value
    return seen


def _depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Iterative, so a 100,000-deep document cannot exhaust the stack here."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return True


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = np.zeros(256, dtype=np.int8)
_STEP[list(b"[{")], _STEP[list(b"]}")] = 1, -1


def _nesting(text: str) -> int:
    """Bracket nesting of JSON text (its depth once parsed), checked before the parser recurses into it.
    Strings are cut out by one regular expression and the brackets left are counted by numpy: a 50 MB catalog
    in well under a second, where a Python turn per bracket took seconds."""
    # Without a backslash no quote is escaped: strings are every other piece between quotes.
    outside = "".join(text.split('"')[::2]) if "\\" not in text else _JSON_STRING.sub("", text)
    brackets = outside.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKET)
    if not brackets:
        return 0
    return max(0, int(np.cumsum(_STEP[np.frombuffer(brackets, dtype=np.uint8)], dtype=np.int64).max()))


def parse_text(text: str, path: Path | str, as_json: bool) -> Any:
    """Parse JSON or YAML text into plain Python values, or CatalogError with file, line and column."""
    with collector_paused():
        return _parse_text(text, path, as_json)


def _parse_text(text: str, path: Path | str, as_json: bool) -> Any:
    try:
        if as_json:
            if _nesting(text) > MAX_DEPTH:
                raise _fail(path, f"JSON nested deeper than {MAX_DEPTH} levels")
            data = json.loads(text, object_pairs_hook=_unique_pairs)
        else:
            data = _load_yaml(text, path)
    except _DuplicateJSONKey as exc:
        where = [Problem(file=str(path), evidence_id=exc.owner, field=exc.key,
                         message=f"duplicate key {_short(exc.key)} in one JSON object; JSON readers keep only "
                                 "the last one, so the catalog must not repeat a key")]
        raise CatalogError(where) from None
    except json.JSONDecodeError as exc:
        raise _fail(path, f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or exc
        if "maximum nesting depth" in str(problem):  # libyaml's own limit, far above ours
            raise _fail(path, f"nested deeper than {MAX_DEPTH} levels{at}") from None
        raise _fail(path, f"malformed YAML{at}: {problem}") from None
    except RecursionError:
        raise _fail(path, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer longer than Python converts (4,300 digits)
        raise _fail(path, f"unreadable value: {exc}") from None
    # JSON's depth is its bracket nesting, already checked; YAML's is known only once it is built.
    if not as_json and not _depth_ok(data):
        raise _fail(path, f"nested deeper than {MAX_DEPTH} levels")
    return data


def _link_problem(link: Path, folder: Path) -> Problem:
    try:
        target = f" (to {os.readlink(link)})"
    except OSError:
        target = ""
    return Problem(file=str(link), message=f"is a symbolic link{target}; only regular files inside {folder} are "
                                           "read, so the link is refused: copy the file into the folder instead")


class Listed(type(Path())):
    """A file found inside a folder, with the (device, inode) it had when it was listed: opened later by its path, it
    is read only if it is still that file. Refusing a link as the last component is not enough: a folder above the
    file swapped for a link between listing and reading would open another file, whose inode differs."""
    identity: tuple[int, int]


def listed(path: Path, st: os.stat_result) -> Listed:
    out = Listed(path)
    out.identity = (st.st_dev, st.st_ino)
    return out


def folder_files(folder: Path, suffixes: set[str] | frozenset[str]) -> tuple[list[Listed], list[Problem]]:
    """The files under `folder` whose suffix is one of `suffixes`, and a problem naming each symbolic link that
    would have been read (a linked file with such a suffix, or a linked folder: anything could lie below it).

    Links are refused, never followed, even when they point inside the folder: what a folder publishes to its
    roles must be what is in it, and a link can be repointed (to an account or token file) after it was checked.
    The folder itself may be a link: the person running the ingest named it. Every level below it is listed
    through a descriptor of the level above (os.fwalk), never through a path, so a sub-folder swapped for a link
    while the walk runs is not entered; and each file found carries its identity (`Listed`), checked when read."""
    found: list[Listed] = []
    problems: list[Problem] = []
    top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for root, dirs, files, here_fd in os.fwalk(".", dir_fd=top):  # follow_symlinks=False: links never entered
            here = folder / root
            for name in sorted(dirs):
                st = _lstat(name, here_fd)
                if st is not None and stat.S_ISLNK(st.st_mode):
                    problems.append(_link_problem(here / name, folder))
            for name in sorted(files):
                if Path(name).suffix not in suffixes:
                    continue
                st = _lstat(name, here_fd)
                if st is None:
                    continue  # removed since it was listed
                if stat.S_ISLNK(st.st_mode):
                    problems.append(_link_problem(here / name, folder))
                else:
                    found.append(listed(here / name, st))
    finally:
        os.close(top)
    return sorted(found), problems


def pinned(folder: Path) -> Path:
    """A folder named by whoever runs the ingest (it may be a link), with the identity it has now: a file looked for
    in it by name later (`file_in`) is looked for in this folder, or refused once the folder was replaced."""
    try:
        return listed(folder, folder.stat())
    except OSError:
        return folder  # missing or unreadable: the reader says so, naming it


def file_in(folder: Path, name: str) -> Listed | None:
    """`folder/name` if it is a regular file, looked up in the folder's own descriptor without following a link,
    with its identity (checked again when it is read); None when there is no such file."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        now, was = os.fstat(fd), getattr(folder, "identity", None)
        if was is not None and (now.st_dev, now.st_ino) != was:
            raise _fail(folder, "was replaced (by a symbolic link or otherwise) while the ingest read it; not read")
        found = _lstat(name, fd)
    finally:
        os.close(fd)
    return listed(folder / name, found) if found is not None and stat.S_ISREG(found.st_mode) else None


def file_below(folder: Path, *names: str) -> Listed | None:
    """`folder/names...` found level by level, each sub-folder opened relative to the one above without following a
    link (CatalogError naming the level that is a link), with the file's identity, so reading it later by path
    (read_text) refuses anything swapped in meanwhile; None when it is missing. `folder` itself may be a link."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    path = folder
    try:
        for name in names[:-1]:
            path = path / name
            try:
                inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                return None
            except OSError as exc:
                st = _lstat(name, fd)
                if st is not None and stat.S_ISLNK(st.st_mode):
                    raise CatalogError([_link_problem(path, folder)]) from None
                raise _fail(path, f"cannot open: {exc.strerror or exc}") from None
            os.close(fd)
            fd = inner
        st = _lstat(names[-1], fd)
    finally:
        os.close(fd)
    path = path / names[-1]
    if st is None:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise CatalogError([_link_problem(path, folder)])
    return listed(path, st)


def _lstat(name: str, dir_fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def linked_file(path: Path, folder: Path) -> CatalogError | None:
    """A refusal when `path`, a file AsOf looks for by name inside `folder` (a dbt artifact), is a symbolic link."""
    return CatalogError([_link_problem(path, folder)]) if path.is_symlink() else None


def catalog_files(path: Path) -> list[Path]:
    if not path.exists():
        raise _fail(path, "no such file or folder" + (" (a symlink whose target is missing)"
                                                      if path.is_symlink() else ""))
    if path.is_dir():
        found, links = folder_files(path, SUFFIXES)
        if links:
            raise CatalogError(links)
        if not found:
            raise _fail(path, "folder holds no .json/.yaml/.yml catalog file")
        return found
    return [path]


def parse_file(path: Path, follow: bool = True) -> Any:
    return parse_text(read_text(path, follow=follow), path, as_json=Path(path).suffix == ".json")


def _field(loc: tuple) -> str:
    return ".".join(str(part) for part in loc) or "(object)"


def _type(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text):,} characters)"


# Letters from other scripts that render like Latin ones: `metric.revenue` written with a Cyrillic
# `е` is a different id that no one can tell apart on screen.
_LOOKALIKES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j", "ԁ": "d", "ɡ": "g", "ӏ": "l", "ԛ": "q", "ԝ": "w",
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "ı": "i", "ℓ": "l"})


def id_skeleton(value: str) -> str:
    """What an id looks like to a reader: compatibility-normalized, case-folded, look-alikes mapped."""
    return unicodedata.normalize("NFKC", value).casefold().translate(_LOOKALIKES)


def _mixed_script_warning(ev: Evidence, fname: str) -> list[str]:
    out = []
    for name, value in (("evidence_id", ev.evidence_id), ("entity_id", ev.entity_id)):
        if not value.isascii() and value.translate(_LOOKALIKES) != value:
            out.append(f"{fname}: evidence {ev.evidence_id}: field {name}: contains letters "
                       f"that look like Latin ones but are not ({ascii(value)})")
    return out


def load_catalog(path: str | Path) -> Catalog:
    """Load and validate; raises CatalogError listing every problem found."""
    docs, problems = [], []
    for file in catalog_files(Path(path)):
        try:
            docs.append((str(file), parse_file(file, follow=file == Path(path))))  # only the named path may be a link
        except CatalogError as exc:
            problems.extend(exc.problems)
    return build_catalog(docs, str(path), problems)


def build_catalog(docs: Iterable[tuple[str, Any]], where: str, problems: list[Problem] | None = None,
                  into: MutableSequence[Evidence] | None = None) -> Catalog:
    """Validate catalog documents (each named by the file it came from) into one Catalog, or raise
    CatalogError with every problem. The dbt and OpenLineage readers produce documents too.

    `docs` may be read lazily (an ingest parses one file at a time; a reader adds the problems of a file it cannot
    parse to `problems` as it goes); `into` receives the validated objects (an ingest keeps them on disk,
    core/catalog/spilled.py; by default a list). The cross-object checks keep compact facts per object (ids,
    skeletons, the references not yet resolved), never the objects."""
    with collector_paused():
        return _build_catalog(docs, where, problems, [] if into is None else into)


def _build_catalog(docs: Iterable[tuple[str, Any]], where: str, given: list[Problem] | None,
                   evidence: MutableSequence[Evidence]) -> Catalog:
    problems: list[Problem] = []
    roles: dict[str, Role] = {}
    principals: list[Principal] = []
    checks = _Checks(roles)
    settings: dict[str, Any] = {}

    for fname, doc in docs:
        if doc is None:
            continue
        if not isinstance(doc, dict):
            problems.append(Problem(file=fname, message="top level must be a mapping with 'roles' and/or 'evidence'"))
            continue
        unknown = set(doc) - {"roles", "principals", "evidence", "settings"}
        if unknown:
            problems.append(Problem(file=fname, field=", ".join(sorted(unknown)), message="unknown top-level key"))
        wrong = [k for k in ("roles", "principals", "evidence") if not isinstance(doc.get(k) or [], list)]
        for key in wrong:
            problems.append(Problem(file=fname, field=key, message=f"must be a list, got {_type(doc[key])}"))
        if wrong:
            continue
        for i, raw in enumerate(doc.get("roles") or []):
            try:
                role = Role.model_validate(raw)
            except ValidationError as exc:
                for err in exc.errors():
                    problems.append(Problem(file=fname, field=f"roles[{i}].{_field(err['loc'])}", message=err["msg"]))
                continue
            bad = input_problems(role)
            problems.extend(Problem(file=fname, field=f"roles[{i}].{f}", message=m) for f, m in bad)
            if not bad:
                roles[role.name] = role
        raw_settings = doc.get("settings") or {}
        try:
            settings.update(CatalogSettings.model_validate(raw_settings).model_dump(exclude_unset=True))
        except ValidationError as exc:
            for err in exc.errors():
                problems.append(Problem(file=fname, field=f"settings.{_field(err['loc'])}", message=err["msg"]))
        for i, raw in enumerate(doc.get("principals") or []):
            try:
                principal = Principal.model_validate(raw)
            except ValidationError as exc:
                for err in exc.errors():
                    problems.append(Problem(file=fname, field=f"principals[{i}].{_field(err['loc'])}", message=err["msg"]))
                continue
            bad = input_problems(principal)
            problems.extend(Problem(file=fname, field=f"principals[{i}].{f}", message=m) for f, m in bad)
            if not bad:
                principals.append(principal)
        for i, raw in enumerate(doc.get("evidence") or []):
            eid = raw.get("evidence_id") if isinstance(raw, dict) else None
            # An id that is not one (control characters, a megabyte) is named by its position, shown escaped.
            label = (eid if isinstance(eid, str) and eid and not id_problem(eid) else
                     f"#{i} {_short(eid, 60)}" if isinstance(eid, str) and eid else f"#{i}")
            if not isinstance(raw, dict):
                problems.append(Problem(file=fname, evidence_id=label, message="evidence item must be a mapping"))
                continue
            try:
                ev = Evidence.model_validate(raw)
            except ValidationError as exc:
                for err in exc.errors():
                    msg = err["msg"]
                    if err["type"] == "enum":
                        msg = f"{msg} (got {_short(err.get('input'))})"
                    problems.append(Problem(file=fname, evidence_id=label, field=_field(err["loc"]), message=msg))
                continue
            bad = input_problems(ev)
            if bad:
                problems.extend(Problem(file=fname, evidence_id=label, field=f, message=m) for f, m in bad)
                continue
            if ev.evidence_id in checks.origin:
                problems.append(Problem(file=fname, evidence_id=ev.evidence_id, field="evidence_id",
                                        message=f"duplicate evidence_id (first defined in {checks.origin[ev.evidence_id]})"))
                continue
            checks.add(ev, fname)
            evidence.append(ev)

    # Read last: a lazy reader of `docs` adds the problems of files it could not parse to the caller's list.
    problems = [*(given or []), *problems]
    if not roles and not problems:  # a file that could not be read already explains a missing roles list
        problems.append(Problem(file=where, field="roles", message="the catalog declares no roles"))
    problems.extend(checks.problems(principals))
    if problems:
        raise CatalogError(problems)
    catalog = Catalog.model_construct(settings=CatalogSettings(**settings), roles=list(roles.values()),
                                      principals=principals, evidence=evidence, warnings=checks.warnings())
    return catalog


class _Checks:
    """The cross-object checks, fed one validated object at a time: what they keep is compact (each id once, the
    skeleton of an id that differs from it, the references and ACL roles not resolved yet, and the few objects
    metric SQL is checked against), so a large catalog's objects need not stay in memory. Problems and warnings
    are reported in the order of the objects, as one pass over the finished catalog would."""

    def __init__(self, roles: dict[str, Role]):
        self.roles = roles  # filled as the documents are read; complete when `problems` is asked
        self.origin: dict[str, str] = {}  # evidence id -> the file that defined it
        self.entities: set[str] = set()
        self.fresh_sources: set[str] = set()
        self.first: dict[str, str] = {}  # id skeleton -> the first id with it (the id itself as key when equal)
        self.seq = 0
        self.found: list[tuple[int, int, Problem]] = []  # (object, place, problem): sorted into object order
        self.noted: list[tuple[int, int, str]] = []
        self.mixed: list[str] = []
        self.confusable: list[Problem] = []
        self.acl_later: list[tuple[int, str, str, str]] = []  # (object, file, id, role not declared yet)
        self.links_later: list[tuple[int, str, str, str, str]] = []  # (object, file, id, link type, target)
        self.edges_later: list[tuple[int, str, str, int, str]] = []  # (object, file, id, edge number, end)
        self.with_sql: list[tuple[int, str, Evidence]] = []
        self.models_by_id: dict[str, Evidence] = {}  # models with a relation: what metric SQL may read
        self.models_by_entity: dict[str, list[Evidence]] = {}

    def _known(self, ref: str) -> bool:
        return ref in self.origin or ref in self.entities

    def add(self, ev: Evidence, fname: str) -> None:
        n, eid = self.seq, ev.evidence_id
        self.seq += 1
        self.origin[eid] = fname
        self.entities.add(ev.entity_id)
        if ev.freshness and ev.freshness.source:
            self.fresh_sources.add(ev.freshness.source)
        key = id_skeleton(eid)
        key = eid if key == eid else key
        other = self.first.setdefault(key, eid)
        if other != eid:
            how = "only in letter case" if other.casefold() == eid.casefold() else \
                "only by look-alike or compatibility characters"
            self.confusable.append(Problem(file=fname, evidence_id=eid, field="evidence_id",
                                           message=f"differs from {other!r} ({self.origin[other]}) {how}; use one "
                                                   "spelling"))
        self.mixed += _mixed_script_warning(ev, fname)
        if not ev.acl:
            self.noted.append((n, 0, f"{fname}: evidence {eid}: field acl: empty ACL, nobody can see it"))
        for r in ev.acl:
            if r not in self.roles:
                self.acl_later.append((n, fname, eid, r))
        for link_type, target in ev.link_targets():
            if not self._known(target):
                self.links_later.append((n, fname, eid, link_type, target))
        unknown: dict[str, int] = {}
        for i, edge in enumerate(ev.edges):
            for end in (edge.upstream, edge.downstream):
                if not self._known(end) and end not in self.fresh_sources:
                    unknown.setdefault(end, i)
        self.edges_later += [(n, fname, eid, i, end) for end, i in unknown.items()]
        if ev.metric is not None and ev.metric.sql:
            self.with_sql.append((n, fname, ev))
        if ev.kind is Kind.model and ev.model and ev.model.relation:
            self.models_by_id[eid] = ev
            self.models_by_entity.setdefault(ev.entity_id, []).append(ev)
        if ev.kind is Kind.metric_definition and ev.metric is None and ev.authority.value == "authoritative":
            self.noted.append((n, 2, f"{fname}: evidence {eid}: field metric: authoritative metric without a "
                                     "structured definition; only its text can be shown"))

    def problems(self, principals: list[Principal]) -> list[Problem]:
        out: list[Problem] = []
        for p in principals:
            for r in p.roles:
                if r not in self.roles:
                    out.append(Problem(file="(catalog)", field=f"principals.{p.name}.roles",
                                       message=f"unknown role {r!r}"))
        declared = ", ".join(sorted(self.roles))
        for n, fname, eid, r in self.acl_later:
            if r not in self.roles:
                self.found.append((n, 0, Problem(file=fname, evidence_id=eid, field="acl",
                                                 message=f"unknown role {r!r}; declared roles: {declared}")))
        for n, fname, eid, link_type, target in self.links_later:
            if not self._known(target):
                self.found.append((n, 1, Problem(file=fname, evidence_id=eid, field=f"links.{link_type}",
                                                 message=f"links to missing object {target!r}")))
        for n, fname, ev in self.with_sql:
            for message in sql_check.problems(ev, self.models_by_id, self.models_by_entity):
                self.found.append((n, 2, Problem(file=fname, evidence_id=ev.evidence_id, field="metric.sql",
                                                 message=message)))
        out += [p for _, _, p in sorted(self.found, key=lambda f: f[:2])]
        return out + self.confusable

    def warnings(self) -> list[str]:
        for n, fname, eid, i, end in self.edges_later:
            if not self._known(end) and end not in self.fresh_sources:
                self.noted.append((n, 1, f"{fname}: evidence {eid}: field edges[{i}]: lineage edge to unknown node "
                                         f"{end!r}"))
        return [w for _, _, w in sorted(self.noted, key=lambda w: w[:2])] + self.mixed
