"""The die's face layout and the uppermost-face rule (623a.9(b), 675a.4(c))."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dicecall.datasets.dice import (
    FACE_NORMALS,
    FACE_VALUES,
    PIP_LAYOUT,
    quat_to_matrix,
    top_face,
)


def _rotations() -> list[np.ndarray]:
    """The 24 proper rotations that map the axes onto the axes."""
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((-1, 1), repeat=3):
            r = np.zeros((3, 3))
            r[np.arange(3), perm] = signs
            if np.linalg.det(r) > 0:
                out.append(r)
    return out


def test_opposite_faces_sum_to_seven():
    for i, j in itertools.combinations(range(6), 2):
        if np.allclose(FACE_NORMALS[i], -FACE_NORMALS[j]):
            assert FACE_VALUES[i] + FACE_VALUES[j] == 7


def test_one_two_three_are_counter_clockwise():
    n = {int(v): FACE_NORMALS[i] for i, v in enumerate(FACE_VALUES)}
    # Seen from outside the shared corner, 1 -> 2 -> 3 turns counter-clockwise.
    assert np.dot(np.cross(n[1], n[2]), n[3]) > 0


def test_pip_counts_match_face_values():
    assert {k: len(v) for k, v in PIP_LAYOUT.items()} == {k: k for k in range(1, 7)}


def test_every_flat_pose_reads_the_face_whose_normal_is_up():
    seen = set()
    for r in _rotations():
        face, tilt, margin = top_face(r)
        up = FACE_VALUES[int(np.argmax(FACE_NORMALS @ r[2]))]
        assert face == up and tilt == pytest.approx(0, abs=1e-6)
        assert margin == pytest.approx(90, abs=1e-6)
        seen.add(face)
    assert seen == {1, 2, 3, 4, 5, 6}


@pytest.mark.parametrize("angle", [0.0, 10.0, 30.0, 44.0])
def test_tilt_and_margin_of_a_die_rocked_about_x(angle):
    a = np.radians(angle)
    quat = [np.sin(a / 2), 0.0, 0.0, np.cos(a / 2)]  # rotation about +x
    face, tilt, margin = top_face(quat)
    assert face == 1
    assert tilt == pytest.approx(angle, abs=1e-6)
    assert margin == pytest.approx(90 - 2 * angle, abs=1e-6)


def test_die_on_its_edge_has_zero_margin():
    a = np.radians(45.0)
    _, tilt, margin = top_face([np.sin(a / 2), 0.0, 0.0, np.cos(a / 2)])
    assert tilt == pytest.approx(45.0, abs=1e-6) and margin == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("bad", [[0, 0, 0, 0], [1, 2, 3], np.eye(2), [np.nan, 0, 0, 1]])
def test_bad_rotation_raises_value_error(bad):
    with pytest.raises(ValueError):
        top_face(bad)


def test_quaternion_matches_a_known_rotation():
    a = np.radians(90.0)
    r = quat_to_matrix([0.0, 0.0, np.sin(a / 2), np.cos(a / 2)])
    assert np.allclose(r @ [1, 0, 0], [0, 1, 0])
