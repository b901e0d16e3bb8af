"""The compiled kernels' interface as Python sees it, read from its one declaration,
``csrc/hodyn.h``: every entry point's argument types for ctypes, the model struct, the
constants (MAXK, the ABI number) and the status codes. Nothing here is a copy of the header:
a changed header changes what is read (and the compiler holds the C definitions to it).

The build (setup.py) parses the header once into ``_abi_table.py`` beside the kernels, with
the header's checksum (:func:`write_table`); a start builds the ctypes types from that table
where the checksum is the header's (a regex parse of the header cost each start 2.5-3.5 ms of the
~0.27 s, most of it compiling the patterns) and parses the header only where there is no
table or it is stale (a source tree never built, a header edited since).

>>> abi = read()
>>> abi.max_order, abi.status[1], abi.joint_kinds["helical"]
(22, 'HK_NOMEM', 2)
>>> abi.entry_points["hodyn_spd_solve"][1][:2] == [ctypes.c_int64, ctypes.c_int]
True
"""

from __future__ import annotations

import ctypes
import importlib
import re
import zlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeAlias

__all__ = ["Abi", "read", "parse", "write_table", "HEADER", "TABLE"]

HEADER = Path(__file__).parent / "csrc" / "hodyn.h"
#: the module the build writes beside the kernels (:func:`write_table`)
TABLE = "_abi_table"

# ctypes' types of a C value and of a C pointer (what a restype, an argtype, a field is); a
# string, as ctypes' classes are generic only in their stubs
_Value: TypeAlias = "type[ctypes._SimpleCData[Any]]"
_Arg: TypeAlias = "type[ctypes._SimpleCData[Any] | ctypes._Pointer[Any]]"

_SCALARS: dict[str, _Value] = {"int64_t": ctypes.c_int64, "int32_t": ctypes.c_int32,
                               "int": ctypes.c_int, "double": ctypes.c_double}
#: an array parameter's element type -> numpy's dtype name
_ARRAYS = {"double": "float64", "int32_t": "int32", "uint8_t": "uint8"}


@dataclass(frozen=True, eq=False, repr=False)
class Abi:
    """What ``hodyn.h`` declares: ``version`` (HODYN_KERNEL_ABI), ``max_order`` (MAXK - 2: the
    highest torque order), ``status`` (code -> name), ``joint_kinds`` (HModel's ``kind``
    codes: ``revolute``, ``prismatic``, ``helical`` -> code), ``model`` (the HModel ctypes
    Structure) and ``entry_points`` (name -> (restype, argtypes))."""

    version: int
    max_order: int
    status: dict[int, str]
    joint_kinds: dict[str, int]
    model: type[ctypes.Structure]
    entry_points: dict[str, tuple[_Value, list[_Arg]]]


def _arg_kind(declaration: str) -> str | None:
    """What one C parameter declaration (``const double *HK_NULLABLE W``) passes: a scalar's
    C type, ``model`` (the HModel pointer), ``address`` (a strided view's, an optional
    array's, or None), ``out int64_t`` (one value the entry point sets) or ``array <dtype>``
    (a C-contiguous array); None for ``void``."""
    words = [w for w in declaration.replace("*", " * ").split() if w != "const"]
    if words[-1] == "void":
        return None
    if "*" not in words:
        return words[0]
    if words[0] == "HModel":
        return "model"
    if "HK_NULLABLE" in words or "HK_STRIDED" in words:
        return "address"
    if words[0] == "int64_t":
        return "out int64_t"
    return f"array {_ARRAYS[words[0]]}"


def _model_fields(text: str) -> list[tuple[str, str]]:
    """HModel's members, (name, C type or ``pointer``), in order."""
    struct = re.search(r"typedef struct \{(.*?)\} HModel;", text, re.S)
    assert struct is not None, "hodyn.h, shipped with the package, declares HModel"
    fields: list[tuple[str, str]] = []
    for line in struct.group(1).split(";"):
        line = line.strip()
        if not line:
            continue
        member = re.match(r"(?:const )?(\w+)\s*(.*)", line)
        assert member is not None, "every HModel member reads `[const] type name[, name...]`"
        kind, names = member.groups()
        for name in names.split(","):
            name = name.strip()
            fields.append((name.lstrip("* "), "pointer" if name.startswith("*") else kind))
    return fields


