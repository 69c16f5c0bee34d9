"""Storage of the game-resolution service: SQLAlchemy 2 models, sessions, migrations."""
