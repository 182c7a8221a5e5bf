"""A stand-in deployment system for the example: real processes, real files, no network.

State lives in ./state next to this script: built images, the database backup, what runs in
staging and production, the notifications sent, and operations.log: one line per
operation that reaches the deployment system (so you can see that nothing ran twice).
Deploying a tag that ends in `-broken` to production fails its health check, which is how the
example shows a rollback.
"""

import json
import sys
import time
from pathlib import Path

STATE = Path(__file__).resolve().parent / "state"


def record(name: str, value: str) -> None:
    STATE.mkdir(exist_ok=True)
    (STATE / name).write_text(value + "\n", encoding="utf-8")


def read(name: str) -> str | None:
    path = STATE / name
    return path.read_text(encoding="utf-8").strip() if path.exists() else None


def main(argv: list[str]) -> int:
    command, args = argv[0], argv[1:]
    STATE.mkdir(exist_ok=True)
    with (STATE / "operations.log").open("a", encoding="utf-8") as fh:
        fh.write(" ".join(argv) + "\n")
    time.sleep(0.1)  # every operation takes a moment, so parallel branches are visible
    if command == "test":
        print(json.dumps({"passed": 42, "failed": 0}))
    elif command == "build":
        record(f"image-{args[0]}", "built")
        print(json.dumps({"image": f"app:{args[0]}"}))
    elif command == "backup":
        record("backup.sql", f"-- backup taken at {time.time():.0f}")
        print(json.dumps({"backup": str(STATE / "backup.sql")}))
    elif command == "deploy":
        env, tag = args
        if read(f"image-{tag}") is None:
            print(f"no image for {tag}; build it first", file=sys.stderr)
            return 2
        if env == "production" and tag.endswith("-broken"):
            print(f"health check of {tag} in production failed: HTTP 503", file=sys.stderr)
            return 1
        previous = read(env)
        if previous:
            record(f"{env}.previous", previous)
        record(env, tag)
        print(json.dumps({"env": env, "tag": tag, "previous": previous}))
    elif command == "smoke":
        env = args[0]
        tag = read(env)
        if tag is None:
            print(f"nothing deployed in {env}", file=sys.stderr)
            return 1
        print(json.dumps({"env": env, "tag": tag, "healthy": True}))
    elif command == "rollback":
        target = args[0]
        if target == "previous":  # the release before the last deploy, else what is running
            target = read("production.previous") or read("production") or "none"
        record("production", target)
        print(json.dumps({"production": target}))
    elif command == "notify":
        STATE.mkdir(exist_ok=True)
        with (STATE / "notifications.log").open("a", encoding="utf-8") as fh:
            fh.write(args[0] + "\n")
        print(json.dumps({"sent": args[0]}))
    else:
        print(f"unknown command {command}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
