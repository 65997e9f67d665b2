"""Freed memory kept for the next photo (app.memory): what a batch worker sets."""

import platform
import subprocess
import sys

#: Photo after photo, in a fresh process: three arrays of 6 MB (a view, crops, the
#: model's input) allocated, written and freed, six times; the page faults it took.
_PHOTOS = """
import resource, sys
import numpy as np
if sys.argv[1] == "keep":
    from app.memory import keep_freed_memory
    assert keep_freed_memory()
arrays = [np.ones(6 << 20, np.uint8) for _ in range(3)]  # the first photo maps its pages
del arrays
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(6):
    arrays = [np.ones(6 << 20, np.uint8) for _ in range(3)]
    del arrays
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> int:
    out = subprocess.run(
        [sys.executable, "-c", _PHOTOS, mode], capture_output=True, text=True, check=True
    )
    return int(out.stdout)


def test_later_photos_reuse_the_pages_the_first_one_mapped():
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        # By default glibc returns the freed heap to the kernel between photos.
        assert _faults("keep") < _faults("default") / 2
    else:  # other C libraries: nothing is changed, and the call says so
        from app.memory import keep_freed_memory

        assert keep_freed_memory() is False
