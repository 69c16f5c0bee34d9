"""The six-sided die: face normals, face values, pip layout and the uppermost face.

This module is the single definition of the die's geometry used by the physics, the
renderer, the labels and the tests. The die's local frame has its origin at the centre
of the cube and axes along the face normals. Opposite faces sum to 7 and the faces 1, 2, 3
meet counter-clockwise around their common corner (the Western "right-handed" die).

"Uppermost" follows DESIGN.md and 623a.9(b): the face whose outward normal points most
nearly up (world +Z). When two faces are about equally up the die rests on more than one
side, which the regulation makes a void roll; `up_margin_deg` measures that.
"""

from __future__ import annotations

import numpy as np

#: Local outward unit normals, shape (6, 3); row i carries the value FACE_VALUES[i].
FACE_NORMALS = np.array(
    [[0, 0, 1], [1, 0, 0], [0, 1, 0], [0, -1, 0], [-1, 0, 0], [0, 0, -1]], dtype=np.float64
)
#: Face value carried by each row of FACE_NORMALS; opposite rows sum to 7.
FACE_VALUES = np.array([1, 2, 3, 4, 5, 6], dtype=np.int64)

#: A die whose uppermost normal is more than this many degrees from +Z is "cocked".
COCKED_TILT_DEG = 5.0

#: Pip centres per face value in face coordinates (u, v) in [-1, 1]; scaled by the
#: style's pip spread. Shape (n, 2) each.
PIP_LAYOUT: dict[int, np.ndarray] = {
    1: np.array([[0.0, 0.0]]),
    2: np.array([[-1.0, -1.0], [1.0, 1.0]]),
    3: np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]]),
    4: np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]]),
    5: np.array([[-1.0, -1.0], [-1.0, 1.0], [0.0, 0.0], [1.0, -1.0], [1.0, 1.0]]),
    6: np.array([[-1.0, -1.0], [-1.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 0.0], [1.0, 1.0]]),
}


def face_axes(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Returns the in-plane axes (u, v) of the face with this local normal.

    Args:
        normal: local outward normal, shape (3,), one of FACE_NORMALS.

    Returns:
        Two unit vectors of shape (3,) with u x v = normal, so (u, v, n) is right-handed
        and a face seen from outside has u to the right and v up.
    """
    helper = np.array([0.0, 0.0, 1.0]) if abs(normal[2]) < 0.5 else np.array([0.0, 1.0, 0.0])
    u = np.cross(helper, normal)
    u /= np.linalg.norm(u)
    v = np.cross(normal, u)
    return u, v


def _all_face_axes() -> np.ndarray:
    return np.array([face_axes(n) for n in FACE_NORMALS])


#: In-plane axes (u, v) of each face row, shape (6, 2, 3); cached because drawing needs
#: them for every face of every die.
FACE_AXES = _all_face_axes()


def quat_to_matrix(quat_xyzw: np.ndarray | list[float]) -> np.ndarray:
    """Converts a quaternion (x, y, z, w), pybullet's order, to a rotation matrix.

    Args:
        quat_xyzw: shape (4,); need not be normalised but must not be zero.

    Returns:
        Rotation matrix, shape (3, 3), mapping die-local vectors to world vectors.
    """
    q = np.asarray(quat_xyzw, dtype=np.float64)
    if q.shape != (4,):
        raise ValueError(f"quaternion must have shape (4,), got {q.shape}")
    norm = np.linalg.norm(q)
    if not np.isfinite(norm) or norm < 1e-12:
        raise ValueError(f"quaternion must be finite and non-zero, got {q.tolist()}")
    x, y, z, w = q / norm
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def _as_matrix(rotation: np.ndarray | list[float]) -> np.ndarray:
    r = np.asarray(rotation, dtype=np.float64)
    if r.shape == (4,):
        return quat_to_matrix(r)
    if r.shape != (3, 3):
        raise ValueError(
            f"rotation must be a (4,) quaternion xyzw or a (3, 3) matrix, got {r.shape}"
        )
    return r


def top_face(rotation: np.ndarray | list[float]) -> tuple[int, float, float]:
    """Finds the uppermost face of a die (623a.9(b), 675a.4(c)).

    Args:
        rotation: the die's orientation, a quaternion (x, y, z, w) of shape (4,) or a
            rotation matrix of shape (3, 3) mapping local to world vectors.

    Returns:
        (face, tilt_deg, up_margin_deg): the face value 1-6 whose outward normal points
        most nearly to world +Z, the angle in degrees between that normal and +Z, and the
        angle of the second-most-up face minus that of the most-up face, in degrees. A die
        lying flat has tilt 0 and margin 90; a die balanced on an edge has margin near 0.
    """
    r = _as_matrix(rotation)
    up = FACE_NORMALS @ r[2]  # z component of each world normal, shape (6,)
    angles = np.degrees(np.arccos(np.clip(up, -1.0, 1.0)))
    order = np.argsort(angles, kind="stable")
    best, second = int(order[0]), int(order[1])
    return int(FACE_VALUES[best]), float(angles[best]), float(angles[second] - angles[best])


def cube_corners(size: float) -> np.ndarray:
    """Returns the 8 corners of a cube of edge `size` in its local frame, shape (8, 3)."""
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    return signs * (size / 2.0)


def face_corners_local(face_index: int, size: float) -> np.ndarray:
    """Returns the 4 corners of face row `face_index`, counter-clockwise seen from outside.

    Args:
        face_index: row of FACE_NORMALS (0-5), not the face value.
        size: edge length of the cube (any length unit).

    Returns:
        Corners in the local frame, shape (4, 3).
    """
    n = FACE_NORMALS[face_index]
    u, v = FACE_AXES[face_index]
    h = size / 2.0
    uv = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=float)
    return n * h + (uv[:, :1] * u + uv[:, 1:] * v) * h


def pip_centres_local(face_index: int, size: float, spread: float) -> np.ndarray:
    """Returns the pip centres of face row `face_index` on the cube surface.

    Args:
        face_index: row of FACE_NORMALS (0-5).
        size: edge length of the cube.
        spread: distance of the outer pips from the face centre as a fraction of the
            half edge, in (0, 1).

    Returns:
        Pip centres in the local frame, shape (n_pips, 3).
    """
    if not 0.0 < spread < 1.0:
        raise ValueError(f"pip spread must be in (0, 1), got {spread}")
    n = FACE_NORMALS[face_index]
    u, v = FACE_AXES[face_index]
    uv = PIP_LAYOUT[int(FACE_VALUES[face_index])] * spread * size / 2.0
    return n * size / 2.0 + uv[:, :1] * u + uv[:, 1:] * v
