"""Body masses and inertias of an MJCF model, as MuJoCo's compiler computes them.

From ``src/user/user_objects.cc`` (``mjCGeom::GetVolume``, ``SetInertia``, ``Compile``;
``mjCBody::InertiaFromGeom``, ``Compile``) and ``user_model.cc`` (the check of moving bodies,
``settotalmass``):

* a geom's mass is its ``mass``, else ``density`` times its volume (or its surface with
  ``shellinertia``); its principal moments are those of the solid (or shell) shape about its
  centre, in the geom frame (a capsule: a cylinder and two hemispheres);
* a body takes its ``<inertial>``; from its geoms instead (those of ``inertiagrouprange``,
  heavier than 1e-14 kg) when ``inertiafromgeom="true"``, or ``"auto"`` (the default) and it
  has no ``<inertial>``: their masses summed, the COM their mean, the inertia about it by
  Steiner's theorem;
* then ``boundmass``/``boundinertia`` raise the mass and the principal moments to those
  bounds, ``balanceinertia`` replaces principal moments violating the triangle inequality by
  their mean, and ``settotalmass`` scales every mass and inertia by one factor.

A mesh geom takes its mesh's volume and inertia (:mod:`~hodyn_cli.modeling.mjcf_mesh`);
height fields, signed distance fields and primitives fitted to a mesh are not computed: a
body whose inertia would come from one is refused, naming the geom (give it an
``<inertial>``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from hodyn_cli.core.lie import quaternion_matrix
from hodyn_cli.errors import ModelError
from hodyn_cli.modeling.mjcf_mesh import MeshLibrary
from hodyn_cli.modeling.mjcf_quat import principal_axes, quat_mul, unit
from hodyn_cli.modeling.mjcf_xml import Body, Compiler, Geom

__all__ = ["BodyInertia", "GeomMass", "body_inertia", "geom_mass", "scale_to_total"]

K = TypeVar("K")

#: MuJoCo's mjEPS and mjMINVAL
EPS, MINVAL = 1e-14, 1e-15

#: size entries each geom type must have positive (MuJoCo's mjGEOMINFO)
SIZES = {"sphere": 1, "capsule": 2, "cylinder": 2, "ellipsoid": 3, "box": 3, "plane": 0}


@dataclass(frozen=True, eq=False, repr=False)
class BodyInertia:
    """Mass, COM ``pos`` and rotational inertia ``theta`` (3, 3) about it, in the body frame;
    ``source``: where it came from (for ``hodyn info``)."""

    mass: float
    pos: np.ndarray
    theta: np.ndarray
    source: str

    def scaled(self, factor: float) -> BodyInertia:
        return BodyInertia(self.mass * factor, self.pos, self.theta * factor, self.source)


def _volume(kind: str, s: np.ndarray, shell: bool) -> float:
    """Volume (or area, ``shell``) of a primitive geom of half-sizes s (``GetVolume``)."""
    r = s[0]
    if kind == "sphere":
        return 4 * np.pi * r * r if shell else 4 * np.pi * r ** 3 / 3
    if kind in ("capsule", "cylinder"):
        h = 2 * s[1]
        if kind == "capsule":
            return 4 * np.pi * r * r + 2 * np.pi * r * h if shell else \
                np.pi * (r * r * h + 4 * r ** 3 / 3)
        return 2 * np.pi * r * r + 2 * np.pi * r * h if shell else np.pi * r * r * h
    if kind == "ellipsoid":
        if shell:  # Thomsen's approximation, as MuJoCo
            p = 1.6075
            t = (s[0] * s[1]) ** p + (s[1] * s[2]) ** p + (s[2] * s[0]) ** p
            return 4 * np.pi * (t / 3) ** (1 / p)
        return 4 * np.pi * s[0] * s[1] * s[2] / 3
    if kind == "box":
        return 8 * (s[0] * s[1] + s[1] * s[2] + s[2] * s[0]) if shell else 8 * s[0] * s[1] * s[2]
    return 0.0  # plane


def _moments(kind: str, m: float, s: np.ndarray, shell: bool) -> np.ndarray:
    """Principal moments about the centre in the geom frame (``SetInertia``)."""
    if kind == "sphere":
        return np.full(3, (2 / 3 if shell else 2 / 5) * m * s[0] ** 2)
    if kind == "capsule":
        r, half = s[0], s[1]
        h = 2 * half
        if shell:
            a_sphere, a_cyl = 4 * np.pi * r * r, 2 * np.pi * r * h
            ms = m * a_sphere / (a_sphere + a_cyl)
            mc = m - ms
            ixx = mc * (6 * r * r + h * h) / 12 + 2 * ms * r * r / 3 + \
                ms * ((half + r / 2) ** 2 - (r / 2) ** 2)
            return np.array([ixx, ixx, mc * r * r + 2 * ms * r * r / 3])
        ms = m * 4 * r / (4 * r + 3 * h)
        mc = m - ms
        sphere = 2 * ms * r * r / 5
        ixx = mc * (3 * r * r + h * h) / 12 + sphere + ms * h * (3 * r + 2 * h) / 8
        return np.array([ixx, ixx, mc * r * r / 2 + sphere])
    if kind == "cylinder":
        r, half = s[0], s[1]
        h = 2 * half
        if shell:
            a_disk, a_cyl = np.pi * r * r, 2 * np.pi * r * h
            md = m * a_disk / (2 * a_disk + a_cyl)
            mc = m - 2 * md
            ixx = mc * (6 * r * r + h * h) / 12 + 2 * (md * r * r / 4 + md * half * half)
            return np.array([ixx, ixx, mc * r * r + 2 * md * r * r / 2])
        ixx = m * (3 * r * r + h * h) / 12
        return np.array([ixx, ixx, m * r * r / 2])
    sq = s * s
    if kind == "ellipsoid":
        if shell:  # the solid of half-sizes s + 1e-6 less the solid of s, as MuJoCo
            e = s + 1e-6
            va, vb = 4 * np.pi * np.prod(s) / 3, 4 * np.pi * np.prod(e) / 3
            rho = m / (vb - va)
            se = e * e
            solid_b = vb * rho * np.array([se[1] + se[2], se[0] + se[2], se[0] + se[1]]) / 5
            solid_a = va * rho * np.array([sq[1] + sq[2], sq[0] + sq[2], sq[0] + sq[1]]) / 5
            return solid_b - solid_a
        return m * np.array([sq[1] + sq[2], sq[0] + sq[2], sq[0] + sq[1]]) / 5
    if kind == "box":
        if shell:
            lx, ly, lz = 2 * s
            a0, a1, a2 = lx * ly, ly * lz, lz * lx
            total = 2 * (a0 + a1 + a2)
            m0, m1, m2 = m * a0 / total, m * a1 / total, m * a2 / total
            return 2 * np.array([
                m0 * sq[2] + m2 * sq[1] + m0 * ly * ly / 12 + m1 * (ly * ly + lz * lz) / 12
                + m2 * lz * lz / 12,
                m0 * sq[2] + m1 * sq[0] + m0 * lx * lx / 12 + m1 * lz * lz / 12
                + m2 * (lx * lx + lz * lz) / 12,
                m1 * sq[0] + m2 * sq[1] + m0 * (lx * lx + ly * ly) / 12 + m1 * ly * ly / 12
                + m2 * lx * lx / 12])
        return m * np.array([sq[1] + sq[2], sq[0] + sq[2], sq[0] + sq[1]]) / 3
    return np.zeros(3)  # plane


@dataclass(frozen=True, eq=False, repr=False)
class GeomMass:
    """A geom's mass, COM ``com`` and principal moments ``lam`` along the axes of ``quat``,
    in the body frame (for a mesh: its geom frame moved to the mesh's principal frame, as
    MuJoCo's compiler moves it); ``mesh``: from a mesh."""

    mass: float
    com: np.ndarray
    lam: np.ndarray
    quat: np.ndarray
    mesh: bool = False


def geom_mass(geom: Geom, body: str, source: str, meshes: MeshLibrary) -> GeomMass:
    """A geom's mass and inertia as ``mjCGeom::Compile`` sets them when the body's inertia
    comes from its geoms."""
    what = f"body '{body}': geom {f'{geom.name!r} ' if geom.name else ''}({geom.type})"
    none = GeomMass(0.0, geom.pos, np.zeros(3), geom.quat)
    if geom.type == "mesh":
        if geom.mesh is None:
            raise ModelError(f"{what} names no mesh", source)
        if geom.shell:
            raise ModelError(f"{what}: shellinertia of a mesh geom goes on its mesh asset "
                             "(inertia='shell')", source)
        if geom.mass == 0 or (geom.mass is None and geom.density == 0):
            return none
        mesh = meshes.inertia(geom.mesh, what)
        if geom.mass is not None and mesh.volume <= EPS:
            return none
        m = geom.mass if geom.mass is not None else geom.density * mesh.volume
        b = mesh.box() ** 2
        lam = m * np.array([b[1] + b[2], b[0] + b[2], b[0] + b[1]]) / 3
        return GeomMass(m, geom.pos + quaternion_matrix(geom.quat) @ mesh.com, lam,
                        unit(quat_mul(geom.quat, mesh.quat))[0], mesh=True)
    if geom.type not in SIZES:
        if geom.mass == 0 or (geom.mass is None and geom.density == 0):
            return none
        raise ModelError(f"{what}: its inertia would come from a {geom.type}, which hodyn does "
                         "not compute: give the body an <inertial>, or the geom mass='0' or a "
                         "group outside inertiagrouprange", source)
    if geom.mesh:
        raise ModelError(f"{what} is fitted to mesh '{geom.mesh}', which hodyn does not do: "
                         "give the body an <inertial>", source)
    if geom.type == "plane":
        if geom.size[2] <= 0:
            raise ModelError(f"{what}: plane size(3) must be positive", source)
    elif (geom.size[:SIZES[geom.type]] <= 0).any():
        raise ModelError(f"{what}: size {geom.size[:SIZES[geom.type]].tolist()} must be "
                         "positive", source)
    volume = _volume(geom.type, geom.size, geom.shell)
    if geom.mass is not None:
        if geom.mass == 0 or volume <= EPS:
            return none
        m = geom.mass
    else:
        if geom.density == 0:
            return none
        m = geom.density * volume
    moments = _moments(geom.type, m, geom.size, geom.shell)
    if m < 0 or (moments < 0).any() or geom.density < 0:
        raise ModelError(f"{what}: mass, inertia or density are negative", source)
    return GeomMass(m, geom.pos, moments, geom.quat)


def _rotate(moments: np.ndarray, quat: np.ndarray) -> np.ndarray:
    R = quaternion_matrix(quat)
    return (R * moments) @ R.T


def _steiner(m: float, d: np.ndarray) -> np.ndarray:
    """``mjuu_offcenter``: the inertia of a point mass m at d about the origin."""
    return m * (d @ d * np.eye(3) - np.outer(d, d))


def body_inertia(body: Body, compiler: Compiler, source: str,
                 meshes: MeshLibrary) -> BodyInertia:
    """A body's mass, COM and inertia before ``settotalmass`` (``mjCBody::Compile``)."""
    lo, hi = compiler.inertiagrouprange
    ifg = compiler.inertiafromgeom
    inertial = body.inertial
    # principal moments lam along the axes of quat, as MuJoCo keeps them: copied (a
    # diaginertia, a single geom) or from its eigen-decomposition (mjuu_eig3)
    mass, pos, origin = 0.0, None, "none: massless"
    lam, quat = np.zeros(3), np.array([1.0, 0, 0, 0])
    if inertial is not None:
        mass, pos, origin = inertial.mass, inertial.pos, "<inertial>"
        if inertial.full is not None:
            xx, yy, zz, xy, xz, yz = inertial.full
            lam, quat = principal_axes(np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]]))
            if lam.min() < EPS:
                raise ModelError(f"body '{body.name}': <inertial fullinertia> must have positive "
                                 "eigenvalues", source)
        else:
            lam, quat = inertial.diag, inertial.quat
    if ifg == "true" or (ifg == "auto" and inertial is None):
        chosen = [geom_mass(g, body.name, source, meshes) for g in body.geoms
                  if lo <= g.group <= hi]
        chosen = [g for g in chosen if g.mass > EPS]
        if len(chosen) == 1:
            (g,) = chosen
            mass, pos, lam, quat, origin = g.mass, g.com, g.lam, g.quat, "1 geom"
        elif chosen:
            mass = sum(g.mass for g in chosen)
            pos = np.sum([g.mass * g.com for g in chosen], axis=0) / mass
            lam, quat = principal_axes(sum(_rotate(g.lam, g.quat) + _steiner(g.mass, g.com - pos)
                                           for g in chosen))
            origin = f"{len(chosen)} geoms"
        meshes_used = sum(g.mesh for g in chosen)
        if meshes_used:
            origin += f" ({meshes_used} mesh{'es' if meshes_used > 1 else ''})"
    if pos is None:  # no inertial frame: MuJoCo copies the body's own pos into it
        pos = body.own_pos
    bounded = np.maximum(lam, compiler.boundinertia)
    if compiler.boundmass > mass or (bounded != lam).any():
        mass = max(mass, compiler.boundmass)
        origin += " (boundmass/boundinertia)"
    if mass < 0 or (bounded < 0).any():
        raise ModelError(f"body '{body.name}': mass and inertia cannot be negative", source)
    a, b, c = bounded
    if a + b < c or a + c < b or b + c < a:
        if not compiler.balanceinertia:
            raise ModelError(f"body '{body.name}': principal moments {a:.6g} {b:.6g} {c:.6g} "
                             "violate A + B >= C (MuJoCo refuses it too; <compiler "
                             "balanceinertia='true'> replaces them by their mean)", source)
        bounded = np.full(3, (a + b + c) / 3.0)
        origin += " (balanceinertia)"
    theta = _rotate(bounded, quat)
    return BodyInertia(float(mass), np.asarray(pos, dtype=float), (theta + theta.T) / 2, origin)


def scale_to_total(inertias: dict[K, BodyInertia], total: float,
                   counted: set[K]) -> dict[K, BodyInertia]:
    """``settotalmass``: every body scaled by ``total / (sum of the masses of the bodies
    counted)`` (``mj_setTotalmass``: every body of the compiled model)."""
    factor = max(MINVAL, total / max(MINVAL, sum(inertias[b].mass for b in counted)))
    return {name: i.scaled(factor) for name, i in inertias.items()}
