"""Rendered calibration targets with known intrinsics, distortion and pose (module scope:
rendering is the slow part of these tests)."""

from __future__ import annotations

import numpy as np
import pytest

from dicecall.calibration.layout import Marker, MarkerLayout
from dicecall.calibration.targets import (
    BoardSpec,
    add_noise,
    board_photos,
    look_at,
    plane_matrix,
    render_view,
    table_texture,
)

K = np.array([[610.0, 0.0, 324.5], [0.0, 612.0, 236.0], [0.0, 0.0, 1.0]])
DIST = np.array([-0.18, 0.06, 0.0008, -0.0005, 0.0])
SIZE = (640, 480)


def render_board(spec: BoardSpec, count: int, seed: int, k=K, dist=DIST):
    """`count` noisy photos of the board from tilted viewpoints, as (name, image)."""
    return board_photos(spec, count, seed, k, dist, SIZE, (170, 140, 330, 430), (70, 50),
                        name="v{}.png")


@pytest.fixture(scope="session")
def charuco_views():
    spec = BoardSpec(kind="charuco", cols=9, rows=6, square_mm=25, marker_mm=18)
    return spec, render_board(spec, 8, 1)


@pytest.fixture(scope="session")
def checker_views():
    spec = BoardSpec(kind="checkerboard", cols=9, rows=6, square_mm=25)
    return spec, render_board(spec, 8, 2)


LAYOUT = MarkerLayout(markers=[
    Marker(id=0, x_mm=-450, y_mm=-250, side_mm=60),
    Marker(id=1, x_mm=450, y_mm=-250, side_mm=60, rotation_deg=90),
    Marker(id=2, x_mm=450, y_mm=250, side_mm=60, rotation_deg=180),
    Marker(id=3, x_mm=-450, y_mm=250, side_mm=60),
    Marker(id=7, x_mm=0, y_mm=0, side_mm=60, rotation_deg=30),
])


@pytest.fixture(scope="session")
def table_photo():
    """(image, rvec, tvec, k, dist): the table from 1 m, off-centre and tilted."""
    tex, origin = table_texture(LAYOUT, (-600, 600), (-400, 400), 2.5)
    r, t = look_at((60.0, -150.0, 1000.0), (0.0, 0.0, 0.0), up=(0, 1, 0))
    k = np.array([[700.0, 0, 478.0], [0, 702.0, 362.0], [0, 0, 1]])
    img = render_view(tex, 2.5, origin, k, DIST, plane_matrix(r, t, flip_y=True), (960, 720),
                      background=30)
    return add_noise(img, 2.0, 0), r, t, k, DIST
