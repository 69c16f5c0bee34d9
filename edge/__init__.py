"""The edge process of one table: camera, settle, read, outbox, publisher (docs/edge.md)."""
