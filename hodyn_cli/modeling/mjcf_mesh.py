"""The volume, centre of mass and inertia of an MJCF mesh asset, as MuJoCo's compiler computes
them (``src/user/user_mesh.cc``: ``mjCMesh::Process``, ``ComputeVolume``,
``ComputeInertia``; the STL decoder of ``plugin/stl_decoder``, ``LoadMSH``).

The vertices are read as float32 (as MuJoCo stores them), moved by ``refpos``, turned by
``refquat`` and scaled by ``scale``; the faces' area-weighted centroid ``c_f`` is the apex of
one tetrahedron per face, of volume ``V_i = ((c_i - c_f) . n_i) A_i / 3`` (``inertia=
"legacy"``, MuJoCo's default: ``|V_i|``; ``"exact"``: signed; ``"shell"``: the area ``A_i``
instead, a thin shell); the COM is ``sum V_i (3 c_i / 4 + c_f / 4) / sum V_i`` and the
second moments about it ``P_jk = sum V_i / C (2 (D_j D_k + E_j E_k + F_j F_k) + D_j E_k +
D_k E_j + D_j F_k + D_k F_j + E_j F_k + E_k F_j)`` over the faces' corners D, E, F relative to
the COM (C = 20, a shell 12), the inertia per unit density ``tr(P) 1 - P``. A geom of the mesh
gets ``mass = density V`` (or its ``mass``) and ``mass / V`` times that inertia.

``inertia="convex"``: the same integrals over the triangles of the vertices' convex hull
(qhull, as MuJoCo; the apex still the centroid of the mesh's own faces); a mesh without faces
takes its hull's as its own. Files: binary STL, MuJoCo's MSH, OBJ (a quad split along its
shorter diagonal, a larger polygon as a fan). Refused in one line naming the mesh: other
formats, vertices with no convex hull (coplanar).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hodyn_cli.core.lie import quaternion_matrix
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.mjcf_quat import principal_axes, unit

__all__ = ["MeshAsset", "MeshInertia", "MeshLibrary", "read_mesh_file", "mesh_inertia",
           "hull_faces"]

#: MuJoCo's mjMINVAL
MINVAL = 1e-15
#: the relative tolerance of MuJoCo's eigen-decomposition of a mesh's inertia (``mjuu_eig3``'s
#: ``reltol`` in ``mjCMesh::Process``): the mesh frame is off the exact principal axes by up
#: to ~1e-7 rad, and so is every inertia built on it. MuJoCo 3.17 (the version the tests
#: compare with; the source at hand is older) is reproduced by 1e-7 on every mesh of the
#: dm_control corpus, bit for bit (``mesh_quat``), and by no other of 9e-8, 1.2e-7
MESH_EIG_TOL = 1e-7


@dataclass(frozen=True, eq=False, repr=False)
class MeshAsset:
    """``<mesh>``: its file (None: ``vertex``/``face`` given in the XML) and the attributes
    that change its inertia."""

    name: str
    file: Path | None
    scale: np.ndarray
    refpos: np.ndarray
    refquat: np.ndarray
    inertia: str
    vertex: np.ndarray | None = None
    face: np.ndarray | None = None


@dataclass(frozen=True, eq=False, repr=False)
class MeshInertia:
    """Volume (area for a shell), COM, and the principal moments about it per unit density
    (decreasing) with the quaternion of their axes (``mjuu_eig3`` to :data:`MESH_EIG_TOL`), in
    the mesh's coordinates (after refpos, refquat, scale): MuJoCo's mesh frame."""

    volume: float
    com: np.ndarray
    moments: np.ndarray
    quat: np.ndarray

    def box(self) -> np.ndarray:
        """Half-sizes of the box of the same inertia per unit volume (MuJoCo's
        ``boxsz``), from which a geom's inertia is computed."""
        e = self.moments
        return 0.5 * np.sqrt(6 * np.array([e[1] + e[2] - e[0], e[0] + e[2] - e[1],
                                           e[0] + e[1] - e[2]]) / self.volume)


def read_mesh_file(path: Path, what: str, source: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (nv, 3) float32, faces (nf, 3) int) of a mesh file."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ModelError(f"{what}: cannot read '{path}': {e.strerror or e}", source) from None
    suffix = path.suffix.lower()
    if suffix == ".stl":
        nf = int(np.frombuffer(data, "<i4", 1, 80)[0]) if len(data) >= 84 else 0
        if nf < 1 or len(data) != 84 + 50 * nf:
            raise ModelError(f"{what}: '{path.name}' is not a binary STL file (MuJoCo reads no "
                             "other)", source)
        rows = np.frombuffer(data, np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                             ("a", "<u2")]), nf, 84)
        return rows["v"].reshape(-1, 3), np.arange(3 * nf).reshape(nf, 3)
    if suffix == ".msh":
        if len(data) < 16:
            raise ModelError(f"{what}: '{path.name}' has no MSH header", source)
        nv, nn, nt, nf = (int(x) for x in np.frombuffer(data, "<i4", 4))
        size = 16 + 12 * nv + 12 * nn + 8 * nt + 12 * nf
        if nv < 4 or min(nn, nt, nf) < 0 or len(data) != size:
            raise ModelError(f"{what}: '{path.name}' is not a valid MSH file", source)
        vert = np.frombuffer(data, "<f4", 3 * nv, 16).reshape(nv, 3)
        faces = np.frombuffer(data, "<i4", 3 * nf, size - 12 * nf).reshape(nf, 3)
        return vert, faces
    if suffix == ".obj":
        return _read_obj(data, what, path, source)
    raise ModelError(f"{what}: mesh file '{path.name}': hodyn reads .stl, .msh and .obj",
                     source)


