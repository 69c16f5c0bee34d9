"""The per-camera intrinsics file: what `dicecall calibrate camera` writes and the edge loads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field, field_validator

from dicecall.vision.config import STRICT

from . import CalibrationError


class CameraIntrinsics(BaseModel):
    """Pinhole intrinsics with OpenCV's distortion model, for one camera at one resolution.

    Pixel coordinates: x right, y down, origin at the top-left corner of the top-left pixel
    (OpenCV's convention puts pixel centres at integers; the half-pixel shift cancels in
    every use here because the same convention calibrates and applies).
    """

    model_config = STRICT

    camera: str = Field("default", min_length=1, max_length=64,
                        description="camera name, e.g. the table id and position")
    width: int = Field(ge=16, le=20000, description="image width in pixels at calibration")
    height: int = Field(ge=16, le=20000, description="image height in pixels at calibration")
    k: list[list[float]] = Field(description="3x3 intrinsic matrix [[fx,0,cx],[0,fy,cy],[0,0,1]]"
                                             ", pixels")
    dist: list[float] = Field(min_length=4, max_length=14,
                              description="OpenCV distortion [k1, k2, p1, p2, k3, ...]")
    rms_px: float = Field(ge=0.0, le=100.0, description="RMS reprojection error, pixels")
    views_used: int = Field(ge=1, description="board views used by the fit")
    views_rejected: list[str] = Field(default_factory=list,
                                      description="images skipped, each with the reason")
    board: str = Field("", max_length=200, description="the board the views show")

    @field_validator("k")
    @classmethod
    def _k_is_3x3(cls, v: list[list[float]]) -> list[list[float]]:
        a = np.asarray(v, float)
        if a.shape != (3, 3) or a[0, 0] <= 0 or a[1, 1] <= 0 or a[2, 2] != 1:
            raise ValueError(f"k must be a 3x3 intrinsic matrix with fx, fy > 0, got {v}")
        return v

    @property
    def k_array(self) -> np.ndarray:
        """(3, 3) float64 intrinsic matrix."""
        return np.asarray(self.k, np.float64)

    @property
    def dist_array(self) -> np.ndarray:
        """(D,) float64 distortion coefficients."""
        return np.asarray(self.dist, np.float64)

    def for_size(self, width: int, height: int) -> CameraIntrinsics:
        """The same camera at another resolution of the same field of view (a scaled mode)."""
        if abs(width / self.width - height / self.height) > 0.01 * width / self.width:
            raise CalibrationError(f"{width}x{height} is not a scaled {self.width}x{self.height}"
                                   " mode; calibrate the camera at that mode")
        sx, sy = width / self.width, height / self.height
        k = self.k_array * np.array([[sx], [sy], [1.0]])
        return self.model_copy(update={"width": width, "height": height, "k": k.tolist()})

    def save(self, path: str | Path) -> None:
        from .files import write_atomic

        write_atomic(path, self.model_dump_json(indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> CameraIntrinsics:
        """Reads an intrinsics file; a missing or malformed file is a `CalibrationError`."""
        p = Path(path)
        if not p.is_file():
            raise CalibrationError(f"{p}: no such camera calibration file")
        try:
            return cls.model_validate_json(p.read_text())
        except ValueError as exc:
            raise CalibrationError(f"{p}: not a camera calibration file ({exc})") from exc
