"""The edge's heap: whole frames mapped and unmapped, not left in the heap.

glibc serves an allocation over its mmap threshold with a mapping of its own, returned to the
system when freed, but it raises that threshold to the size of each such block freed (up to
32 MB). After the first whole frame is freed, every later one (a decoded 1920x1080 frame, a
copy out of the camera's request, the annotated evidence: 6.2 MB each) comes from the heap,
where the small objects allocated between them keep the heap from shrinking: the edge's peak
RSS grew with every read, 153.9 MB over 20 throws at 1920x1080 against 148.0 MB with the
threshold fixed at 2 MB (`bench/bench_edge.py`, docs/edge.md, session 60). A fixed threshold
stops the raising; what it costs is the page faults of each new mapping, 1.6-2.0 ms a
decoded 1920x1080 frame here, and the early read (edge/readpath.py) keeps the decode off the
path to the service's answer.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger("dicecall.edge")

M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter (malloc.h)
# A BGR frame of 1280x720 and up (2.8 MB) is mapped; one of 640x480 (0.9 MB), the reader's
# inputs (at most 2.0 MB for 40 crops) and the roll bodies stay in the heap.
FRAME_THRESHOLD = 2 << 20


def map_large_buffers(threshold: int = FRAME_THRESHOLD) -> bool:
    """Fixes glibc's mmap threshold at `threshold` bytes for this process; False where the C
    library has no `mallopt` (musl, macOS) or refuses the value: nothing changes then."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    done = mallopt(M_MMAP_THRESHOLD, threshold) == 1
    if done:
        log.debug("mmap threshold fixed", extra={"bytes": threshold})
    return done
