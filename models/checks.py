"""Checks of the folders and model files `dicecall models` commands read, as Typer option
callbacks (the files they write: dicecall/outpaths.py).

A missing or empty --data folder, or a file that is not an ONNX model, used to end in a
traceback, some only after minutes of mining or training; these refuse it as a bad
parameter (exit 2, one line naming the option) before the command starts.
"""

from __future__ import annotations

from pathlib import Path

import typer


def labelled_problem(folder: Path) -> str | None:
    """Why `folder` is not a labelled folder `data.load_folder` reads, or None. Cheap: it
    looks for one image or scene record, not at every label."""
    from dicecall.models.data import IMAGE_EXTS  # here: `dicecall --help` loads no cv2

    if not folder.is_dir():
        return f"{folder}: no such folder"
    if (folder / "images").is_dir() and (folder / "labels").is_dir():
        if any(p.suffix.lower() in IMAGE_EXTS for p in (folder / "images").iterdir()):
            return None
        return f"{folder}: its images/ folder holds no images"
    if any(folder.glob("*.json")):
        return None
    return f"{folder}: neither a YOLO folder (images/, labels/) nor *.json scenes"


def labelled_dirs(folders: list[Path] | None) -> list[Path] | None:
    """Callback: each folder a YOLO or scene folder with at least one image."""
    for folder in folders or []:
        problem = labelled_problem(folder)
        if problem:
            raise typer.BadParameter(problem)
    return folders


def scene_dirs(folders: list[Path] | None) -> list[Path] | None:
    """Callback: each folder holds scene records (*.json), as `models rebox` copies."""
    for folder in folders or []:
        if not folder.is_dir():
            raise typer.BadParameter(f"{folder}: no such folder")
        if not any(folder.glob("*.json")):
            raise typer.BadParameter(f"{folder}: holds no scene records (*.json)")
    return folders


def crops_dirs(folders: list[Path] | None) -> list[Path] | None:
    """Callback: each folder a crops folder (`data.load_crops_folder`) with at least one
    image in its 1/ to 6/ (a missing one was a ValueError once the --data folders were
    scored)."""
    from dicecall.models.data import IMAGE_EXTS

    for folder in folders or []:
        if not folder.is_dir():
            raise typer.BadParameter(f"{folder}: no such folder")
        if not any(p.suffix.lower() in IMAGE_EXTS for face in range(1, 7)
                   for p in (folder / str(face)).glob("*")):
            raise typer.BadParameter(f"{folder}: no crops in 1/ to 6/ (images named by "
                                     "face: FOLDER/1/*.png ... FOLDER/6/*.png)")
    return folders


# The input each kind of model takes (vision/reader.py's feeds): a valid ONNX file of the
# other kind, or of neither, ended in onnxruntime's "Required inputs ... are missing".
DETECTOR = ("detector", ("image",))
READER = ("reader", ("crops",))
EITHER = ("detector or reader", ("image", "crops"))


def onnx_problem(path: Path, kind: tuple[str, tuple[str, ...]] | None = None) -> str | None:
    """Why onnxruntime cannot open `path` as a model (of `kind`: its name and the inputs it
    may take, one of them), or None."""
    import onnxruntime as ort

    if not path.is_file():
        return f"no such file: {path}"
    try:
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's own exception types vary by version
        return f"{path} is not an ONNX model onnxruntime can open ({str(exc).strip()})"
    names = [i.name for i in session.get_inputs()]
    if kind is not None and not set(names) & set(kind[1]):
        return (f"{path} is not a {kind[0]} model: its inputs are {', '.join(names)}, a "
                f"{kind[0]} takes {' or '.join(repr(n) for n in kind[1])}")
    return None


def _callback(kind, none_is_no_model: bool):
    def check(path: Path | None) -> Path | None:
        if path is None or (none_is_no_model and str(path).lower() == "none"):
            return path
        problem = onnx_problem(path, kind)
        if problem:
            raise typer.BadParameter(problem)
        return path
    return check


#: Callbacks: an ONNX model file (of a kind, where named); the *_file ones also take 'none'
#: (no model), where the *_model ones read it as a file name.
onnx_model = _callback(None, False)
detector_file = _callback(DETECTOR, True)
reader_file = _callback(READER, True)
model_file = _callback(EITHER, True)
detector_model = _callback(DETECTOR, False)
reader_model = _callback(READER, False)