def _read_obj(data: bytes, what: str, path: Path, source: str) -> tuple[np.ndarray, np.ndarray]:
    vert: list[list[float]] = []
    polygons: list[list[int]] = []
    for line in data.decode(errors="replace").splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "v":
            vert.append([float(x) for x in words[1:4]])
        elif words[0] == "f":
            if len(words) < 4:
                raise ModelError(f"{what}: '{path.name}' has a face of {len(words) - 1} "
                                 "vertices", source)
            idx = [int(w.split("/")[0]) for w in words[1:]]
            polygons.append([i - 1 if i > 0 else len(vert) + i for i in idx])
    v = np.array(vert, dtype=np.float32).reshape(-1, 3)
    faces = [t for p in polygons for t in _triangulated(p, v)]
    return v, np.array(faces, dtype=int).reshape(-1, 3)


def _triangulated(polygon: list[int], v: np.ndarray) -> list[list[int]]:
    """An OBJ face as triangles, as MuJoCo's OBJ reader (tinyobjloader) splits it: a quad
    along its shorter diagonal (squared lengths in float32, 0-2 where strictly shorter than
    1-3), a larger polygon as a fan from its first vertex (the same integrals as any other
    split where the polygon is plane and convex)."""
    if len(polygon) == 4 and max(polygon) < len(v) and min(polygon) >= 0:
        a, b, c, d = polygon
        e02, e13 = v[c] - v[a], v[d] - v[b]
        if (e02[0] * e02[0] + e02[1] * e02[1] + e02[2] * e02[2]
                < e13[0] * e13[0] + e13[1] * e13[1] + e13[2] * e13[2]):
            return [[a, b, c], [a, c, d]]
        return [[a, b, d], [b, c, d]]
    return [[polygon[0], polygon[k], polygon[k + 1]] for k in range(1, len(polygon) - 1)]


