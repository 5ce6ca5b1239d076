# syntax=docker/dockerfile:1
# Arena in one container: the UI, the API and the rating process on one port, with PostgreSQL
# embedded in the data volume unless DATABASE_URL points at another.
#
#   docker build -t arena .
#   docker run -p 3001:3001 -v arena-data:/data arena
#
# The build stage installs the project and bun (from the npm registry) and builds the frontend
# once (`arena build-ui`); the runtime stage carries Python, the installed project and the built
# frontend: no Node, no bun, no compilers. Its command is `arena serve`, the path `make run`
# takes: migrate, seed the roster, serve. tests/integration/test_container.py runs that stage's
# files as this file lists them.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# -- build ----------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS build
# Node and npm only fetch bun; the frontend is built by bun.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm \
 && rm -rf /var/lib/apt/lists/*
ENV PATH=/opt/venv/bin:$PATH \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    REFLEX_USE_SYSTEM_BUN=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY arena_api/ arena_api/
COPY arena_app/ arena_app/
COPY arena_rating/ arena_rating/
RUN python -m venv /opt/venv && pip install .
WORKDIR /app/.arena/tools
RUN npm install --no-audit --no-fund --loglevel=error bun@1
WORKDIR /app
COPY rxconfig.py alembic.ini models.yaml ./
COPY alembic/ alembic/
COPY suites/ suites/
COPY assets/ assets/
COPY reflex.lock/ reflex.lock/
RUN arena build-ui

# -- runtime --------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime
RUN useradd --create-home --uid 10001 arena \
 && mkdir -p /data /app \
 && chown arena:arena /data /app
# The project runs from /app (PYTHONPATH), where the built frontend, the migrations and the
# default roster live beside its packages; the virtualenv holds its dependencies.
# MATCHUP_TOKEN_SECRET_FILE names where a generated secret is kept, not a secret.
# hadolint ignore=DL3064
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONUNBUFFERED=1 \
    ARENA_ENV=production \
    HOST=0.0.0.0 \
    PORT=3001 \
    ARENA_DATA_DIR=/data \
    MATCHUP_TOKEN_SECRET_FILE=/data/matchup-token-secret
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY --from=build --chown=arena:arena /app/arena_api /app/arena_api
COPY --from=build --chown=arena:arena /app/arena_app /app/arena_app
COPY --from=build --chown=arena:arena /app/arena_rating /app/arena_rating
COPY --from=build --chown=arena:arena /app/alembic /app/alembic
COPY --from=build --chown=arena:arena /app/suites /app/suites
COPY --from=build --chown=arena:arena /app/assets /app/assets
COPY --from=build --chown=arena:arena /app/rxconfig.py /app/alembic.ini /app/models.yaml /app/
COPY --from=build --chown=arena:arena /app/.web/build/client /app/.web/build/client
# What Reflex's backend reads instead of compiling the app again (which would need bun).
COPY --from=build --chown=arena:arena /app/.web/backend /app/.web/backend
COPY --from=build --chown=arena:arena /app/.web/arena-build.digest /app/.web/arena-build.digest
USER 10001
VOLUME ["/data"]
EXPOSE 3001
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('PORT', '3001') + '/health', timeout=4)"]
CMD ["arena", "serve"]
