"""Use cases of the service: each opens its own transaction on a `Database`."""
