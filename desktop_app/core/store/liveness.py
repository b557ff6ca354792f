"""Is a run's owner alive? Tells a run still being written from one whose process died.

A run records the pid, hostname and a per-process token of the process that started it; a
'running' run whose owner is gone is marked 'interrupted' when the file is next opened.
"""

from __future__ import annotations

import os
import socket
import sys
import uuid

# --------------------------------------------------------------------------- is a run's owner alive

_HOSTNAME = socket.gethostname()
# Tells this process apart from an earlier one that had the same pid: in a container the app is
# often pid 1 every time, so "same pid" alone would keep a crashed run 'running' for ever.
_OWNER_TOKEN = uuid.uuid4().hex


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    if sys.platform == "win32":
        return _pid_alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    try:  # a zombie answers kill(0) but will never finish the run
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except OSError:
        return True


def _pid_alive_windows(pid: int) -> bool:
    # os.kill(pid, 0) would *terminate* the process on Windows.
    import ctypes
    from ctypes import wintypes

    # Windows-only names: typeshed has them only when checking for Windows.
    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    kernel32.OpenProcess.restype = wintypes.HANDLE
    kernel32.OpenProcess.argtypes = (wintypes.DWORD, wintypes.BOOL, wintypes.DWORD)
    kernel32.GetExitCodeProcess.argtypes = (wintypes.HANDLE, ctypes.POINTER(wintypes.DWORD))
    kernel32.CloseHandle.argtypes = (wintypes.HANDLE,)
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return ctypes.get_last_error() == 5  # type: ignore[attr-defined]  # ACCESS_DENIED: it exists
    try:
        code = wintypes.DWORD()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


def _owner_gone(pid: int | None, hostname: str | None, token: str | None) -> bool:
    if pid is None:
        return True
    if hostname != _HOSTNAME:
        return False  # a file on a shared drive: we cannot see that machine's processes
    if pid == os.getpid():
        return token != _OWNER_TOKEN
    return not _pid_alive(pid)