def parse(text: str) -> dict:
    """The interface a header's text declares, as plain data (what the build's table holds):
    ``version``, ``max_order``, ``status``, ``joint_kinds``, ``model`` (HModel's fields) and
    ``entry_points`` (name -> (result's C type, the parameters' kinds, :func:`_arg_kind`))."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    define = {k: int(v) for k, v in re.findall(r"#define (\w+) (\d+)", text)}
    entry_points = {}
    for result, name, params in re.findall(r"(int|const char \*)\s*(hodyn_\w+)\(([^)]*)\);",
                                           text):
        kinds = [_arg_kind(p.strip()) for p in params.split(",")]
        entry_points[name] = (result, [k for k in kinds if k is not None])
    return {"version": define["HODYN_KERNEL_ABI"], "max_order": define["MAXK"] - 2,
            "status": {int(v): k for k, v in re.findall(r"(HK_\w+) = (\d+)", text)},
            "joint_kinds": {k.lower(): int(v) for k, v in re.findall(r"HJ_(\w+) = (\d+)", text)},
            "model": _model_fields(text), "entry_points": entry_points}


def _digest(data: bytes) -> int:
    """The header's checksum that keys the table (CRC-32 tells a stale table; hashlib's
    import alone costs a start ~2.5 ms, what the parse did; zlib is h5py's already)."""
    return zlib.crc32(data)


def write_table(header: Path, folder: Path) -> Path:
    """``folder/_abi_table.py``: :func:`parse` of ``header`` with its checksum (setup.py's build:
    beside the kernels it builds from that header). The parse needs no numpy: the build's
    environment has setuptools alone."""
    from pprint import pformat  # (the build's alone: a start does not import it)

    data = header.read_bytes()
    out = folder / f"{TABLE}.py"
    out.write_text(f'"""{header.name} parsed at build by abi.write_table (generated: not '
                   f'edited, not committed)."""\n\nCRC32 = {_digest(data)!r}\n'
                   f"TABLE = {pformat(parse(data.decode()), width=96, compact=True, sort_dicts=False)}\n")
    return out


def _table(header: Path) -> dict:
    """The build's table where it is ``header``'s (its checksum), else ``header`` parsed now."""
    data = header.read_bytes()
    try:
        built = importlib.import_module(f"{__package__}.{TABLE}")
    except ImportError:
        built = None
    if built is not None and built.CRC32 == _digest(data):
        return built.TABLE
    return parse(data.decode())


def _ctype(kind: str, model_pointer: type[ctypes._Pointer[Any]]) -> _Arg:
    """The ctypes type of a parameter's kind (:func:`_arg_kind`)."""
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "model":
        return model_pointer
    if kind == "address":
        return ctypes.c_void_p  # an address (or None): a strided view, an optional array
    if kind == "out int64_t":
        return ctypes.POINTER(ctypes.c_int64)  # one value the entry point sets
    import numpy as np  # (here: write_table runs in the build, without numpy)

    return np.ctypeslib.ndpointer(dtype=kind.split()[1], flags="C_CONTIGUOUS")


@cache
def read(header: Path = HEADER) -> Abi:
    """The interface ``header`` declares."""
    table = _table(header)
    fields = [(name, ctypes.c_void_p if kind == "pointer" else _SCALARS[kind])
              for name, kind in table["model"]]
    model: type[ctypes.Structure] = type("HModel", (ctypes.Structure,), {"_fields_": fields})
    pointer = ctypes.POINTER(model)
    # each kind's type once (ndpointer's arguments are checked at every call, ~1000 here)
    types = {k: _ctype(k, pointer)
             for k in {k for _, kinds in table["entry_points"].values() for k in kinds}}
    entry_points: dict[str, tuple[_Value, list[_Arg]]] = {
        name: (ctypes.c_int if result == "int" else ctypes.c_char_p, [types[k] for k in kinds])
        for name, (result, kinds) in table["entry_points"].items()}
    return Abi(table["version"], table["max_order"], table["status"], table["joint_kinds"],
               model, entry_points)
