"""The roll intake's PostgreSQL path (services/rolls_pg.py), the pool's ping after idle
(db/session.py) and the lz4 compression of stored documents (migration 0005)."""

from __future__ import annotations

import json

import pytest

from dicecall.api import audit
from dicecall.api.services import rolls as svc


@pytest.fixture
def hp(pg_url, make_harness):
    """`pg_url` first, so the clients close before the database is dropped."""
    return make_harness(pg_url)


def _posted(h, device, table, body) -> svc.Posted:
    return svc.prepare(h.settings, device[0], table, svc.RollIn.model_validate(body))


def _round_trips(monkeypatch) -> list[str]:
    """Records each wait for the server: a statement outside a pipeline, or a pipeline."""
    import psycopg

    seen: list[str] = []
    execute, pipe_exit = psycopg.Cursor.execute, psycopg.Pipeline.__exit__

    def counted_execute(cur, query, *a, **k):
        if cur.connection._pipeline is None:
            seen.append(str(query)[:41])
        return execute(cur, query, *a, **k)

    def counted_exit(pipe, *a):
        seen.append("pipeline")
        return pipe_exit(pipe, *a)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted_execute)
    monkeypatch.setattr(psycopg.Pipeline, "__exit__", counted_exit)
    return seen


def test_a_batch_takes_two_or_three_round_trips_and_writes_everything(hp, monkeypatch):
    a, b = hp.table(), hp.table()
    dev_a, dev_b = hp.device(a), hp.device(b)
    assert hp.wager(a, "pass", 1000).status_code == 201
    svc.intake(hp.db, hp.settings, dev_a[0], a, svc.RollIn.model_validate(hp.body(1, (1, 3))))
    posts = [_posted(hp, dev_a, a, hp.body(2, (2, 2))),  # the point made
             _posted(hp, dev_b, b, hp.body(1, (6, 6))),
             _posted(hp, dev_a, a, hp.body(5, (3, 4)))]  # seq 3 and 4 missing: a gap
    seen = _round_trips(monkeypatch)
    results = svc.apply_batch(hp.db, posts)
    assert [r.status_code for r in results] == [201, 201, 201]
    # The chain head the intake above committed is remembered: not read again.
    assert seen == ["pipeline", "pipeline"]
    lines = json.loads(results[0].body)["settlement"]["lines"]
    assert [(ln["result"], ln["paid"]) for ln in lines] == [("win", 1000)]
    assert json.loads(results[2].body)["sequence"]["missing"] == [3, 4]
    rolls = hp.client.get(f"/v1/tables/{a}/rolls", headers=hp.auth()).json()
    assert [(r["seq"], r["round"]) for r in rolls] == [(1, 1), (2, 2), (5, 3)]
    assert hp.wager(a, "pass", 1000).status_code == 201  # an append the intake did not make
    seen.clear()
    svc.apply_batch(hp.db, [_posted(hp, dev_b, b, hp.body(2, (1, 2)))])
    assert seen == ["pipeline", "SELECT last_id, last_hash FROM chain_head", "pipeline"]
    with hp.db.write_conn() as conn:  # written back: the device's sequence, the gap row
        assert conn.exec_driver_sql("SELECT last_seq FROM devices WHERE id = %(d)s",
                                    {"d": dev_a[0]}).scalar() == 5
        assert conn.exec_driver_sql("SELECT expected, received FROM sequence_gaps").all() \
            == [(3, 5)]
    with hp.db.read() as session:
        assert audit.verify(session).ok


def test_a_failed_batch_rolls_back_and_leaves_the_connection_as_it_was(hp):
    table = hp.table()
    device = hp.device(table)
    body = hp.body(1, (3, 4))
    first = svc.apply_batch(hp.db, [_posted(hp, device, table, body)])[0]
    other = hp.body(2, (2, 3))
    # The same roll_id twice in one batch under different bodies is a 409 before any write;
    # a roll_id the read missed fails the INSERT: simulate it on the database's side.
    with hp.db.write_conn() as conn:
        conn.exec_driver_sql("CREATE FUNCTION dc_fail() RETURNS trigger LANGUAGE plpgsql AS "
                             "$$ BEGIN RAISE unique_violation; END $$")
        conn.exec_driver_sql("CREATE TRIGGER dc_fail BEFORE INSERT ON rolls FOR EACH ROW "
                             "WHEN (NEW.seq = 2) EXECUTE FUNCTION dc_fail()")
    with pytest.raises(Exception, match="unique_violation"):
        svc.apply_batch(hp.db, [_posted(hp, device, table, other)])
    raw = hp.db.engine.raw_connection()  # the pool hands back the connection just used
    try:
        assert raw.driver_connection.autocommit is False
        assert raw.driver_connection.info.transaction_status.name == "IDLE"
    finally:
        raw.close()
    with hp.db.write_conn() as conn:
        conn.exec_driver_sql("DROP TRIGGER dc_fail ON rolls")
        assert conn.exec_driver_sql("SELECT count(*) FROM rolls").scalar() == 1
        assert conn.exec_driver_sql("SELECT last_seq FROM devices").scalar() == 1
    again = svc.apply_batch(hp.db, [_posted(hp, device, table, other)])[0]
    assert again.status_code == 201 and json.loads(again.body)["round"] == 2
    assert first.status_code == 201
    with hp.db.read() as session:
        assert audit.verify(session).ok


