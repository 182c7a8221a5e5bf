"""Lease owner ids and the same-host liveness check every store's lease takeover uses.

An owner id is ``host:pid:random``: the random part makes each id unique per acquisition, so an
owner id also serves as the fencing token checked by fenced appends (see ``Store.append_many``);
host and pid let a store take over, before expiry, a lease whose holder on this host is dead.
"""

from __future__ import annotations

import os
import socket


def new_owner_id() -> str:
    """``host:pid:random`` — enough to tell whether a lease holder on this host is still alive."""
    return f"{socket.gethostname()}:{os.getpid()}:{os.urandom(4).hex()}"


def owner_is_dead(owner: str) -> bool:
    """True only when ``owner`` names a process on this host that no longer exists."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != socket.gethostname() or not pid_text.isdigit():
        return False  # another machine: only expiry can tell
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
