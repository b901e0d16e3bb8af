"""A robot description with new inertial parameters (``hodyn identify``'s output): the URDF's
``<inertial>`` elements rewritten, every other element (and comment) as it was.

Each moving body's 10 parameters (:func:`hodyn_cli.algorithms.dynamics.regressor.parameters`:
``m``, ``h = m c``, ``I`` about the body frame's origin, in the frame of the link its joint
moves) become that link's ``<inertial>``: ``<origin xyz="c" rpy="0 0 0"/>``, ``<mass>``, and
the inertia about the centre of mass, ``I_c = I - m (|c|^2 1 - c c^T)`` (parallel axes).
Links welded to the body by fixed joints, whose inertias the model lumped into it, lose
their ``<inertial>``: the body's whole inertia is its moving link's (splitting it again would
be arbitrary and could give a welded link an impossible inertia).

>>> data = b'<robot name="r"><link name="a"/><link name="b"><!-- kept --><inertial>'\\
...        b'<mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'\\
...        b'</inertial></link></robot>'
>>> out = with_inertials(data, {"b": np.array([2.0, 0.2, 0, 0, 0.1, 0, 0.12, 0, 0, 0.12])})
>>> print(out.decode().split("<!-- kept -->")[1].split("</link>")[0].strip())
<inertial>
      <origin xyz="0.1 0 0" rpy="0 0 0"/>
      <mass value="2"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>
    </inertial>
"""

from __future__ import annotations

import io

import numpy as np
from lxml import etree

from hodyn_cli.errors import ModelError

__all__ = ["with_inertials", "inertial_of", "parse_kept", "serialized", "number"]


def inertial_of(pi: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """(mass, centre of mass c (3,), inertia about c (3, 3)) of one body's 10 parameters."""
    m, h = float(pi[0]), np.asarray(pi[1:4], float)
    I = np.array([[pi[4], pi[5], pi[7]], [pi[5], pi[6], pi[8]], [pi[7], pi[8], pi[9]]])
    c = h / m
    return m, c, I - m * (c @ c * np.eye(3) - np.outer(c, c))


def number(x: float) -> str:
    """A parameter as written: 12 significant digits."""
    return f"{x:.12g}"


def _element(pi: np.ndarray, indent: str) -> etree._Element:
    m, c, Ic = inertial_of(pi)
    inner = indent + "  "
    inertial = etree.Element("inertial")
    inertial.text = "\n" + inner
    etree.SubElement(inertial, "origin", xyz=" ".join(number(v) for v in c), rpy="0 0 0"
                     ).tail = "\n" + inner
    etree.SubElement(inertial, "mass", value=number(m)).tail = "\n" + inner
    etree.SubElement(inertial, "inertia", **{
        f"i{a}{b}": number(Ic[i, j]) for (a, i), (b, j) in
        ((("x", 0), ("x", 0)), (("x", 0), ("y", 1)), (("x", 0), ("z", 2)),
         (("y", 1), ("y", 1)), (("y", 1), ("z", 2)), (("z", 2), ("z", 2)))}
                     ).tail = "\n" + indent
    return inertial


def parse_kept(data: bytes, source: str) -> etree._ElementTree:
    """The XML ``data`` parsed safely (no entities, no network), comments kept."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                             huge_tree=False)
    try:
        return etree.parse(io.BytesIO(data), parser)
    except etree.XMLSyntaxError as e:
        raise ModelError(f"not well-formed XML: {e.msg}", source) from None


def serialized(data: bytes, root: etree._Element) -> bytes:
    """The document ``data`` was, with its root element now ``root``: the prolog
    (declaration, comments, processing instructions, doctype) as it was, byte for byte,
    then the root.

    >>> data = b'<?xml version="1.0"?>\\n<!-- <robot> -->\\n<robot name="r"\\n  a="1"><link/></robot>'
    >>> serialized(data, etree.fromstring(b'<robot name="s"/>')).decode()
    '<?xml version="1.0"?>\\n<!-- <robot> -->\\n<robot name="s"/>\\n'
    """
    return data[:_root_offset(data)] + etree.tostring(root, encoding="utf-8") + b"\n"


def _root_offset(data: bytes) -> int:
    """Where the root element's start tag begins in the well-formed document ``data``: the
    first ``<`` that opens no declaration, comment, processing instruction or doctype (a
    start tag may span lines, and its attributes or a comment before it may say anything,
    so it is found by reading the prolog, not by the parser's line numbers)."""
    i = 0
    while True:
        i = data.index(b"<", i)
        if data.startswith(b"<!--", i):
            i = data.index(b"-->", i) + 3
        elif data.startswith(b"<?", i):
            i = data.index(b"?>", i) + 2
        elif data.startswith(b"<!", i):  # a doctype, with its internal subset if any
            close = data.index(b">", i)
            subset = data.find(b"[", i, close)
            i = (data.index(b"]", subset) if subset >= 0 else close) + 1
        else:
            return i


def with_inertials(data: bytes, parameters: dict[str, np.ndarray | None],
                   source: str = "<urdf>") -> bytes:
    """The URDF ``data`` with link ``<inertial>`` elements from ``parameters``: link name ->
    its body's 10 parameters (module docstring), or None to remove the link's
    ``<inertial>``. Parsed safely (no entities, no network), comments kept."""
    tree = parse_kept(data, source)
    links = {link.get("name"): link for link in tree.getroot().iter("link")}
    for name, pi in parameters.items():
        if name not in links:
            raise ModelError(f"no link '{name}'", source)
        link = links[name]
        old = link.find("inertial")
        if pi is None:
            if old is not None:
                link.remove(old)
            continue
        indent = (link.text or "\n    ").split("\n")[-1] if len(link) else \
            (link.tail or "\n  ").split("\n")[-1] + "  "
        new = _element(np.asarray(pi, float), indent)
        if old is not None:
            new.tail = old.tail
            link.replace(old, new)
        else:
            if not len(link):
                link.text = "\n" + indent
                new.tail = "\n" + indent[:-2]
            else:
                new.tail = "\n" + indent
            link.insert(0, new)
    return serialized(data, tree.getroot())
