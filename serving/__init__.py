"""What the server process shares between its requests (below every app: the standard library and
Django only): the fair gate that `make run` serves requests through and SQLite's writers queue at."""
