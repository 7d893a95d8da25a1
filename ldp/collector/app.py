"""The collector's HTTP service: a Starlette application (run by uvicorn, ``ldp serve``).

Endpoints (every error is a one-line JSON object ``{"error": "..."}`` with a 4xx/5xx status):

* ``GET /health``: ``{"status": "ok", ...}`` once the store answers (503 otherwise);
* ``GET /v1/protocols``: the fingerprints and questions served;
* ``GET /v1/protocols/{fingerprint}``: the protocol file (devices verify it themselves);
* ``POST /v1/protocols/{fingerprint}/reports``: one record, a JSON array of records or JSON
  lines, each ``{"id", "fingerprint", "report"}``; every record is checked and the upload is
  stored whole or not at all: ``{"accepted", "duplicates", "window_start"}``. 400 for a body
  that is not JSON, 422 for a record that fails a check, 409 for a known id with another
  report, 413 for a body over the limit, 429 over the rate limit (with ``Retry-After``),
  503 when the database refuses the write;
* ``GET /v1/protocols/{fingerprint}/estimate[?start=&end=&confidence=&items=]``: the running
  estimate (``ldp.collector.estimates``; a marginals protocol's requested marginals),
  ``null`` below the minimum number of reports;
  with an operator token, only for ``Authorization: Bearer <token>`` (uploads never need
  one);
* ``GET /survey/``, ``/survey/results.html``: the web survey and its results page (the
  example in ``examples/web_survey``), with the JavaScript client.

Every request is logged as one JSON line (method, path, status, milliseconds, record
counts, the error message) on the ``ldp.collector`` logger; a report body never is.
"""

from __future__ import annotations

import hmac
import json
import logging
import math
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ldp.collector.backends import StoreError
from ldp.collector.estimates import estimate_document, privacy_document
from ldp.collector.limits import DEFAULT_MAX_BODY, RateLimiter
from ldp.collector.records import parse_body
from ldp.collector.store import ConflictError, Served, Store
from ldp.collector.survey import survey_file
from ldp.protocol import MarginalProtocol

__all__ = ["DEFAULT_RATE", "LOGGER", "create_app"]

#: The logger of the service: one JSON object a line.
LOGGER = logging.getLogger("ldp.collector")
#: Uploads a second per client address, unless the operator says otherwise.
DEFAULT_RATE = 50.0
_LOG_KEY = "ldp.collector.log"
_ESTIMATE_QUERY = frozenset({"start", "end", "confidence", "items"})


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": " ".join(message.split())}, status, headers=headers)


class _Failure(Exception):
    """An answer with an error status (the message says why; logged, never with a body)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


class _AccessLog:
    """ASGI middleware: one JSON log line per request, and a JSON 500 for a crash."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        fields: dict[str, Any] = {}
        scope[_LOG_KEY] = fields
        status = [0]

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            fields["error"] = f"internal error ({type(exc).__name__})"
            if status[0] == 0:
                await _error(500, "internal error")(scope, receive, sending)
            else:  # pragma: no cover - the answer had started
                raise
        finally:
            client = scope.get("client")
            entry = {
                "event": "request",
                "method": scope["method"],
                "path": scope["path"],
                "status": status[0],
                "ms": round(1000 * (time.perf_counter() - start), 2),
                "client": client[0] if client else None,
                **fields,
            }
            level = logging.ERROR if status[0] >= 500 else logging.INFO
            LOGGER.log(level, json.dumps(entry, separators=(",", ":")))


def _number(request: Request, name: str) -> float | None:
    text = request.query_params.get(name)
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise _Failure(400, f"{name} must be a number, got {text[:40]!r}")
    return value


