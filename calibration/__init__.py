"""Calibration: camera intrinsics, table zones and exposure, and the reader's thresholds.

Every step writes a strict JSON file (pydantic, `extra="forbid"`) that the edge loads:
the camera's intrinsics, the table pose with its zones, the camera controls, and the
model profile (`ReaderConfig.temperature` plus `VerdictConfig` thresholds).
"""

from __future__ import annotations


class CalibrationError(ValueError):
    """Input that cannot be calibrated: too few views, no board or markers, singular points."""
