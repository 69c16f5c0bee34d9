"""High Roll with a throw held for surveillance review (623a.9(c)): the edge must not take
the dice count of the next throw from the table's state before the review is decided."""

from __future__ import annotations

import threading

from dicecall.edge.replaykit import write_replay
from dicecall.edge.runner import EdgeRunner

FIRST = (6, 6, 6, 6, 2, 3, 4, 5, 1, 2)  # four sixes: six dice are rethrown (675a.4(g))
EXTRA = (6, 1, 2, 3, 4, 5)
NEXT = (1, 1, 2, 2, 3, 3, 4, 4, 5, 5)


def _table(service):
    table, device, secret = service.table("high-roll-dice")
    for name, params in (("pip_street", {"face": 1}), ("like_kind", {"count": 5}),
                         ("extra_roll", {})):
        service.wager(table, name, 1000, 0, **params)
    return table, device, secret


def _reviewer(service, delay_s: float, log: list):
    """on_event: a surveillance desk that confirms each held roll `delay_s` after its ack."""

    def confirm(roll_id: str) -> None:
        service._call("POST", f"/v1/rolls/{roll_id}/review",
                      json={"action": "confirm", "note": "test desk"})

    def on_event(ev: dict) -> None:
        log.append(ev)
        if ev["kind"] == "ack" and ev["response"]["status"] == "held":
            threading.Timer(delay_s, confirm, args=(ev["roll_id"],)).start()

    return on_event


def test_the_extra_roll_after_a_held_first_throw_waits_for_the_review(tmp_path, service, kit):
    """The first throw is held (one die read at p=0.85, under rule 46's floor); the desk
    confirms it 0.6 s later. The Extra Roll is already at rest, but its dice count is
    decided only after the review:
    six dice, not a 10-dice first throw with four missing."""
    table, device, secret = _table(service)
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(3), motion=3, still=8)
    cfg = kit.config(tmp_path, service, table, device, secret, replay, game="high-roll-dice",
                     high_roll_wait_s=5)
    events: list = []
    script = [{"faces": FIRST, "p": 0.85}, EXTRA, NEXT]
    EdgeRunner(cfg, on_event=_reviewer(service, 0.6, events),
               reader=kit.Reader(script)).run(threading.Event())
    reads = [e for e in events if e["kind"] == "read"]
    assert [(e["phase"], e["expected"], e["verdict"]) for e in reads] == [
        ("first", 10, "needs_review"), ("extra", 6, "valid"), ("first", 10, "valid")]
    assert [r["status"] for r in service.rolls(table)] == ["settled"] * 3


def test_a_review_not_decided_in_time_gives_a_roll_for_review_not_a_no_roll(tmp_path,
                                                                             service, kit):
    """Nobody reviews within high_roll_wait_s: the edge still posts the throw it saw, as
    needs_review with `phase_unknown` (never die_missing as if it knew the throw had 10
    dice), and the service holds it for the person who decides the first throw."""
    table, device, secret = _table(service)
    replay = tmp_path / "replay"
    write_replay(replay, kit.scenes(2), motion=3, still=8)
    cfg = kit.config(tmp_path, service, table, device, secret, replay, game="high-roll-dice",
                     high_roll_wait_s=0.3)
    events: list = []
    script = [{"faces": FIRST, "p": 0.85}, EXTRA]
    EdgeRunner(cfg, on_event=events.append, reader=kit.Reader(script)).run(threading.Event())
    reads = [e for e in events if e["kind"] == "read"]
    assert [(e["phase"], e["verdict"]) for e in reads] == [
        ("first", "needs_review"), ("unknown", "needs_review")]
    codes = [r["code"] for r in reads[1]["reasons"]]
    assert codes == ["phase_unknown"] and reads[1]["faces"] == list(EXTRA)
    assert [r["status"] for r in service.rolls(table)] == ["held", "held"]


def test_the_phase_tracker_takes_the_services_word_only_with_no_roll_held():
    from dicecall.edge.flow import GameFlow
    from dicecall.edge.phase import PhaseTracker

    states = [{"held_rolls": 1, "extra_roll": False, "expected_dice": 10},
              {"held_rolls": 0, "extra_roll": True, "expected_dice": 6}]
    phase = PhaseTracker(GameFlow("high-roll-dice"), lambda: (200, states.pop(0)))
    assert phase.expect() is None  # start-up: not known until the service said
    phase.posted(0)
    phase.answered(0, {"status": "held", "settlement": None})
    assert phase.expect() is None
    stop = threading.Event()
    poller = threading.Thread(target=phase.run, args=(stop,), daemon=True)
    poller.start()
    try:
        assert phase.wait(5) is not None
    finally:
        stop.set()
        phase.wake()
        poller.join(5)
    assert (phase.expect().phase, phase.expect().dice) == ("extra", 6)
    # A device state asked before a later answer arrived is stale: not applied.
    phase.posted(1)
    phase.answered(1, {"status": "held", "settlement": None})
    phase.device_state({"held_rolls": 0, "extra_roll": False, "expected_dice": 10}, since=0)
    assert phase.expect() is None
    # A repeated answer (200 after a restart) is not trusted either: the service is asked.
    phase.device_state({"held_rolls": 0, "extra_roll": False, "expected_dice": 10}, since=1)
    phase.answered(1, None)
    assert phase.expect() is None
