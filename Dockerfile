# Image for docker-compose.yml: the app, Debian's Chromium for table screenshots, gunicorn.
FROM python:3.11-slim-bookworm
# postgresql-client: pg_dump and pg_restore for `manage.py backup` / `restore` (15, as the db).
RUN apt-get update && apt-get install -y --no-install-recommends chromium fonts-dejavu-core \
    postgresql-client \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY . .
RUN pip install --no-cache-dir -e . gunicorn
ENV CHROMIUM_PATH=/usr/bin/chromium STATIC_ROOT=/app/staticfiles
EXPOSE 8000
