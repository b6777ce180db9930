FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md openapi.yaml ./
COPY service ./service
COPY workers ./workers
RUN pip install --no-cache-dir .
RUN useradd --system --uid 10001 batayo
USER batayo
ENV PYTHONUNBUFFERED=1
EXPOSE 8000
CMD ["gunicorn", "--bind", "0.0.0.0:8000", "--worker-class", "gthread", "--workers", "2", "--threads", "16", "--graceful-timeout", "30", "service.wsgi:app"]
