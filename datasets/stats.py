"""Dataset statistics: how many dice per face, tilt band, stacked, zone and style."""

from __future__ import annotations

from collections import Counter

from dicecall.datasets.schema import SceneRecord

TILT_BANDS = (
    (0.0, 2.0, "flat <2"),
    (2.0, 5.0, "2-5"),
    (5.0, 15.0, "5-15"),
    (15.0, 30.0, "15-30"),
    (30.0, 90.1, ">=30"),
)


def _band(tilt: float | None) -> str:
    if tilt is None:
        return "unknown"
    return next((name for lo, hi, name in TILT_BANDS if lo <= tilt < hi), ">=30")


def compute(records: list[SceneRecord]) -> dict:
    """Counts over all dice and images.

    Returns:
        {"images": n, "dice": n, "face": {...}, "tilt": {...}, "stacked": {...},
         "zone": {...}, "in_zone": {...}, "leaning_on": {...}, "style": {...},
         "scenes_with": {"cocked": n, "stacked": n, "out_of_zone": n, "void": n}}.
    """
    c: dict[str, Counter] = {
        k: Counter()
        for k in ("face", "tilt", "stacked", "zone", "in_zone", "leaning_on", "style", "game")
    }
    scenes = Counter()
    for rec in records:
        c["game"][rec.game] += 1
        for d in rec.dice:
            c["face"][str(d.face)] += 1
            c["tilt"][_band(d.tilt_deg)] += 1
            c["stacked"][str(d.stacked)] += 1
            c["zone"][str(d.zone)] += 1
            c["in_zone"][str(d.in_zone)] += 1
            c["leaning_on"][str(d.leaning_on)] += 1
            c["style"][str(d.style)] += 1
        scenes["cocked"] += any(d.cocked for d in rec.dice)
        scenes["stacked"] += any(d.stacked for d in rec.dice)
        scenes["out_of_zone"] += any(d.in_zone is False for d in rec.dice)
        scenes["void (margin<10)"] += any(
            d.up_margin_deg is not None and d.up_margin_deg < 10 for d in rec.dice
        )
    out = {"images": len(records), "dice": sum(len(r.dice) for r in records)}
    out.update({k: dict(sorted(v.items())) for k, v in c.items()})
    out["scenes_with"] = dict(scenes)
    return out


def format_table(stats: dict) -> str:
    """Renders `compute`'s result as a readable text table."""
    lines = [f"images {stats['images']}   dice {stats['dice']}"]
    n_img, n_dice = max(stats["images"], 1), max(stats["dice"], 1)
    for key, value in stats.items():
        if not isinstance(value, dict):
            continue
        total = n_img if key in ("scenes_with", "game") else n_dice
        lines.append(f"\n{key}")
        for name, count in value.items():
            lines.append(f"  {name:<28} {count:>8}  {100.0 * count / total:6.1f} %")
    return "\n".join(lines)
