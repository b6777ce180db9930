FROM python:3.11.7-slim
WORKDIR /app
# the locked dependencies first (deploy/lock.sh writes the lock), so a rebuild that changes only
# the code reuses this layer, and every build gets the same versions
COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock
COPY pyproject.toml setup.py README.md openapi.yaml gunicorn.conf.py ./
COPY service ./service
COPY workers ./workers
# the bots' measured strength that GET /v1/rules shows (service/api/strength.py)
COPY bench/results/ladder-*.json ./bench/results/
# the project itself, nothing more resolved (its wheel carries service/web/static and the spec)
RUN pip install --no-cache-dir --no-deps . && rm -rf build
RUN useradd --system --uid 10001 batayo \
    && mkdir -p /var/lib/batayo/archive && chown batayo /var/lib/batayo/archive
USER batayo
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
# exec form: gunicorn is PID 1 and receives `docker stop`'s SIGTERM itself (a shell form would
# put /bin/sh in between, which does not forward it); settings in gunicorn.conf.py
CMD ["gunicorn", "-c", "gunicorn.conf.py", "service.wsgi:app"]