def hull_faces(v: np.ndarray, what: str, source: str) -> np.ndarray:
    """The triangles of the vertices' convex hull, each turned to face outwards: qhull's (as
    MuJoCo's ``mjCMesh::MakeGraph``, option ``Qt``: triangulated facets)."""
    from scipy.spatial import ConvexHull, QhullError

    try:
        hull = ConvexHull(v, qhull_options="Qt")
    except (QhullError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ModelError(f"{what}: no convex hull of its vertices (coplanar or too few?): "
                         f"{first}", source) from None
    faces = hull.simplices.astype(int)
    D, E, F = v[faces[:, 0]], v[faces[:, 1]], v[faces[:, 2]]
    inwards = (np.cross(E - D, F - D) * hull.equations[:, :3]).sum(axis=1) < 0
    faces[inwards] = faces[inwards][:, [0, 2, 1]]
    return faces


def _running_sum(x: np.ndarray) -> np.ndarray:
    """The sum over axis 0 added up one term after the other from 0, as MuJoCo's loops do
    (numpy's ``sum`` adds in pairs: other last bits, which MuJoCo's eigen-iteration, stopped
    at a threshold, can turn into differences of 1e-8)."""
    return np.add.accumulate(x, axis=0)[-1] if len(x) else np.zeros(x.shape[1:])


def _triangles(v: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per face: area, unit normal, centre, in the order of operations of MuJoCo's
    ``triangle`` (faces whose doubled area is under 1e-15 have none)."""
    D, E, F = v[faces[:, 0]], v[faces[:, 1]], v[faces[:, 2]]
    center = (D + E + F) / 3
    b, c = E - D, F - D
    normal = np.stack([b[:, 1] * c[:, 2] - b[:, 2] * c[:, 1], b[:, 2] * c[:, 0] - b[:, 0] * c[:, 2],
                       b[:, 0] * c[:, 1] - b[:, 1] * c[:, 0]], axis=1)
    length = np.sqrt(_dot(normal, normal))
    small = length < MINVAL
    area = np.where(small, 0.0, 0.5 * length)
    normal = normal / np.where(small, 1.0, length)[:, None]
    return area, normal, center


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise ``a0 b0 + a1 b1 + a2 b2`` in that order."""
    return a[:, 0] * b[:, 0] + a[:, 1] * b[:, 1] + a[:, 2] * b[:, 2]


def _transformed(asset: MeshAsset, vert: np.ndarray) -> np.ndarray:
    """The vertices moved by refpos, turned by refquat, scaled (``ApplyTransformations``)."""
    v = vert.astype(np.float64)
    if asset.refpos.any():
        v = v - asset.refpos
    if not np.array_equal(asset.refquat, [1.0, 0, 0, 0]):
        R = quaternion_matrix(unit(asset.refquat)[0])  # R^T v, by columns of R
        v = np.stack([v[:, 0] * R[0, k] + v[:, 1] * R[1, k] + v[:, 2] * R[2, k]
                      for k in range(3)], axis=1)
    if (asset.scale != 1).any():
        v = v * asset.scale
    return v


def mesh_inertia(asset: MeshAsset, vert: np.ndarray, faces: np.ndarray,
                 source: str) -> MeshInertia:
    """The inertia of a mesh asset (vertices as read, float32) as ``mjCMesh::Process``
    computes it, operation by operation."""
    what = f"mesh '{asset.name}'"
    if asset.inertia not in ("legacy", "exact", "shell", "convex"):
        raise ModelError(f"{what}: inertia='{asset.inertia}' is not one of legacy, exact, "
                         "shell, convex", source)
    if len(vert) < 4 or (len(faces) and (faces.min() < 0 or faces.max() >= len(vert))):
        raise ModelError(f"{what}: at least 4 vertices, and faces naming them, are needed", source)
    if asset.scale.prod() < 0:  # left-handed: MuJoCo turns the faces round
        faces = faces[:, [0, 2, 1]]
    v = _transformed(asset, vert)
    if len(faces) == 0:  # MuJoCo's faces are its convex hull's
        faces = hull_faces(v, what, source)
    # "convex": the volume integrals over the hull, the apex of their tetrahedra the centroid
    # of the mesh's own faces (MuJoCo's ComputeVolume, ComputeInertia with GraphFaces)
    solid = hull_faces(v, what, source) if asset.inertia == "convex" else faces
    shell, legacy = asset.inertia == "shell", asset.inertia == "legacy"
    area, normal, center = _triangles(v, faces)
    total_area = _running_sum(area)
    if total_area < MINVAL:
        raise ModelError(f"{what}: its surface area is too small", source)
    facecen = _running_sum(area[:, None] * center) / total_area
    if solid is not faces:
        area, normal, center = _triangles(v, solid)
    weight = area if shell else _dot(center - facecen, normal) * area / 3
    if legacy:
        weight = np.abs(weight)
    total = _running_sum(weight)
    if total < MINVAL:
        why = "negative (faces turned inwards)" if total < 0 else \
            "too small (inertia='shell' for a surface)"
        raise ModelError(f"{what}: its volume is {why}", source)
    com = _running_sum(weight[:, None] * (center * 3.0 / 4.0 + facecen / 4.0)) / total
    c = v - com
    faces = solid
    area, normal, center = _triangles(c, faces)
    weight = area if shell else _dot(center, normal) * area / 3
    if legacy:
        weight = np.abs(weight)
    D, E, F = c[faces[:, 0]], c[faces[:, 1]], c[faces[:, 2]]
    P = []
    for j, k in ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2)):
        term = (2 * (D[:, j] * D[:, k] + E[:, j] * E[:, k] + F[:, j] * F[:, k])
                + D[:, j] * E[:, k] + D[:, k] * E[:, j] + D[:, j] * F[:, k] + D[:, k] * F[:, j]
                + E[:, j] * F[:, k] + E[:, k] * F[:, j])
        P.append(_running_sum(weight / (12 if shell else 20) * term))
    theta = np.array([[P[1] + P[2], -P[3], -P[4]], [-P[3], P[0] + P[2], -P[5]],
                      [-P[4], -P[5], P[0] + P[1]]])
    lam, quat = principal_axes(theta, MESH_EIG_TOL)
    if lam.min() <= 0 or lam[1] + lam[2] < lam[0] * (1 - 1e-6) - 1e-9:
        raise ModelError(f"{what}: its principal moments {lam.tolist()} are not those of a body "
                         "(MuJoCo refuses it too)", source)
    return MeshInertia(float(_running_sum(weight)), com, lam, quat)


class MeshLibrary:
    """The mesh assets of a model, each read and integrated once, when a geom needs it."""

    def __init__(self, assets: dict[str, MeshAsset], source: str):
        self.assets, self.source = assets, source
        self._done: dict[str, MeshInertia] = {}

    def inertia(self, name: str, what: str) -> MeshInertia:
        if name not in self.assets:
            raise ModelError(f"{what}: mesh '{name}' is not an asset of the model", self.source)
        if name not in self._done:
            asset = self.assets[name]
            if asset.file is not None:
                vert, faces = read_mesh_file(asset.file, f"mesh '{name}'", self.source)
                if asset.file.suffix.lower() == ".msh" and asset.scale.prod() < 0:
                    faces = faces[:, [0, 2, 1]]  # MuJoCo turns an MSH's round twice
            else:
                vert = np.asarray(asset.vertex, dtype=np.float32).reshape(-1, 3)
                faces = np.asarray(asset.face if asset.face is not None else [],
                                   dtype=int).reshape(-1, 3)
            self._done[name] = mesh_inertia(asset, vert, faces, self.source)
        return self._done[name]
