"""The class store's schema: ``MIGRATIONS`` (version N is ``MIGRATIONS[N-1]``), brought up to
date once when a store opens, under a lock that a second process opening at the same moment
waits on; an app older than its database refuses to run rather than write a schema it does not
know."""

from __future__ import annotations

import logging
from collections.abc import Callable

from live.connections import Tx

_LOG = logging.getLogger(__name__)

MIGRATIONS: list[str] = [
    # 1: classes, their students (numbered 1, 2, 3 ... in join order) and answers (one per
    # student and step: the last one counts). Deleting a class deletes its students and answers.
    """
    CREATE TABLE classes (
        code TEXT PRIMARY KEY,
        lesson TEXT NOT NULL,
        step INTEGER NOT NULL,
        revealed BOOLEAN NOT NULL,
        ended BOOLEAN NOT NULL,
        revision INTEGER NOT NULL,
        teacher TEXT NOT NULL, -- sha256 of the teacher key
        created DOUBLE PRECISION NOT NULL,
        expires DOUBLE PRECISION NOT NULL,
        joined INTEGER NOT NULL -- how many students joined: the last number given
    );
    CREATE INDEX classes_by_expiry ON classes (expires);
    CREATE TABLE students (
        code TEXT NOT NULL REFERENCES classes (code) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        token TEXT NOT NULL UNIQUE, -- sha256 of the student's token
        nickname TEXT NOT NULL,
        PRIMARY KEY (code, number) -- also the index of a class's students
    );
    CREATE TABLE answers (
        code TEXT NOT NULL,
        step INTEGER NOT NULL,
        student INTEGER NOT NULL,
        choice INTEGER NOT NULL CHECK (choice BETWEEN 0 AND 63),
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (code, step, student), -- also the index of answers by (code, step)
        FOREIGN KEY (code, student) REFERENCES students (code, number) ON DELETE CASCADE
    )
    """,
    # 2: the peer-instruction loop and a teacher's own lesson. A class's question has a round
    # (1: each alone; 2: again, after the split and a discussion) and a stage ('vote': answers
    # taken; 'closed': voting closed; 'split': the class's split shown; 'discuss': the
    # discussion round); an answer is one per student, step and round (the answers of version
    # 1 are round 1's). lesson_text: the TOML of a teacher's own lesson (NULL: a shipped one),
    # deleted with its class.
    """
    ALTER TABLE classes ADD COLUMN round INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE classes ADD COLUMN stage TEXT NOT NULL DEFAULT 'vote';
    ALTER TABLE classes ADD COLUMN lesson_text TEXT;
    CREATE TABLE answers_by_round (
        code TEXT NOT NULL,
        step INTEGER NOT NULL,
        round INTEGER NOT NULL CHECK (round BETWEEN 1 AND 2),
        student INTEGER NOT NULL,
        choice INTEGER NOT NULL CHECK (choice BETWEEN 0 AND 63),
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (code, step, round, student), -- one answer per student, step and round
        FOREIGN KEY (code, student) REFERENCES students (code, number) ON DELETE CASCADE
    );
    INSERT INTO answers_by_round (code, step, round, student, choice, at)
        SELECT code, step, 1, student, choice, at FROM answers;
    DROP TABLE answers;
    ALTER TABLE answers_by_round RENAME TO answers
    """,
]


def migrate(tx: Tx, clock: Callable[[], float]) -> None:
    """Apply the migrations this database lacks, under the migration lock; ``clock()`` says when
    (unix seconds) each was applied."""
    tx.lock_migrations()
    tx.run(
        "CREATE TABLE IF NOT EXISTS schema_version"
        " (version INTEGER PRIMARY KEY, applied DOUBLE PRECISION NOT NULL)"
    )
    current = (tx.one("SELECT MAX(version) FROM schema_version") or (None,))[0] or 0
    if current > len(MIGRATIONS):
        raise RuntimeError(
            f"the class database has schema version {current}, newer than this app's"
            f" {len(MIGRATIONS)}: update the app"
        )
    for version in range(current + 1, len(MIGRATIONS) + 1):
        for statement in MIGRATIONS[version - 1].split(";"):
            if statement.strip():
                tx.run(statement)
        tx.run("INSERT INTO schema_version (version, applied) VALUES (?, ?)", (version, clock()))
        _LOG.info("class database migrated to schema version %d", version)
