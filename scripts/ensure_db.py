"""Create the PostgreSQL database named by DATABASE_URL when it does not exist yet."""

from __future__ import annotations

import os
import sys

import environ


def main() -> int:
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://", "pgsql://")):
        return 0  # SQLite (the default) needs nothing
    config = environ.Env.db_url_config(url)
    name = config["NAME"]
    import psycopg
    from psycopg import sql

    params = {
        "host": config.get("HOST") or None,
        "port": config.get("PORT") or None,
        "user": config.get("USER") or None,
        "password": config.get("PASSWORD") or None,
    }
    try:
        with psycopg.connect(dbname=name, connect_timeout=5, **params):
            return 0
    except psycopg.OperationalError as exc:
        if "does not exist" not in str(exc):
            print(f"cannot reach PostgreSQL for {name!r}: {exc}", file=sys.stderr)
            return 1
    with psycopg.connect(dbname="postgres", autocommit=True, connect_timeout=5, **params) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    print(f"created PostgreSQL database {name!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