class _Collector:
    def __init__(
        self,
        store: Store,
        protocols: Sequence[Served],
        *,
        min_reports: int,
        token: str | None,
        max_body: int,
        rate: float | None,
    ) -> None:
        self.store = store
        self.protocols = {p.fingerprint: p for p in protocols}
        # what a device computes from each protocol's constants, once
        self.privacy = {p.fingerprint: privacy_document(p) for p in protocols}
        self.min_reports = min_reports
        self.token = token
        self.max_body = max_body
        self.limiter = None if rate is None else RateLimiter(rate)

    # ----------------------------------------------------------------- helpers
    def protocol(self, request: Request) -> Served:
        fingerprint = request.path_params["fingerprint"]
        protocol = self.protocols.get(fingerprint)
        if protocol is None:
            raise _Failure(404, f"no protocol with fingerprint {fingerprint[:32]!r} is served here")
        return protocol

    async def body(self, request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
                raise _Failure(400, "Content-Length must be a whole number")
            if int(declared) > self.max_body:
                raise _Failure(413, f"the body is over the limit of {self.max_body} bytes")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.max_body:
                raise _Failure(413, f"the body is over the limit of {self.max_body} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def authorize(self, request: Request) -> None:
        if self.token is None:
            return
        given = request.headers.get("authorization", "")
        scheme, _, credential = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            credential.strip().encode(), self.token.encode()
        ):
            raise _Failure(
                401,
                "the estimate needs the operator's token (Authorization: Bearer <token>)",
                {"WWW-Authenticate": "Bearer"},
            )

    # ----------------------------------------------------------------- endpoints
    async def health(self, request: Request) -> Response:
        try:
            await run_in_threadpool(self.store.ping)
        except StoreError as exc:
            raise _Failure(503, str(exc)) from None
        return JSONResponse(
            {"status": "ok", "store": self.store.kind, "protocols": len(self.protocols)}
        )

    async def listing(self, request: Request) -> Response:
        return JSONResponse(
            {
                "protocols": [
                    {"fingerprint": p.fingerprint, "kind": _kind(p), "question": p.question}
                    for p in self.protocols.values()
                ]
            }
        )

    async def document(self, request: Request) -> Response:
        protocol = self.protocol(request)
        return Response(protocol.to_json(), media_type="application/json")

    async def upload(self, request: Request) -> Response:
        protocol = self.protocol(request)
        if self.limiter is not None:
            client = request.client.host if request.client else "?"
            wait = self.limiter.wait(client)
            if wait > 0:
                raise _Failure(
                    429,
                    "too many uploads from this address: try again later",
                    {"Retry-After": str(max(1, math.ceil(wait)))},
                )
        body = await self.body(request)
        try:
            records = parse_body(body)
        except ValueError as exc:
            raise _Failure(400, str(exc)) from None
        log = request.scope[_LOG_KEY]
        log["records"] = len(records)
        try:
            result = await run_in_threadpool(self.store.ingest, protocol, records)
        except ConflictError as exc:
            raise _Failure(409, str(exc)) from None
        except ValueError as exc:
            raise _Failure(422, str(exc)) from None
        except StoreError as exc:
            raise _Failure(503, str(exc)) from None
        log.update(accepted=result.accepted, duplicates=result.duplicates)
        return JSONResponse(
            {
                "accepted": result.accepted,
                "duplicates": result.duplicates,
                "window_start": result.window_start,
            }
        )

    async def estimate(self, request: Request) -> Response:
        protocol = self.protocol(request)
        self.authorize(request)
        unknown = sorted(set(request.query_params) - _ESTIMATE_QUERY)
        if unknown:
            raise _Failure(
                400, f"unknown query parameter(s) {unknown[:5]}; known: {sorted(_ESTIMATE_QUERY)}"
            )
        start, end = _number(request, "start"), _number(request, "end")
        confidence = _number(request, "confidence")
        text = request.query_params.get("items")
        items = None if text is None else [item for item in text.split(",") if item]
        try:
            statistic = await run_in_threadpool(
                self.store.statistic, protocol, start=start, end=end
            )
        except StoreError as exc:
            raise _Failure(503, str(exc)) from None
        try:
            document = estimate_document(
                protocol,
                statistic,
                min_reports=self.min_reports,
                confidence=0.95 if confidence is None else confidence,
                items=items,
                privacy=self.privacy[protocol.fingerprint],
            )
        except ValueError as exc:
            raise _Failure(400, str(exc)) from None
        document["window"] = {
            "start": start,
            "end": end,
            "window_seconds": self.store.window_seconds,
        }
        return JSONResponse(document, headers={"Cache-Control": "no-store"})

    async def home(self, request: Request) -> Response:
        first = next(iter(self.protocols))
        return RedirectResponse(f"/survey/?protocol={first}", status_code=303)

    async def survey(self, request: Request) -> Response:
        return self._file(survey_file(request.path_params.get("name") or "index.html"))

    async def client(self, request: Request) -> Response:
        return self._file(survey_file("ldp_client.mjs"))

    @staticmethod
    def _file(path: Path | None) -> Response:
        if path is None:
            raise _Failure(404, "no such page")
        media = "text/javascript" if path.suffix == ".mjs" else None
        return FileResponse(path, media_type=media, headers={"Cache-Control": "no-cache"})


async def _failure(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, _Failure)
    request.scope.get(_LOG_KEY, {})["error"] = " ".join(exc.message.split())
    return _error(exc.status, exc.message, exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    request.scope.get(_LOG_KEY, {})["error"] = exc.detail
    return _error(exc.status_code, str(exc.detail), dict(exc.headers or {}))


def _kind(protocol: Served) -> str:
    return "marginals" if isinstance(protocol, MarginalProtocol) else protocol.kind


def create_app(
    store: Store,
    protocols: Sequence[Served],
    *,
    min_reports: int,
    token: str | None = None,
    cors_origins: Sequence[str] = (),
    max_body: int = DEFAULT_MAX_BODY,
    rate: float | None = DEFAULT_RATE,
    close_store: bool = True,
) -> Starlette:
    """The collector for ``protocols`` on ``store`` (see the module notes).

    Parameters
    ----------
    store : Store
        Where the reports go; the protocols are added to it now.
    protocols : sequence of Protocol or MarginalProtocol
        The protocols served (at least one, distinct fingerprints): one-question protocols
        and marginals protocols (a table's survey).
    min_reports : int
        The fewest reports an estimate is released from (at least 1).
    token : str, optional
        The operator token the estimate endpoint requires (none: the estimate is public).
    cors_origins : sequence of str
        Origins whose pages may call the service from a browser (CORS).
    max_body : int
        Largest upload body in bytes.
    rate : float or None
        Uploads a second per client address (``None``: no limit).
    close_store : bool
        Close ``store`` when the application shuts down (after the requests in flight).

    Returns
    -------
    starlette.applications.Starlette

    Examples
    --------
    >>> import os, tempfile
    >>> from starlette.testclient import TestClient
    >>> from ldp.collector import Store
    >>> from ldp.collector.app import create_app
    >>> from ldp.mechanisms import GRR
    >>> from ldp.protocol import Protocol
    >>> protocol = Protocol.from_mechanism(GRR(2, 1.0), labels=["no", "yes"])
    >>> store = Store(os.path.join(tempfile.mkdtemp(), "reports.sqlite"))
    >>> with TestClient(create_app(store, [protocol], min_reports=1)) as client:
    ...     record = {"id": "5a" * 16, "fingerprint": protocol.fingerprint, "report": [1]}
    ...     url = f"/v1/protocols/{protocol.fingerprint}"
    ...     print(client.post(url + "/reports", json=record).json())
    ...     print(client.get(url + "/estimate").json()["n"])
    {'accepted': 1, 'duplicates': 0, 'window_start': ...}
    1
    """
    protocols = list(protocols)
    if not protocols:
        raise ValueError("protocols must name at least one protocol to serve")
    fingerprints = [p.fingerprint for p in protocols]
    if len(set(fingerprints)) != len(fingerprints):
        raise ValueError("protocols must be distinct (a fingerprint is served once)")
    if isinstance(min_reports, bool) or not isinstance(min_reports, int) or min_reports < 1:
        raise ValueError(f"min_reports must be a whole number >= 1, got {min_reports!r}")
    if isinstance(max_body, bool) or not isinstance(max_body, int) or max_body < 1:
        raise ValueError(f"max_body must be a positive number of bytes, got {max_body!r}")
    if token is not None and (not isinstance(token, str) or not token.strip()):
        raise ValueError("token must be a non-empty string")
    for protocol in protocols:
        store.add_protocol(protocol)
    collector = _Collector(
        store,
        protocols,
        min_reports=min_reports,
        token=None if token is None else token.strip(),
        max_body=max_body,
        rate=rate,
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        LOGGER.info(json.dumps({"event": "started", "protocols": fingerprints}))
        yield
        if close_store:
            store.close()
        LOGGER.info(json.dumps({"event": "stopped"}))

    routes = [
        Route("/", collector.home),
        Route("/health", collector.health),
        Route("/v1/protocols", collector.listing),
        Route("/v1/protocols/{fingerprint}", collector.document),
        Route("/v1/protocols/{fingerprint}/reports", collector.upload, methods=["POST"]),
        Route("/v1/protocols/{fingerprint}/estimate", collector.estimate),
        Route("/survey/", collector.survey),
        Route("/survey/{name}", collector.survey),
        Route("/clients/js/ldp_client.mjs", collector.client),
    ]
    middleware = [Middleware(_AccessLog)]
    if cors_origins:
        middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=list(cors_origins),
                allow_methods=["GET", "POST"],
                allow_headers=["Content-Type", "Authorization"],
            )
        )
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={_Failure: _failure, HTTPException: _http_error},
        lifespan=lifespan,
    )
