"""What the demo prints: one line per reading, the service's answer and each settlement line,
surveillance reviews, and the summary table. Pure formatting: dicts in, strings out."""

from __future__ import annotations

from .players import money


def _faces(faces) -> str:
    return " ".join(str(f) for f in faces) if faces else "-"


def reasons_text(reasons) -> str:
    """`die_on_die 623a.8(b); readings_disagree x3 623a.9(c)`: each code once, with its
    section and how many dice it concerns when more than one."""
    counts: dict[tuple[str, str], int] = {}
    for r in reasons:
        key = (r["code"], r["section"])
        counts[key] = counts.get(key, 0) + 1
    return "; ".join(f"{code}{f' x{n}' if n > 1 else ''} {section}"
                     for (code, section), n in counts.items())


def agrees(truth: dict, ev: dict) -> bool:
    """The camera's call matches the bundle's truth: the same status and the same faces.

    Faces are compared as a multiset: the dice of a throw are alike and no wager of the three
    games depends on which die shows which face. The camera lists them left to right, the
    truth in the bundle's own order, so a die a few pixels higher can swap two of them.
    """
    return (truth["status"] == ev["verdict"]
            and sorted(truth["faces"]) == sorted(ev["faces"]))


def read_line(tag: str, throw: dict | None, ev: dict) -> str:
    """The edge's reading of one settled scene, beside the bundle's truth for that throw."""
    where = (f"throw {throw['index'] + 1} ({throw['plan']}, {throw['phase']})" if throw
             else "unplanned scene")
    seen = f"camera {ev['verdict']:<12} {_faces(ev['faces']):<20}"
    why = reasons_text(ev["reasons"])
    line = f"{tag} {where:<26} {seen}"
    if why:
        line += f" [{why}]"
    if throw is not None:
        truth = throw["truth"]
        agree = agrees(truth, ev)
        line += (f"\n{tag} {'':<26} truth  {truth['status']:<12} {_faces(truth['faces']):<20}"
                 f" {'agrees' if agree else 'DIFFERS'}")
    return line


def settlement_lines(tag: str, resp: dict) -> list[str]:
    """The service's answer to a roll, and every wager line it settled."""
    status = resp["status"]
    head = f"{tag} service: roll {resp['seq']} {status}"
    s = resp.get("settlement")
    if status == "settled" and s:
        events = ", ".join(s.get("events", []))
        out = [f"{head} faces {_faces(s['faces'])} ({events}) paid {money(s['paid'])} "
               f"collected {money(s['collected'])}"]
        for line in s["lines"]:
            out.append(f"{tag}     {line['name']:<18} seat {line['seat']} "
                       f"{line['result']:<8} stake {money(line['stake']):>7} "
                       f"paid {money(line['paid']):>8} collected {money(line['collected']):>7}"
                       f"  {line['section']}")
        return out
    if status == "no_roll":
        return [f"{head}: nothing settled, wagers stay [{reasons_text(resp['reasons'])}]"]
    if status == "held":
        return [f"{head} for review [{reasons_text(resp['reasons'])}]"]
    return [f"{head} (behind a roll held for review; settles after it)"]


def summary_lines(tables: list[dict], url: str, wall_s: float) -> list[str]:
    """The closing table: per table the throws, readings, the service's outcome, money."""
    head = (f"{'table':<16}{'throws':>7}{'read':>6}{'valid':>7}{'no roll':>8}{'review':>8}"
            f"{'agree':>7} | {'settled':>8}{'no roll':>8}{'reviewed':>9}{'paid':>11}"
            f"{'collected':>11}")
    out = ["", "summary", head, "-" * len(head)]
    for t in tables:
        r, s = t["reads"], t["service"]
        out.append(f"{t['name']:<16}{t['throws']:>7}{r['total']:>6}{r['valid']:>7}"
                   f"{r['no_roll']:>8}{r['needs_review']:>8}{t['agree']:>7} | "
                   f"{s['settled']:>8}{s['no_roll']:>8}{s['reviewed']:>9}"
                   f"{money(s['paid']):>11}{money(s['collected']):>11}")
    kinds = sorted({k for t in tables for k in t["no_roll_kinds"]})
    out.append("")
    out.append("no-roll and review calls by the camera: " + (", ".join(kinds) or "none"))
    truth = sorted({k for t in tables for k in t["truth_kinds"]})
    out.append("calls in the bundles' truth (exact readings): " + ", ".join(truth))
    lost = [t["name"] for t in tables if not t["exactly_once"]]
    out.append("every reading reached the service exactly once: "
               + ("yes" if not lost else "NO (" + ", ".join(lost) + ")"))
    out.append(f"wall time {wall_s:.1f} s; service {url} (OpenAPI at {url}/docs)")
    return out
