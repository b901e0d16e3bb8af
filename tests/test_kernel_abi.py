"""The kernels' interface without a parse at start (backends/abi.py): the build writes the
header's parse, keyed by its checksum, into ``_abi_table.py`` beside the kernels, and a start
builds the ctypes types from that table (the regex parse cost each start 2.5-3.5 ms); a
header that is not the table's is parsed."""
from __future__ import annotations

import importlib

import pytest

from hodyn_cli.algorithms.backends import abi


def _same(a: abi.Abi, b: abi.Abi) -> None:
    """Two Abi alike: their numbers, HModel's fields and every entry point's ctypes types
    (the HModel pointers: of two classes with the same fields)."""
    assert (a.version, a.max_order, a.status, a.joint_kinds) == \
        (b.version, b.max_order, b.status, b.joint_kinds)
    assert a.model._fields_ == b.model._fields_
    assert a.entry_points.keys() == b.entry_points.keys()
    for name, (restype, args) in a.entry_points.items():
        other = b.entry_points[name]
        assert restype is other[0] and len(args) == len(other[1]), name
        for x, y in zip(args, other[1], strict=True):
            assert x is y or x._type_._fields_ == y._type_._fields_, name


def test_the_built_table_is_the_headers_parse():
    built = importlib.import_module(f"hodyn_cli.algorithms.backends.{abi.TABLE}")
    data = abi.HEADER.read_bytes()
    assert built.CRC32 == abi._digest(data)
    assert built.TABLE == abi.parse(data.decode())


def test_a_start_reads_the_table_and_parses_nothing(monkeypatch):
    """``read`` (its function: the cached one has run) with the parse refused gives what it
    gives from the header's parse."""
    with monkeypatch.context() as parsing:
        parsing.setattr(abi, "_table", lambda header: abi.parse(header.read_text()))
        parsed = abi.read.__wrapped__(abi.HEADER)

    def refused(text):
        raise AssertionError("parsed the header")

    monkeypatch.setattr(abi, "parse", refused)
    _same(abi.read.__wrapped__(abi.HEADER), parsed)


def test_a_header_changed_since_the_build_is_parsed(tmp_path):
    text = abi.HEADER.read_text()
    number = abi.read().version
    header = tmp_path / "hodyn.h"
    header.write_text(text.replace(f"#define HODYN_KERNEL_ABI {number}",
                                   f"#define HODYN_KERNEL_ABI {number + 100}"))
    assert abi.read.__wrapped__(header).version == number + 100


@pytest.mark.parametrize("declaration, kind", [
    ("const double *HK_NULLABLE W", "address"), ("int64_t *complete", "out int64_t"),
    ("const HModel *m", "model"), ("const uint8_t *closing", "array uint8"),
    ("double tol", "double"), ("void", None)])
def test_each_parameter_kind(declaration, kind):
    assert abi._arg_kind(declaration) == kind
