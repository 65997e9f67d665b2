"""Keep the memory a photo's reading frees for the next one (glibc's malloc only).

Reading a 12 MP photo allocates a dozen arrays of 1-10 MB: the decoded image, its ink
pyramid, the canonical view, the cell crops, the model's input. glibc maps blocks that
large on their own and hands them back to the kernel when they are freed (its mmap
threshold starts at 128 KiB and rises only to the largest block freed so far, its trim
threshold to twice that), so the kernel maps fresh pages for the next photo, zeroing
each on its first touch: some 3000 page faults a photo, photo after photo. Fixing the
mmap threshold at 16 MiB keeps those blocks in the heap, and a high trim threshold
keeps the heap from being returned between photos, so later photos reuse the pages
already mapped: a sheet took 53 ms in a batch worker against 61 before
(docs/figures.md, speed, session 33).

Batch workers set it: they read photo after photo. ``score`` and ``read`` leave the
defaults: one photo has nothing to reuse, and their speed is measured against a plain
``cv2.imread`` in the same process, which a heap kept this large would also speed up.
"""

from __future__ import annotations

import ctypes
import platform

#: glibc's ``mallopt`` parameters (malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: Blocks from this size up are still mapped on their own (a full-resolution decode).
MMAP_FROM = 16 << 20
#: Free memory at the heap's top kept for reuse up to this much.
TRIM_ABOVE = 256 << 20


def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds for this process (once, before reading
    photos). False, and nothing changed, where the C library is not glibc."""
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(M_MMAP_THRESHOLD, MMAP_FROM)) and bool(
            libc.mallopt(M_TRIM_THRESHOLD, TRIM_ABOVE)
        )
    except (OSError, AttributeError):
        return False
