"""Synthetic casino dice scenes, dataset formats (ours, YOLO, COCO) and statistics.

pybullet is an optional dependency (the `datasets` extra) used only by the generator; the
formats, statistics and contact sheets work without it. See docs/datasets.md.
"""
