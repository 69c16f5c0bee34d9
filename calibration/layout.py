"""The table's files in millimetres: where the ArUco markers are, and the zones.

Table frame: millimetres on the felt, x to the right and y away from the dealer as seen on
the printed layout (so the frame is right-handed with z up), z = 0 on the felt. A marker is
"upright" when its top edge faces +y; OpenCV reports its corners top-left, top-right,
bottom-right, bottom-left of the upright marker.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from dicecall.vision.config import FROM_ARRAY, STRICT

from . import CalibrationError
from .targets import ARUCO_DICTS

Point = Annotated[tuple[float, float], FROM_ARRAY]  # [x, y] in a file


class Marker(BaseModel):
    """One printed ArUco marker lying on the table."""

    model_config = STRICT

    id: int = Field(ge=0, le=249, description="marker id in the dictionary")
    x_mm: float = Field(ge=-5000, le=5000, description="centre x in the table frame, mm")
    y_mm: float = Field(ge=-5000, le=5000, description="centre y in the table frame, mm")
    side_mm: float = Field(gt=5, le=500, description="side of the black square, mm")
    rotation_deg: float = Field(0.0, ge=-360, le=360,
                                description="counter-clockwise turn from upright, degrees")

    def corners_mm(self) -> np.ndarray:
        """(4, 2) float64 corners in OpenCV's order (TL, TR, BR, BL of the upright marker)."""
        h = self.side_mm / 2
        local = np.array([[-h, h], [h, h], [h, -h], [-h, -h]])
        a = math.radians(self.rotation_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return local @ rot.T + [self.x_mm, self.y_mm]


class MarkerLayout(BaseModel):
    """The markers at the throw box / shaker / layout corners."""

    model_config = STRICT

    dictionary: str = Field("DICT_4X4_50", description="ArUco dictionary of the markers")
    markers: list[Marker] = Field(min_length=1, description="every marker on the table")

    @model_validator(mode="after")
    def _check(self) -> MarkerLayout:
        if self.dictionary not in ARUCO_DICTS:
            raise ValueError(f"dictionary must be one of {ARUCO_DICTS}")
        ids = [m.id for m in self.markers]
        if len(set(ids)) != len(ids):
            raise ValueError(f"marker ids repeat: {sorted(ids)}")
        return self

    def by_id(self) -> dict[int, Marker]:
        return {m.id: m for m in self.markers}


class ZoneSpec(BaseModel):
    """One zone: a polygon on a surface parallel to the felt."""

    # Strict like vision/config.py's STRICT, but a NaN vertex reaches `_area`, whose message
    # names the zone (as vision.profiles.Zones).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=40,
                      description="e.g. shaker, throw_box, table, bank_chips, dice_cup, rail")
    role: Literal["play", "no_roll", "held"] = Field(
        description="play: dice must rest here; no_roll: 623a.8(c)(3),(4) areas; held: "
                    "High Roll Extra Roll holding area (675a.4(e))")
    polygon_mm: list[Point] = Field(min_length=3, max_length=500,
                                    description="vertices (x, y) in the table frame, mm")
    z_mm: float = Field(0.0, ge=-500, le=500,
                        description="height of the resting surface above the felt, mm (the "
                                    "shaker floor is above it, a sunken throw box below)")


    @model_validator(mode="after")
    def _area(self) -> ZoneSpec:
        """A zone is an area: finite vertices, an outline that does not cross itself and
        encloses something. A bowtie or a zone folded onto a line was mapped to pixels and
        written; the verdict then tested dice against an outline that covers nothing, or
        not what the person meant, and called them off the table."""
        pts = np.asarray(self.polygon_mm, np.float64)
        if not np.isfinite(pts).all():
            raise ValueError(f"zone {self.name}: a vertex is not a finite number")
        crossing = _self_crossing(pts)
        if crossing is not None:
            i, j = crossing
            raise ValueError(f"zone {self.name}: its outline crosses itself (edge {i} from "
                             f"{pts[i].tolist()} and edge {j} from {pts[j].tolist()}); list "
                             "the vertices in order around the zone")
        return self

    def area_mm2(self) -> float:
        """Enclosed area, mm^2 (shoelace; the outline is simple)."""
        x, y = np.asarray(self.polygon_mm, np.float64).T
        return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)