def test_a_connection_idle_long_enough_is_pinged_and_replaced_if_dead(hp, monkeypatch):
    from dicecall.api.db import session as db_session

    table = hp.table()
    device = hp.device(table)
    with hp.db.write_conn() as conn:
        conn.exec_driver_sql("SELECT 1")
    monkeypatch.setattr(db_session, "_PING_AFTER_IDLE_S", 0.0)
    with hp.db.write_conn() as conn:  # every other backend of this database is cut
        conn.exec_driver_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                             "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    # The connection the writer gets next is the one that did it (LIFO): end it too.
    import psycopg
    admin = hp.settings.database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(admin.rsplit("/", 1)[0] + "/postgres", autocommit=True) as pg:
        pg.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                   "WHERE datname = %s AND pid <> pg_backend_pid()",
                   (admin.rsplit("/", 1)[1],))
    result = svc.intake(hp.db, hp.settings, device[0], table,
                        svc.RollIn.model_validate(hp.body(1, (3, 4))))
    assert result.status_code == 201


def test_documents_are_compressed_with_lz4_after_the_migration(pg_url):
    import psycopg

    from dicecall.api.db.migrate import alembic_config, upgrade

    plain = pg_url.replace("postgresql+psycopg://", "postgresql://")
    query = ("SELECT attrelid::regclass::text || '.' || attname, attcompression "
             "FROM pg_attribute WHERE attrelid IN ('rolls'::regclass, 'dc_tables'::regclass, "
             "'events'::regclass) AND attname IN ('state_before_json', 'response_json', "
             "'state_json', 'payload', 'roll_id')")
    upgrade(pg_url)
    with psycopg.connect(plain) as pg:
        if not pg.execute("SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'"
                          " AND 'lz4' = ANY(enumvals)").fetchone():
            pytest.skip("this PostgreSQL has no lz4")
        assert dict(pg.execute(query).fetchall()) == {
            "rolls.state_before_json": "l", "rolls.response_json": "l",
            "dc_tables.state_json": "l", "events.payload": "l", "rolls.roll_id": ""}
    from alembic import command

    command.downgrade(alembic_config(pg_url), "0004")
    with psycopg.connect(plain) as pg:
        assert set(dict(pg.execute(query).fetchall()).values()) == {""}


def test_the_head_committed_last_is_not_read_again_unless_something_else_appended(
        hp, monkeypatch, pg_url):
    from dicecall.api.db.session import Database
    from dicecall.api.services import rolls_pg, tables

    table = hp.table()
    device = hp.device(table)
    seen = _round_trips(monkeypatch)

    def post(seq):
        seen.clear()
        result = svc.apply_batch(hp.db, [_posted(hp, device, table, hp.body(seq, (2, 3)))])[0]
        assert result.status_code == 201
        return [s for s in seen if s.startswith("SELECT last_id")]

    assert post(1) == ["SELECT last_id, last_hash FROM chain_head"]  # nothing remembered yet
    assert post(2) == [] and len(seen) == 2  # two round trips
    assert hp.wager(table, "field", 500).status_code == 201  # this process appends
    assert post(3) == ["SELECT last_id, last_hash FROM chain_head"]
    assert post(4) == []
    # Another process appends: the remembered head is stale, found so by the database.
    appended = audit.appends()
    other = Database(pg_url, 1)
    try:
        tables.create_device(other, b"test-server-key", table, "cam 2")
    finally:
        other.dispose()
    monkeypatch.setattr(audit, "_appends", appended)  # as if it were not this process
    stale = []
    real = rolls_pg.HeadMemory.stale
    monkeypatch.setattr(rolls_pg.HeadMemory, "stale", lambda m: (stale.append(1), real(m)))
    assert post(5) == ["SELECT last_id, last_hash FROM chain_head"] and stale == [1]
    assert post(6) == ["SELECT last_id, last_hash FROM chain_head"]  # a while unused
    rolls = hp.client.get(f"/v1/tables/{table}/rolls", headers=hp.auth()).json()
    assert [r["seq"] for r in rolls] == [1, 2, 3, 4, 5, 6]
    with hp.db.read() as session:
        report = audit.verify(session)
    assert report.ok, report.problems
