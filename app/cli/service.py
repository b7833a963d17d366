"""`pressroom key set|check|delete` and `pressroom serve`."""

from __future__ import annotations

import argparse
import getpass
import json
import logging
import sys
import time
from pathlib import Path

from app.core import secrets, service
from app.core.errors import InvalidOption
from app.core.service import ApiKeyRecord, as_datetime
from app.core.settings import Settings

log = logging.getLogger("pressroom.cli")


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.command == "serve":
        return serve(args, settings)
    if args.key_command == "set":
        return key_set(args)
    if args.key_command == "delete":
        removed = secrets.delete_key()
        if not args.quiet:
            print("pressroom: the API key was removed from the keychain" if removed else "pressroom: no API key was stored",
                  file=sys.stderr)  # fmt: skip
        return 0
    return key_check(args, settings)


def key_set(args: argparse.Namespace) -> int:
    if args.given:
        raise InvalidOption(
            "the key is never given on the command line (it would stay in the shell's history)",
            "Run 'pressroom key set' and paste it when asked, or pipe it in",
        )
    typed = getpass.getpass("API key (input is hidden): ") if sys.stdin.isatty() else sys.stdin.readline()
    key = secrets.check_key_text(typed)
    secrets.set_key(key)
    if not args.quiet:
        print(f"pressroom: the API key {service.redact(key)} is stored in the system keychain", file=sys.stderr)
    return 0


def key_check(args: argparse.Namespace, settings: Settings) -> int:
    from app.engines.remote import RemoteConfig, RemoteEngine

    key = secrets.require_key()
    with RemoteEngine(RemoteConfig.from_settings(settings), key=key) as engine:
        record = engine.check_key().result()
    if args.json:
        print(json.dumps(service.redact_value(record.raw, key), indent=2, sort_keys=True))
        return 0
    print(describe(record, key))
    return 0


def describe(record: ApiKeyRecord, key: str) -> str:
    def moment(value: float | None) -> str:
        if value is None:
            return "-"
        when = as_datetime(value)
        raw = f"{value:g}" if isinstance(value, float) else str(value)
        return f"{when:%Y-%m-%d %H:%M} UTC ({raw})" if when else raw

    limit = record.max_request_count
    rows = [
        ("Key", f"{service.redact(key)} (from {secrets.key_source()})"),
        ("Workspace", record.name or "-"),
        ("Workspace id", record.workspace_id or "-"),
        ("Max requests", "-" if limit is None else f"{limit:g}"),
        ("Created", moment(record.created_at if record.created_at is not None else record.date_created)),
        ("Checked at", moment(record.timestamp)),
        ("Token issued", moment(record.iat)),
        ("Token expires", moment(record.exp)),
        ("User", record.user_id or (record.jwt.email if record.jwt else None) or "-"),
    ]
    if record.jwt and record.jwt.email:
        rows.append(("E-mail", record.jwt.email))
    width = max(len(name) for name, _ in rows) + 2
    return "\n".join(f"{name + ':':<{width}}{value}" for name, value in rows)


def serve(args: argparse.Namespace, settings: Settings) -> int:
    from app.engines.local import LocalEngine, LocalEngineConfig
    from app.server.server import KeyBook, PressroomServer, ServerConfig, Workspace

    if args.keys:
        keys = KeyBook.from_file(Path(args.keys))
    else:
        key = secrets.get_key()
        if key is None:
            raise InvalidOption(
                "the server has no API key to accept", "Give --keys FILE, or store a key with 'pressroom key set'"
            )
        keys = KeyBook([Workspace(key, "Pressroom", time.time())])
    config = ServerConfig(
        host=args.host, port=args.port, max_body=int(args.max_body_mb * 2**20), queue=args.queue,
        job_timeout=args.timeout or max(float(settings["timeout"]), 60.0), origin_header=settings["origin_header"],
    )  # fmt: skip
    engine_config = LocalEngineConfig.from_settings(settings)
    engine = LocalEngine(
        LocalEngineConfig(
            **{**_fields(engine_config), "allow_private_urls": args.allow_private_urls, "timeout": config.job_timeout}
        )
    )
    if not args.quiet:
        logging.getLogger("pressroom.server").setLevel(logging.INFO)
        logging.getLogger("pressroom").setLevel(min(logging.getLogger("pressroom").level, logging.INFO))
    try:
        server = PressroomServer(engine, keys, config)
    except OSError as exc:
        engine.close()
        raise InvalidOption(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", "Choose another --port") from exc
    print(f"pressroom: serving the hosted API on {server.url} (Ctrl+C stops)", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("pressroom: stopping", file=sys.stderr)
    finally:
        server.server_close()
        engine.close()
    return 0


def _fields(config: object) -> dict[str, object]:
    from dataclasses import fields

    return {field.name: getattr(config, field.name) for field in fields(config)}  # type: ignore[arg-type]
