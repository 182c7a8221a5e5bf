"""The hash chain over a run's stored events, and the seal (MAC) on its head.

Each stored event row carries ``prev_hash``: the chain hash before it. The chain starts from the
run id and each event extends it with one sha256 over its stored body::

    H(-1) = sha256("forethought-chain\\0" + run_id)
    H(n)  = sha256(H(n-1) + body(n))          row n stores prev_hash = H(n-1)

The run's row keeps the head ``H(last)`` and ``seal = HMAC(record key, run_id, last seq, head)``.
Anyone can recompute a plain chain after editing rows, but not the seal without the key, so an
edited, inserted, deleted or copied event (including one cut from the end) is detected by
``forethought.runs.integrity``. The writer extends the chain incrementally from the head it reads
with the run's ``last_seq`` — one sha256 per event over bytes it serialized anyway, one HMAC per
run per transaction.
"""

from __future__ import annotations

import hashlib
import hmac

from forethought.plan.model import sha256_of_text


def genesis(run_id: str) -> bytes:
    return hashlib.sha256(b"forethought-chain\0" + run_id.encode()).digest()


def link(prev: bytes, body: bytes) -> bytes:
    return hashlib.sha256(prev + body).digest()


def link_text(prev: bytes, body: str) -> bytes:
    """``link(prev, body.encode())``; a large body (a large plan's event) is hashed a slice at a
    time instead of encoded and joined whole (``sha256_of_text``)."""
    return sha256_of_text(body, prev)


def seal(key: bytes, run_id: str, last_seq: int, head: bytes) -> str:
    message = f"{run_id}\0{last_seq}\0{head.hex()}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def seal_matches(key: bytes, run_id: str, last_seq: int, head: bytes, stored: str) -> bool:
    return bool(stored) and hmac.compare_digest(seal(key, run_id, last_seq, head), stored)
