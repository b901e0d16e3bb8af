"""The compiled kernels' interface as Python sees it, read from its one declaration,
``csrc/hodyn.h``: every entry point's argument types for ctypes, the model struct, the
constants (MAXK, the ABI number) and the status codes. Nothing here is a copy of the header:
a changed header changes what is read (and the compiler holds the C definitions to it).

>>> abi = read()
>>> abi.max_order, abi.status[1], abi.joint_kinds["helical"]
(22, 'HK_NOMEM', 2)
>>> abi.entry_points["hodyn_spd_solve"][1][:2] == [ctypes.c_int64, ctypes.c_int]
True
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np

__all__ = ["Abi", "read", "HEADER"]

HEADER = Path(__file__).parent / "csrc" / "hodyn.h"

# ctypes' types of a C value and of a C pointer (what a restype, an argtype, a field is); a
# string, as ctypes' classes are generic only in their stubs
_Value: TypeAlias = "type[ctypes._SimpleCData[Any]]"
_Arg: TypeAlias = "type[ctypes._SimpleCData[Any] | ctypes._Pointer[Any]]"

_SCALARS: dict[str, _Value] = {"int64_t": ctypes.c_int64, "int32_t": ctypes.c_int32,
                               "int": ctypes.c_int, "double": ctypes.c_double}
_ARRAYS = {"double": np.float64, "int32_t": np.int32, "uint8_t": np.uint8}


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


def _argtype(declaration: str, model_pointer: type[ctypes._Pointer[Any]]) -> _Arg | None:
    """The ctypes type of one C parameter declaration (``const double *HK_NULLABLE W``)."""
    words = declaration.replace("*", " * ").split()
    words = [w for w in words if w != "const"]
    if words[-1] == "void":
        return None
    pointer = "*" in words
    if not pointer:
        return _SCALARS[words[0]]
    if words[0] == "HModel":
        return model_pointer
    if "HK_NULLABLE" in words or "HK_STRIDED" in words:
        return ctypes.c_void_p  # an address (or None): a strided view, an optional array
    if words[0] == "int64_t":
        return ctypes.POINTER(ctypes.c_int64)  # one value the entry point sets
    return np.ctypeslib.ndpointer(dtype=_ARRAYS[words[0]], flags="C_CONTIGUOUS")


def _model_struct(text: str) -> type[ctypes.Structure]:
    struct = re.search(r"typedef struct \{(.*?)\} HModel;", text, re.S)
    assert struct is not None, "hodyn.h, shipped with the package, declares HModel"
    fields: list[tuple[str, _Value]] = []
    for line in struct.group(1).split(";"):
        line = line.strip()
        if not line:
            continue
        member = re.match(r"(?:const )?(\w+)\s*(.*)", line)
        assert member is not None, "every HModel member reads `[const] type name[, name...]`"
        kind, names = member.groups()
        for name in names.split(","):
            name = name.strip()
            if name.startswith("*"):
                fields.append((name.lstrip("* "), ctypes.c_void_p))
            else:
                fields.append((name, _SCALARS[kind]))
    return type("HModel", (ctypes.Structure,), {"_fields_": fields})


@cache
def read(header: Path = HEADER) -> Abi:
    """The interface ``header`` declares."""
    text = re.sub(r"/\*.*?\*/", "", header.read_text(), flags=re.S)
    define = {k: int(v) for k, v in re.findall(r"#define (\w+) (\d+)", text)}
    status = {int(v): k for k, v in re.findall(r"(HK_\w+) = (\d+)", text)}
    joint_kinds = {k.lower(): int(v) for k, v in re.findall(r"HJ_(\w+) = (\d+)", text)}
    model = _model_struct(text)
    pointer = ctypes.POINTER(model)
    entry_points: dict[str, tuple[_Value, list[_Arg]]] = {}
    for result, name, params in re.findall(r"(int|const char \*)\s*(hodyn_\w+)\(([^)]*)\);",
                                           text):
        restype = ctypes.c_int if result == "int" else ctypes.c_char_p
        args = [_argtype(p.strip(), pointer) for p in params.split(",")]
        entry_points[name] = (restype, [a for a in args if a is not None])
    return Abi(define["HODYN_KERNEL_ABI"], define["MAXK"] - 2, status, joint_kinds, model,
               entry_points)
