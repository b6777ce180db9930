FROM python:3.11.7-slim
WORKDIR /app
COPY pyproject.toml README.md openapi.yaml gunicorn.conf.py ./
COPY service ./service
COPY workers ./workers
RUN pip install --no-cache-dir .
RUN useradd --system --uid 10001 batayo
USER batayo
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
# exec form: gunicorn is PID 1 and receives `docker stop`'s SIGTERM itself (a shell form would
# put /bin/sh in between, which does not forward it); settings in gunicorn.conf.py
CMD ["gunicorn", "-c", "gunicorn.conf.py", "service.wsgi:app"]