def _self_crossing(pts: np.ndarray) -> tuple[int, int] | None:
    """(i, j) of two edges of the closed outline that meet, other than neighbours at their
    shared vertex; None when the outline is simple. Zero-length edges (a repeated vertex,
    the first vertex repeated last) are skipped."""
    a, b = pts, np.roll(pts, -1, axis=0)
    keep = np.flatnonzero(np.linalg.norm(b - a, axis=1) > 0)
    n = len(keep)
    if n < 3:
        return None
    a, b = a[keep], b[keep]
    scale = float(np.abs(pts).max()) or 1.0

    def orient(p, q, r):  # sign of the turn p -> q -> r, with a tolerance for rounding
        v = (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1]) - \
            (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0])
        return np.where(np.abs(v) <= 1e-12 * scale * scale, 0, np.sign(v))

    def on(p, q, r):  # r on segment p-q, given the three are collinear
        return ((np.minimum(p[..., 0], q[..., 0]) <= r[..., 0])
                & (r[..., 0] <= np.maximum(p[..., 0], q[..., 0]))
                & (np.minimum(p[..., 1], q[..., 1]) <= r[..., 1])
                & (r[..., 1] <= np.maximum(p[..., 1], q[..., 1])))

    i, j = np.triu_indices(n, 1)
    pa, pb, qa, qb = a[i], b[i], a[j], b[j]
    o1, o2, o3, o4 = orient(pa, pb, qa), orient(pa, pb, qb), orient(qa, qb, pa), orient(qa, qb, pb)
    hit = ((o1 * o2 < 0) & (o3 * o4 < 0)) | ((o1 == 0) & on(pa, pb, qa)) | \
        ((o2 == 0) & on(pa, pb, qb)) | ((o3 == 0) & on(qa, qb, pa)) | ((o4 == 0) & on(qa, qb, pb))
    # Neighbouring edges share a vertex: they meet there and only count if they overlap.
    nb = (j == i + 1) | ((i == 0) & (j == n - 1))
    overlap = nb & (o1 == 0) & (o2 == 0)
    back = overlap & (np.einsum("ij,ij->i", pb - pa, qb - qa) < 0)
    bad = np.flatnonzero((hit & ~nb) | back)
    if len(bad) == 0:
        return None
    return int(keep[i[bad[0]]]), int(keep[j[bad[0]]])


class ZonesFile(BaseModel):
    """All zones of one table, in millimetres; the edge maps them to pixels."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)  # as ZoneSpec

    die_mm: float = Field(19.0, gt=5, le=60, description="die edge length, mm")
    zones: list[ZoneSpec] = Field(min_length=1, description="the zones")

    @model_validator(mode="after")
    def _check(self) -> ZonesFile:
        names = [z.name for z in self.zones]
        if len(set(names)) != len(names):
            raise ValueError(f"zone names repeat: {names}")
        roles = [z.role for z in self.zones]
        if roles.count("play") != 1 or roles.count("held") > 1:
            raise ValueError("need exactly one play zone and at most one held zone")
        if not np.isfinite(self.die_mm):
            raise ValueError("die_mm is not a finite number")
        for z in self.zones:  # a zone no die fits in covers nothing the verdict can use
            if z.area_mm2() < self.die_mm ** 2:
                raise ValueError(f"zone {z.name}: its outline encloses {z.area_mm2():.1f} "
                                 f"mm^2, less than one {self.die_mm:g} mm die "
                                 f"({self.die_mm ** 2:g} mm^2); are the vertices in mm and "
                                 "in order?")
        return self


def load_json(model: type[BaseModel], path: str | Path):
    """Reads one of these files with a `CalibrationError` naming the file and the problem."""
    p = Path(path)
    if not p.is_file():
        raise CalibrationError(f"{p}: no such file")
    try:
        return model.model_validate_json(p.read_text())
    except ValueError as exc:
        raise CalibrationError(f"{p}: not a valid {model.__name__} ({exc})") from exc
